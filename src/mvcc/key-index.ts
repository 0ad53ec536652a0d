// Mirrors etcd mvcc/key_index.go; deviations are listed in docs/DEVIATIONS.md.
import { latin1ToBytes } from '../pkg/bytes.js'
import { invariant } from '../pkg/verify.js'
import { RevisionNotFoundError } from './errors.js'
import { compareRev, type Revision } from './revision.js'

/**
 * A generation: one life of a key, from its creating put to (and including) its tombstone.
 * `ver` counts the revisions appended to it (puts, and the tombstone).
 */
export interface Generation {
  ver: number
  created: Revision
  revs: Revision[]
}

/** Where a key stood at some revision. */
export interface KeyAt {
  readonly modified: Revision
  readonly created: Revision
  readonly version: number
}

const newGeneration = (): Generation => ({ ver: 0, created: { main: 0, sub: 0 }, revs: [] })
const ZERO: Revision = { main: 0, sub: 0 }

/**
 * KeyIndex stores the revisions of one key. Each put appends to the newest generation; a tombstone
 * appends its revision and then opens a new, empty generation. Example (etcd's): put@1.0, put@2.0,
 * tombstone@3.0, put@4.0, tombstone@5.0 gives
 *
 *     generations:
 *       {empty}
 *       {4.0, 5.0(t)}
 *       {1.0, 2.0, 3.0(t)}
 *
 * Compaction at revision N drops every revision <= N except the newest one of the generation live at N;
 * a tombstone at exactly N is kept too (as etcd 3.4.34+ keeps it: a watch from N must still see
 * that delete), and goes at the next compaction above N. A generation left empty goes with it:
 *
 *     compact(2) -> {empty} {4.0, 5.0(t)} {2.0, 3.0(t)}
 *     compact(3) -> {empty} {4.0, 5.0(t)} {3.0(t)}
 *     compact(4) -> {empty} {4.0, 5.0(t)}
 *     compact(5) -> {empty} {5.0(t)}
 *     compact(6) -> {empty}                (the KeyIndex is empty and is removed)
 *
 * etcd 3.4.23 dropped a tombstone at exactly N at once, losing that DELETE for watchers starting at N.
 */
export class KeyIndex {
  /**
   * The key as a latin1 string (one char per byte, see bytes.ts): the same string the tree index is keyed
   * by, so each key's bytes are held once, as a compact V8 string, and not as a typed array with its own
   * buffer (about 100 bytes of overhead per key).
   */
  readonly k: string
  modified: Revision = ZERO
  generations: Generation[] = []

  constructor(k: string) {
    this.k = k
  }

  /** The key's bytes (a fresh copy on each call). */
  get key(): Uint8Array {
    return latin1ToBytes(this.k)
  }

  /** Append a put at (main, sub); revisions must grow. */
  put(main: number, sub: number): void {
    const rev: Revision = { main, sub }
    invariant(compareRev(rev, this.modified) > 0, `keyIndex.put: revision ${main}.${sub} not after ${this.modified.main}.${this.modified.sub}`)
    // Arrays are made at their exact size where they start: a push onto an empty array reserves 17 slots,
    // and most keys keep one generation of one revision.
    if (this.generations.length === 0) this.generations = [newGeneration()]
    const g = this.generations[this.generations.length - 1] as Generation
    if (g.revs.length === 0) {
      g.created = rev
      g.revs = [rev]
    } else g.revs.push(rev)
    g.ver++
    this.modified = rev
  }

  /** Whether the key exists now: its newest generation has revisions (it was put, and not deleted since). */
  get live(): boolean {
    const g = this.generations[this.generations.length - 1]
    return g !== undefined && g.revs.length !== 0
  }

  /** Rebuild from a stored record whose earlier history was compacted away. */
  restore(created: Revision, modified: Revision, ver: number): void {
    invariant(this.generations.length === 0, 'keyIndex.restore: not empty')
    this.modified = modified
    this.generations = [{ created, ver, revs: [modified] }]
  }

  /**
   * Rebuild from a stored tombstone that is the key's only record left (its history was compacted away
   * up to and including N = the tombstone's revision). The creating revision is
   * unknown, so it is zero.
   */
  restoreTombstone(tomb: Revision): void {
    this.restore(ZERO, tomb, 1)
    this.generations.push(newGeneration())
  }

  /** Append a tombstone at (main, sub) and open a new generation. Throws if the key is not live. */
  tombstone(main: number, sub: number): void {
    invariant(!this.isEmpty(), 'keyIndex.tombstone: empty keyIndex')
    if ((this.generations[this.generations.length - 1] as Generation).revs.length === 0) throw new RevisionNotFoundError()
    this.put(main, sub)
    this.generations.push(newGeneration())
  }

  /**
   * Undo the newest change, which must be at `rev`: a put, or a tombstone with the empty generation it
   * opened. For a write that never became durable (the store's rollback after a failed commit).
   */
  unwind(rev: Revision): void {
    let g = this.generations[this.generations.length - 1]
    if (g !== undefined && g.revs.length === 0 && this.generations.length > 1) {
      this.generations.pop()
      g = this.generations[this.generations.length - 1]
    }
    const last = g?.revs[g.revs.length - 1]
    invariant(g !== undefined && last !== undefined && compareRev(last, rev) === 0, `keyIndex.unwind: ${rev.main}.${rev.sub} is not the newest revision`)
    g.revs.pop()
    g.ver--
    if (g.revs.length === 0) {
      g.created = ZERO
      g.ver = 0
    }
    this.modified = ZERO
    for (let i = this.generations.length - 1; i >= 0; i--) {
      const newest = (this.generations[i] as Generation).revs.at(-1)
      if (newest !== undefined) {
        this.modified = newest
        break
      }
    }
  }

  /** The newest revision with main <= atRev in the generation live at atRev, or undefined. */
  get(atRev: number): KeyAt | undefined {
    const g = this.findGeneration(atRev)
    if (g === undefined) return undefined
    for (let i = g.revs.length - 1; i >= 0; i--) {
      const r = g.revs[i] as Revision
      if (r.main <= atRev) return { modified: r, created: g.created, version: g.ver - (g.revs.length - i - 1) }
    }
    return undefined
  }

  /**
   * Revisions with main >= rev, from the generation live at `rev` on, keeping only the last revision of
   * each main revision (etcd's `since`).
   */
  since(rev: number): Revision[] {
    const since: Revision = { main: rev, sub: 0 }
    let gi = this.generations.length - 1
    for (; gi > 0; gi--) {
      const g = this.generations[gi] as Generation
      if (g.revs.length === 0) continue
      if (compareRev(since, g.created) > 0) break
    }
    const out: Revision[] = []
    let last = -1
    for (; gi < this.generations.length; gi++) {
      for (const r of (this.generations[gi] as Generation).revs) {
        if (compareRev(since, r) > 0) continue
        if (r.main === last) {
          out[out.length - 1] = r
          continue
        }
        out.push(r)
        last = r.main
      }
    }
    return out
  }

  /**
   * Drop history at or below atRev (see the class comment). Revisions that must survive in the backend
   * are added to `available`, keyed by {@link revKey}.
   */
  compact(atRev: number, available: Set<string>): void {
    invariant(!this.isEmpty(), 'keyIndex.compact: empty keyIndex')
    const compacted = this.doCompact(atRev, available)
    const genIdx = compacted.genIdx
    const revIndex = compacted.revIndex
    const g = this.generations[genIdx] as Generation
    if (g.revs.length !== 0 && revIndex !== -1) g.revs = g.revs.slice(revIndex)
    this.generations = this.generations.slice(genIdx)
  }

  /**
   * Like compact, but only computes what would survive (etcd's `keep`, used for hashing). Unlike compact,
   * it leaves out a tombstone at exactly atRev, as etcd does, so hashes agree with older versions.
   */
  keep(atRev: number, available: Set<string>): void {
    if (this.isEmpty()) return
    const { genIdx, revIndex } = this.doCompact(atRev, available)
    const g = this.generations[genIdx] as Generation
    if (g.revs.length !== 0 && revIndex === g.revs.length - 1 && genIdx !== this.generations.length - 1) {
      available.delete(revKey(g.revs[revIndex] as Revision))
    }
  }

  isEmpty(): boolean {
    return this.generations.length === 1 && (this.generations[0] as Generation).revs.length === 0
  }

  private doCompact(atRev: number, available: Set<string>): { genIdx: number; revIndex: number } {
    let genIdx = 0
    let g = this.generations[0] as Generation
    while (genIdx < this.generations.length - 1) {
      const tomb = (g.revs[g.revs.length - 1] as Revision).main
      if (tomb > atRev) break
      if (tomb === atRev) {
        // The tombstone is the key's last change at atRev unless the same txn put the key again after it
        // (a delete and a later put in one txn); then the next generation holds the state at atRev.
        const next = (this.generations[genIdx + 1] as Generation).revs[0]
        if (next === undefined || next.main > atRev) break
      }
      genIdx++
      g = this.generations[genIdx] as Generation
    }
    let revIndex = -1
    for (let i = g.revs.length - 1; i >= 0; i--) {
      const r = g.revs[i] as Revision
      if (r.main <= atRev) {
        available.add(revKey(r))
        revIndex = i
        break
      }
    }
    return { genIdx, revIndex }
  }

  private findGeneration(rev: number): Generation | undefined {
    const lastg = this.generations.length - 1
    for (let cg = lastg; cg >= 0; cg--) {
      const g = this.generations[cg] as Generation
      if (g.revs.length === 0) continue
      if (cg !== lastg && (g.revs[g.revs.length - 1] as Revision).main <= rev) return undefined
      if ((g.revs[0] as Revision).main <= rev) return g
    }
    return undefined
  }
}

/** Set key of a revision for compaction bookkeeping. */
export const revKey = (r: Revision): string => `${r.main}_${r.sub}`
