// bbolt's meta page (go.etcd.io/bbolt db.go meta): pages 0 and 1 each hold one, and the valid one with the
// higher transaction id is the database's current state. After the page header:
//   magic u32, version u32, pageSize u32, flags u32, root bucket { root pgid u64, sequence u64 },
//   freelist pgid u64, pgid u64 (high-water mark: pages in use), txid u64, checksum u64
// The checksum is FNV-64a over the fields before it.
import { BoltError, META_PAGE_FLAG, PAGE_HEADER_SIZE, readPageHeader, readU64, writePageHeader } from './page.js'

export const MAGIC = 0xed0cdaed
export const VERSION = 2
const META_SIZE = 64
const CHECKSUM_OFFSET = 56

export interface Meta {
  readonly pageSize: number
  readonly flags: number
  /** The root bucket's page (the tree of top-level bucket names). */
  readonly root: number
  readonly rootSequence: bigint
  /** The freelist's page; -1 when the freelist is not stored (bbolt's NoFreelistSync). */
  readonly freelist: number
  /** Pages in use: the file holds pages [0, pgid). */
  readonly pgid: number
  readonly txid: bigint
}

/** bbolt's pgidNoFreelist. */
const NO_FREELIST = 0xffffffffffffffffn

const FNV_OFFSET = 0xcbf29ce484222325n
const FNV_PRIME = 0x100000001b3n
const U64 = (1n << 64n) - 1n

/** FNV-1a, 64-bit (Go's hash/fnv New64a). */
export function fnv64a(b: Uint8Array): bigint {
  let h = FNV_OFFSET
  for (const c of b) h = ((h ^ BigInt(c)) * FNV_PRIME) & U64
  return h
}

/** One meta page of `pageSize` bytes with page id `id`. */
export function encodeMeta(id: number, m: Meta, pageSize: number): Buffer {
  const b = Buffer.alloc(pageSize)
  writePageHeader(b, 0, { id, flags: META_PAGE_FLAG, count: 0, overflow: 0 })
  const o = PAGE_HEADER_SIZE
  b.writeUInt32LE(MAGIC, o)
  b.writeUInt32LE(VERSION, o + 4)
  b.writeUInt32LE(m.pageSize, o + 8)
  b.writeUInt32LE(m.flags, o + 12)
  b.writeBigUInt64LE(BigInt(m.root), o + 16)
  b.writeBigUInt64LE(m.rootSequence, o + 24)
  b.writeBigUInt64LE(m.freelist < 0 ? NO_FREELIST : BigInt(m.freelist), o + 32)
  b.writeBigUInt64LE(BigInt(m.pgid), o + 40)
  b.writeBigUInt64LE(m.txid, o + 48)
  b.writeBigUInt64LE(fnv64a(b.subarray(o, o + CHECKSUM_OFFSET)), o + CHECKSUM_OFFSET)
  return b
}

/**
 * Decode the meta page at the start of `b`; throws BoltError naming what is wrong (not bbolt, another
 * version, a checksum mismatch) as bbolt's meta.validate does.
 */
export function decodeMeta(b: Buffer): Meta {
  if (b.length < PAGE_HEADER_SIZE + META_SIZE) throw new BoltError('bbolt: file too small for a meta page')
  const h = readPageHeader(b)
  const o = PAGE_HEADER_SIZE
  if (b.readUInt32LE(o) !== MAGIC) throw new BoltError('bbolt: invalid database (no bbolt magic)')
  if (b.readUInt32LE(o + 4) !== VERSION) throw new BoltError('bbolt: version mismatch')
  if ((h.flags & META_PAGE_FLAG) === 0) throw new BoltError(`bbolt: page ${h.id} is not a meta page`)
  const sum = b.readBigUInt64LE(o + CHECKSUM_OFFSET)
  if (sum !== 0n && sum !== fnv64a(b.subarray(o, o + CHECKSUM_OFFSET))) throw new BoltError('bbolt: meta checksum error')
  return {
    pageSize: b.readUInt32LE(o + 8),
    flags: b.readUInt32LE(o + 12),
    root: readU64(b, o + 16, 'root page id'),
    rootSequence: b.readBigUInt64LE(o + 24),
    freelist: b.readBigUInt64LE(o + 32) === NO_FREELIST ? -1 : readU64(b, o + 32, 'freelist page id'),
    pgid: readU64(b, o + 40, 'high-water mark'),
    txid: b.readBigUInt64LE(o + 48),
  }
}
