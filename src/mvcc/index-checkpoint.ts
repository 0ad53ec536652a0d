// The key index written out beside the log, so an open reads a few large records instead of every revision
// of the log (etcdlite's own; etcd rebuilds its index from bbolt on every start).
//
// Rebuilding the index from the revision log costs about 10 µs per stored revision, most of it LevelDB's
// iterator handing each entry to JavaScript, so 1M keys take about 10 s. The checkpoint is the index itself, encoded
// compactly in ~1 MiB chunks, in the `meta` bucket. It is written by KvStore.close(), and in the background
// while the store runs (IndexCheckpointer) so that a start after a crash reads it too. What it promises:
// - every revision up to the header's `rev` is in its entries. An entry may also hold later revisions of
//   its key (the background writer encodes the index across event-loop turns while writes go on), so the
//   open replays the log past `rev` and skips, per key, what the entry already holds;
// - its chunks are in the log no later than the revisions it describes, and its header after its chunks:
//   the backend writes batches in order, so a durable header means durable chunks and revisions;
// - the header records the compacted revision and the meta compaction markers; a compaction since then
//   (which deletes revisions the entries still name) makes the open ignore it and rebuild from the log;
// - every chunk carries a CRC-32; any mismatch, a missing chunk or an unknown format version means a full
//   rebuild from the log (never an error: the log is the source of truth).
// Chunks are numbered in two slots; a new checkpoint fills the slot the one in force does not use, and its
// header replaces the old one in a single put, so a crash while writing leaves the old checkpoint intact.
import { crc32 } from 'node:zlib'
import type { Backend } from '../backend/backend.js'
import { META } from '../backend/schema.js'
import { latin1Range } from '../pkg/bytes.js'
import { Reader, varintSize, writeBigVarint, writeVarint } from '../wire/protobuf.js'
import { KeyIndex, type Generation } from './key-index.js'
import type { Revision } from './revision.js'

const FORMAT = 1
const CHUNK_BYTES = 1 << 20
const HEADER_KEY = Buffer.from('etcdliteIndexCheckpoint', 'latin1')
const CHUNK_PREFIX = 'etcdliteIndexCheckpoint/'
/** The first chunk number of each slot (chunk numbers are 8 digits; a checkpoint has far fewer chunks). */
const SLOTS = [0, 10_000_000] as const

/** What the checkpoint claims about the store it was taken from. */
export interface CheckpointState {
  /** Every revision up to this one is in the entries (the store's revision when the writer started). */
  readonly rev: number
  /** The compacted revision in force then. */
  readonly compactRev: number
  /** The raw meta compaction markers then (hex, '' when absent): the open compares them byte for byte. */
  readonly scheduled: string
  readonly finished: string
}

interface Header extends CheckpointState {
  readonly format: number
  /** The number of the first chunk (a slot's start); absent in headers written before slots: 0. */
  readonly first?: number
  readonly keys: number
  readonly crcs: readonly number[]
}

/**
 * A loaded checkpoint: the revision it covers, the index entries by latin1 key, and each live key's lease
 * as of its entry (only leased keys).
 */
export interface LoadedCheckpoint {
  readonly rev: number
  readonly byKey: Map<string, KeyIndex>
  readonly leases: Map<string, bigint>
}

const chunkKey = (i: number): Uint8Array => Buffer.from(`${CHUNK_PREFIX}${String(i).padStart(8, '0')}`, 'latin1')

/** Whether a meta key belongs to the checkpoint (a cache of the log: hashes and snapshots leave it out). */
export function isCheckpointKey(key: Uint8Array): boolean {
  return key.length >= HEADER_KEY.length && Buffer.from(key.buffer, key.byteOffset, HEADER_KEY.length).equals(HEADER_KEY)
}

const hexOf = (b: Uint8Array | undefined): string => (b === undefined ? '' : Buffer.from(b).toString('hex'))

/** The meta compaction markers as the header stores them. */
export function compactionMarkers(backend: Backend): { scheduled: string; finished: string } {
  return { scheduled: hexOf(backend.get('meta', META.scheduledCompactRev)), finished: hexOf(backend.get('meta', META.finishedCompactRev)) }
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
 * Writes one checkpoint into the slot the checkpoint in force does not use. Entries are encoded as they are
 * added and each full chunk is buffered into the backend at once; finish() buffers the header (replacing
 * the old one) and the deletion of the old slot's chunks, abandon() the deletion of what was written. The
 * caller commits.
 */
export class CheckpointWriter {
  private readonly backend: Backend
  private readonly previous: Header | undefined
  /** The first chunk number of the slot the checkpoint in force uses (undefined: none readable). */
  private readonly previousFirst: number | undefined
  private readonly first: number
  private readonly crcs: number[] = []
  private keys = 0
  private buf = Buffer.allocUnsafe(CHUNK_BYTES)
  private pos = 0
  private done = false

  constructor(backend: Backend) {
    this.backend = backend
    this.previous = parseHeader(backend.get('meta', HEADER_KEY))
    this.previousFirst = this.previous === undefined ? undefined : (this.previous.first ?? 0)
    this.first = this.previousFirst === SLOTS[0] ? SLOTS[1] : SLOTS[0]
  }

  /** Chunks buffered into the backend so far. */
  get chunks(): number {
    return this.crcs.length
  }

  /** Encode one entry (skipped when empty); `lease` is its key's lease (0n for none). */
  add(ki: KeyIndex, lease: bigint): void {
    if (ki.isEmpty()) return
    if (ki.generations[ki.generations.length - 1]?.revs.length === 0) lease = 0n
    const size = entrySize(ki, lease)
    if (this.pos + size > this.buf.length && this.pos > 0) this.flush()
    if (size > this.buf.length) this.buf = Buffer.allocUnsafe(size)
    this.pos = writeEntry(this.buf, this.pos, ki, lease)
    this.keys++
  }

  /** Buffer the last chunk and the header, then delete the previous checkpoint's chunks and any leftovers. */
  finish(state: CheckpointState): void {
    this.end()
    if (this.pos > 0) this.flush()
    const header: Header = { format: FORMAT, ...state, first: this.first, keys: this.keys, crcs: this.crcs }
    this.backend.put('meta', HEADER_KEY, Buffer.from(JSON.stringify(header), 'utf8'))
    // Leftovers in this slot: an abandoned or crashed write, or an older, larger checkpoint.
    dropChunks(this.backend, this.first + this.crcs.length, 0)
    const old = this.previousFirst ?? (this.first === SLOTS[0] ? SLOTS[1] : SLOTS[0])
    dropChunks(this.backend, old, this.previous?.crcs.length ?? 0)
  }

  /** Give up: delete the chunks buffered so far; the checkpoint in force stays. */
  abandon(): void {
    this.end()
    dropChunks(this.backend, this.first, this.crcs.length)
  }

  private end(): void {
    if (this.done) throw new Error('index checkpoint: writer already finished')
    this.done = true
  }

  private flush(): void {
    const chunk = this.buf.subarray(0, this.pos)
    this.crcs.push(crc32(chunk))
    this.backend.put('meta', chunkKey(this.first + this.crcs.length - 1), chunk)
    this.buf = Buffer.allocUnsafe(CHUNK_BYTES)
    this.pos = 0
  }
}

/** Delete chunks from number `from`: the `known` first ones, then on while one exists. */
function dropChunks(backend: Backend, from: number, known: number): void {
  for (let i = from; ; i++) {
    if (i >= from + known && backend.get('meta', chunkKey(i)) === undefined) break
    backend.del('meta', chunkKey(i))
  }
}

/**
 * Buffer the checkpoint of `entries` (every KeyIndex, any order) into `backend`'s meta bucket; the caller
 * commits. `leaseOf` gives a live key's lease (0n for none).
 */
export function writeCheckpoint(backend: Backend, state: CheckpointState, entries: Iterable<KeyIndex>, leaseOf: (ki: KeyIndex) => bigint): void {
  const w = new CheckpointWriter(backend)
  for (const ki of entries) w.add(ki, leaseOf(ki))
  w.finish(state)
}

function parseHeader(raw: Uint8Array | undefined): Header | undefined {
  if (raw === undefined) return undefined
  try {
    const h = JSON.parse(Buffer.from(raw).toString('utf8')) as Partial<Header>
    if (h.format !== FORMAT || !Array.isArray(h.crcs) || typeof h.rev !== 'number' || typeof h.compactRev !== 'number') return undefined
    if (typeof h.keys !== 'number' || typeof h.scheduled !== 'string' || typeof h.finished !== 'string') return undefined
    if (h.first !== undefined && !SLOTS.some((f) => f === h.first)) return undefined
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
      const chunk = backend.get('meta', chunkKey((h.first ?? 0) + i))
      if (chunk === undefined || crc32(chunk) !== crc) return undefined
      keys += readChunk(chunk, byKey, leases)
    }
    if (keys !== h.keys) return undefined
  } catch {
    return undefined
  }
  return { rev: h.rev, byKey, leases }
}

/** Buffer the deletion of any checkpoint (header and both slots' chunks); the caller commits. Returns whether there was one. */
export function dropCheckpoint(backend: Backend): boolean {
  const raw = backend.get('meta', HEADER_KEY)
  if (raw === undefined) return false
  const h = parseHeader(raw)
  backend.del('meta', HEADER_KEY)
  // A header we cannot read still had chunks: delete every chunk that exists in either slot, counting up.
  for (const first of SLOTS) dropChunks(backend, first, h !== undefined && (h.first ?? 0) === first ? h.crcs.length : 0)
  return true
}
