// Mirrors etcd mvcc/index.go (treeIndex): an ordered index of KeyIndex by key bytes.
import { bytesToLatin1, FROM_KEY, type RangeEnd } from '../pkg/bytes.js'
import { OrderedMap } from '../pkg/ordered-map.js'
import { KeyIndex, type KeyAt } from './key-index.js'
import { RevisionNotFoundError } from './errors.js'
import type { Revision } from './revision.js'

/** One key found by a range: its bytes and where it stood. */
export interface IndexedKey extends KeyAt {
  readonly key: Uint8Array
}

export class TreeIndex {
  private readonly tree = new OrderedMap<KeyIndex>()
  /** Keys that exist now, kept as they come and go (as etcd's keysGauge), so reading it costs nothing. */
  private live = 0

  /** Number of KeyIndex entries (live keys plus keys with history only). */
  get size(): number {
    return this.tree.size
  }

  /** Number of keys that exist now, written or not yet durable (etcd_debugging_mvcc_keys_total). */
  get liveKeys(): number {
    return this.live
  }

  put(key: Uint8Array, rev: Revision): void {
    const k = bytesToLatin1(key)
    let ki = this.tree.get(k)
    if (ki === undefined) {
      ki = new KeyIndex(k)
      this.tree.set(k, ki)
    }
    if (!ki.live) this.live++
    ki.put(rev.main, rev.sub)
  }

  tombstone(key: Uint8Array, rev: Revision): void {
    const ki = this.tree.get(bytesToLatin1(key))
    if (ki === undefined) throw new RevisionNotFoundError()
    ki.tombstone(rev.main, rev.sub)
    this.live--
  }

  /** Undo a key's newest change, at `rev` (see KeyIndex.unwind); a key left without history is removed. */
  unwind(key: Uint8Array, rev: Revision): void {
    const k = bytesToLatin1(key)
    const ki = this.tree.get(k)
    if (ki === undefined) throw new RevisionNotFoundError()
    const was = ki.live
    ki.unwind(rev)
    this.live += Number(ki.live) - Number(was)
    if (ki.isEmpty()) this.tree.delete(k)
  }

  get(key: Uint8Array, atRev: number): KeyAt | undefined {
    return this.tree.get(bytesToLatin1(key))?.get(atRev)
  }

  keyIndex(key: Uint8Array): KeyIndex | undefined {
    return this.tree.get(bytesToLatin1(key))
  }

  insert(ki: KeyIndex): void {
    const old = this.tree.get(ki.k)
    this.live += Number(ki.live) - Number(old?.live ?? false)
    this.tree.set(ki.k, ki)
  }

  /**
   * Fill an empty index with every KeyIndex of `byKey` (keyed by their latin1 keys) at once: one sort
   * instead of an ordered insert per key (restore). The index takes the map over.
   */
  load(byKey: Map<string, KeyIndex>): void {
    this.live = 0
    for (const ki of byKey.values()) if (ki.live) this.live++
    this.tree.load(byKey)
  }

  /**
   * Keys live at atRev in [key, end): `end` undefined means the single key, FROM_KEY means no upper
   * bound. Calls `fn` in key order with where the key stood and its KeyIndex (no key bytes are copied);
   * `fn` returns false to stop early.
   */
  visitAt(key: Uint8Array, end: RangeEnd, atRev: number, fn: (at: KeyAt, ki: KeyIndex) => boolean | void): void {
    if (end === undefined) {
      const ki = this.tree.get(bytesToLatin1(key))
      const at = ki?.get(atRev)
      if (ki !== undefined && at !== undefined) fn(at, ki)
      return
    }
    const stop = end === FROM_KEY ? undefined : bytesToLatin1(end)
    this.tree.forEachRange(bytesToLatin1(key), stop, (_k, ki) => {
      const at = ki.get(atRev)
      if (at === undefined) return true
      return fn(at, ki)
    })
  }

  /** All keys live at atRev in the range (see visitAt). */
  range(key: Uint8Array, end: RangeEnd, atRev: number, limit = 0): IndexedKey[] {
    const out: IndexedKey[] = []
    this.visitAt(key, end, atRev, (at, ki) => {
      out.push({ key: ki.key, modified: at.modified, created: at.created, version: at.version })
      return limit <= 0 || out.length < limit
    })
    return out
  }

  /** Number of keys live at atRev in the range. */
  count(key: Uint8Array, end: RangeEnd, atRev: number): number {
    let n = 0
    this.visitAt(key, end, atRev, () => {
      n++
    })
    return n
  }

  /** Revisions since `rev` of every key in the range, sorted (etcd's RangeSince). */
  rangeSince(key: Uint8Array, end: RangeEnd, rev: number): Revision[] {
    if (end === undefined) return this.tree.get(bytesToLatin1(key))?.since(rev) ?? []
    const stop = end === FROM_KEY ? undefined : bytesToLatin1(end)
    const out: Revision[] = []
    this.tree.forEachRange(bytesToLatin1(key), stop, (_k, ki) => {
      out.push(...ki.since(rev))
    })
    return out.sort((a, b) => (a.main !== b.main ? a.main - b.main : a.sub - b.sub))
  }

  /** A snapshot of every KeyIndex, in key order (for chunked compaction). */
  snapshot(): KeyIndex[] {
    const out: KeyIndex[] = []
    for (const [, ki] of this.tree.entries()) out.push(ki)
    return out
  }

  /** Compact one KeyIndex, removing it from the tree when it becomes empty. */
  compactKey(ki: KeyIndex, atRev: number, available: Set<string>): void {
    if (ki.isEmpty()) return
    ki.compact(atRev, available)
    if (ki.isEmpty() && this.tree.get(ki.k) === ki) this.tree.delete(ki.k)
  }

  /** Compact every key at once (tests and small stores; the store itself compacts in chunks). */
  compact(atRev: number): Set<string> {
    const available = new Set<string>()
    for (const ki of this.snapshot()) this.compactKey(ki, atRev, available)
    return available
  }

  /** Revisions that compaction at atRev would keep (etcd's Keep). */
  keep(atRev: number): Set<string> {
    const available = new Set<string>()
    for (const [, ki] of this.tree.entries()) ki.keep(atRev, available)
    return available
  }

  /** Every KeyIndex in key order (tests and verification). */
  entries(): IterableIterator<[string, KeyIndex]> {
    return this.tree.entries()
  }
}
