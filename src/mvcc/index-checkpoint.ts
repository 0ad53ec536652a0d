// The key index written out at a clean close, so the next open reads a few large records instead of every
// revision of the log (etcdlite's own; etcd rebuilds its index from bbolt on every start).
//
// Rebuilding the index from the revision log costs about 10 µs per stored revision, most of it LevelDB's
// iterator handing each entry to JavaScript; 1M keys took ~10 s. The checkpoint is the index itself, encoded
// compactly in ~1 MiB chunks, in the `meta` bucket. It is trusted only when it describes exactly the log
// it lies beside:
// - it is written by KvStore.close() as the last write before the database closes, and deleted (durably)
//   by the open that reads it, before the store takes any write. A crash, a kill or a failed write leaves no
//   checkpoint behind a newer log, so such a start rebuilds from the log as before;
// - the header records the current and compacted revisions and the meta compaction markers, and the open
//   checks them against the store, and that no revision past the current one is in the log;
// - every chunk carries a CRC-32; any mismatch, a missing chunk or an unknown format version means a full
//   rebuild from the log (never an error: the log is the source of truth).
import { crc32 } from 'node:zlib'
import type { Backend } from '../backend/backend.js'
import { latin1Range } from '../pkg/bytes.js'
import { Reader, varintSize, writeBigVarint, writeVarint } from '../pkg/proto-wire.js'
import { KeyIndex, type Generation } from './key-index.js'
import type { Revision } from './revision.js'

const FORMAT = 1
const CHUNK_BYTES = 1 << 20
const HEADER_KEY = Buffer.from('etcdliteIndexCheckpoint', 'latin1')
const CHUNK_PREFIX = 'etcdliteIndexCheckpoint/'

/** What the checkpoint claims about the store it was taken from. */
export interface CheckpointState {
  /** The store's current revision at close. */
  readonly rev: number
  /** The compacted revision in force at close. */
  readonly compactRev: number
  /** The raw meta compaction markers at close (hex, '' when absent): the open compares them byte for byte. */
  readonly scheduled: string
  readonly finished: string
}

interface Header extends CheckpointState {
  readonly format: number
  readonly keys: number
  readonly crcs: readonly number[]
}

/** A loaded checkpoint: the revision it was taken at, the index entries by latin1 key, and each live key's lease (only leased keys). */
export interface LoadedCheckpoint {
  readonly rev: number
  readonly byKey: Map<string, KeyIndex>
  readonly leases: Map<string, bigint>
}

const chunkKey = (i: number): Uint8Array => Buffer.from(`${CHUNK_PREFIX}${String(i).padStart(8, '0')}`, 'latin1')

const hexOf = (b: Uint8Array | undefined): string => (b === undefined ? '' : Buffer.from(b).toString('hex'))

/** The meta markers as the header stores them. */
export function compactionMarkers(backend: Backend, scheduledKey: Uint8Array, finishedKey: Uint8Array): { scheduled: string; finished: string } {
  return { scheduled: hexOf(backend.get('meta', scheduledKey)), finished: hexOf(backend.get('meta', finishedKey)) }
}

/** Encoded bytes of one index entry (see writeEntry). */
function entrySize(ki: KeyIndex, lease: bigint): number {
  let n = varintSize(ki.k.length) + ki.k.length + 1 + (lease === 0n ? 0 : 10)
  n += varintSize(ki.modified.main) + varintSize(ki.modified.sub) + varintSize(ki.generations.length)
  for (const g of ki.generations) {
    n += varintSize(g.ver) + varintSize(g.created.main) + varintSize(g.created.sub) + varintSize(g.revs.length)
    for (const r of g.revs) n += varintSize(r.main) + varintSize(r.sub)
  }
  return n
}

/** key, lease flag (+ lease), modified, generations: ver, created, revisions. */
function writeEntry(out: Buffer, pos: number, ki: KeyIndex, lease: bigint): number {
  pos = writeVarint(out, pos, ki.k.length)
  pos += out.write(ki.k, pos, 'latin1')
  out[pos++] = lease === 0n ? 0 : 1
  if (lease !== 0n) pos = writeBigVarint(out, pos, lease)
  pos = writeVarint(out, pos, ki.modified.main)
  pos = writeVarint(out, pos, ki.modified.sub)
  pos = writeVarint(out, pos, ki.generations.length)
  for (const g of ki.generations) {
    pos = writeVarint(out, pos, g.ver)
    pos = writeVarint(out, pos, g.created.main)
    pos = writeVarint(out, pos, g.created.sub)
    pos = writeVarint(out, pos, g.revs.length)
    for (const r of g.revs) {
      pos = writeVarint(out, pos, r.main)
      pos = writeVarint(out, pos, r.sub)
    }
  }
  return pos
}

/**
 * Buffer the checkpoint of `entries` (every KeyIndex, any order) into `backend`'s meta bucket; the caller
 * commits. `leaseOf` gives a live key's lease (0n for none).
 */
export function writeCheckpoint(backend: Backend, state: CheckpointState, entries: Iterable<KeyIndex>, leaseOf: (ki: KeyIndex) => bigint): void {
  const crcs: number[] = []
  let keys = 0
  let buf = Buffer.allocUnsafe(CHUNK_BYTES)
  let pos = 0
  const flush = (): void => {
    const chunk = buf.subarray(0, pos)
    crcs.push(crc32(chunk))
    backend.put('meta', chunkKey(crcs.length - 1), chunk)
    buf = Buffer.allocUnsafe(CHUNK_BYTES)
    pos = 0
  }
  for (const ki of entries) {
    if (ki.isEmpty()) continue
    const lease = ki.generations[ki.generations.length - 1]?.revs.length === 0 ? 0n : leaseOf(ki)
    const size = entrySize(ki, lease)
    if (pos + size > buf.length && pos > 0) flush()
    if (size > buf.length) buf = Buffer.allocUnsafe(size)
    pos = writeEntry(buf, pos, ki, lease)
    keys++
  }
  if (pos > 0) flush()
  const header: Header = { format: FORMAT, ...state, keys, crcs }
  backend.put('meta', HEADER_KEY, Buffer.from(JSON.stringify(header), 'utf8'))
}

function parseHeader(raw: Uint8Array | undefined): Header | undefined {
  if (raw === undefined) return undefined
  try {
    const h = JSON.parse(Buffer.from(raw).toString('utf8')) as Partial<Header>
    if (h.format !== FORMAT || !Array.isArray(h.crcs) || typeof h.rev !== 'number' || typeof h.compactRev !== 'number') return undefined
    if (typeof h.keys !== 'number' || typeof h.scheduled !== 'string' || typeof h.finished !== 'string') return undefined
    return h as Header
  } catch {
    return undefined
  }
}

/** Decode one chunk's entries into `byKey` / `leases`. Throws on malformed bytes. */
function readChunk(b: Uint8Array, byKey: Map<string, KeyIndex>, leases: Map<string, bigint>): number {
  const r = new Reader(b)
  let n = 0
  while (!r.done) {
    const klen = r.varint()
    if (r.pos + klen > b.length) throw new Error('index checkpoint: truncated key')
    const k = latin1Range(b, r.pos, r.pos + klen)
    r.pos += klen
    if (r.pos >= b.length) throw new Error('index checkpoint: truncated entry')
    const hasLease = b[r.pos++]
    if (hasLease === 1) leases.set(k, r.bigVarint())
    else if (hasLease !== 0) throw new Error('index checkpoint: bad lease flag')
    const modified: Revision = { main: r.varint(), sub: r.varint() }
    const ng = r.varint()
    const generations: Generation[] = new Array<Generation>(ng)
    let last: Revision | undefined
    for (let gi = 0; gi < ng; gi++) {
      const ver = r.varint()
      const created: Revision = { main: r.varint(), sub: r.varint() }
      const nr = r.varint()
      const revs: Revision[] = new Array<Revision>(nr)
      for (let i = 0; i < nr; i++) {
        const main = r.varint()
        const sub = r.varint()
        // Share the created revision's object when it is the generation's first revision.
        revs[i] = i === 0 && main === created.main && sub === created.sub ? created : { main, sub }
      }
      if (nr > 0) last = revs[nr - 1]
      generations[gi] = { ver, created, revs }
    }
    const ki = new KeyIndex(k)
    ki.generations = generations
    ki.modified = last !== undefined && last.main === modified.main && last.sub === modified.sub ? last : modified
    if (ki.isEmpty() || byKey.has(k)) throw new Error('index checkpoint: empty or repeated key')
    byKey.set(k, ki)
    n++
  }
  return n
}

/**
 * Read the checkpoint if there is one and it matches `found` (the compaction state as found on open; the
 * caller checks the log against the returned revision). Undefined when there is none, it describes another
 * state, or any of it fails its checks.
 */
export function readCheckpoint(backend: Backend, found: Omit<CheckpointState, 'rev'>): LoadedCheckpoint | undefined {
  const h = parseHeader(backend.get('meta', HEADER_KEY))
  if (h === undefined) return undefined
  if (h.compactRev !== found.compactRev || h.scheduled !== found.scheduled || h.finished !== found.finished) return undefined
  const byKey = new Map<string, KeyIndex>()
  const leases = new Map<string, bigint>()
  try {
    let keys = 0
    for (const [i, crc] of h.crcs.entries()) {
      const chunk = backend.get('meta', chunkKey(i))
      if (chunk === undefined || crc32(chunk) !== crc) return undefined
      keys += readChunk(chunk, byKey, leases)
    }
    if (keys !== h.keys) return undefined
  } catch {
    return undefined
  }
  return { rev: h.rev, byKey, leases }
}

/** Buffer the deletion of any checkpoint (header and chunks); the caller commits. Returns whether there was one. */
export function dropCheckpoint(backend: Backend): boolean {
  const raw = backend.get('meta', HEADER_KEY)
  if (raw === undefined) return false
  const h = parseHeader(raw)
  backend.del('meta', HEADER_KEY)
  // A header we cannot read still had chunks: delete every chunk key that exists, counting up.
  const n = h?.crcs.length ?? 0
  for (let i = 0; ; i++) {
    if (i >= n && backend.get('meta', chunkKey(i)) === undefined) break
    backend.del('meta', chunkKey(i))
  }
  return true
}
