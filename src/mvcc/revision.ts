// Mirrors etcd mvcc/revision.go: a revision is (main, sub), stored as 17 big-endian bytes "main_sub",
// plus a trailing 't' for a tombstone, so byte order is revision order and any span is one scan.

/** A revision: `main` is bumped once per write txn that changes something, `sub` numbers its changes. */
export interface Revision {
  readonly main: number
  readonly sub: number
}

export const REV_BYTES_LEN = 17
export const MARKED_REV_BYTES_LEN = 18
const TOMBSTONE_MARK = 0x74 // 't'
const SEP = 0x5f // '_'
const TWO32 = 0x1_0000_0000

/** Negative when a < b, zero when equal, positive when a > b. */
export function compareRev(a: Revision, b: Revision): number {
  return a.main !== b.main ? a.main - b.main : a.sub - b.sub
}

function writeU64(out: Uint8Array, off: number, n: number): void {
  const hi = Math.floor(n / TWO32)
  const lo = n >>> 0
  out[off] = hi >>> 24
  out[off + 1] = (hi >>> 16) & 0xff
  out[off + 2] = (hi >>> 8) & 0xff
  out[off + 3] = hi & 0xff
  out[off + 4] = lo >>> 24
  out[off + 5] = (lo >>> 16) & 0xff
  out[off + 6] = (lo >>> 8) & 0xff
  out[off + 7] = lo & 0xff
}

function readU64(b: Uint8Array, off: number): number {
  const hi = ((b[off] as number) * 0x1000000) + (((b[off + 1] as number) << 16) | ((b[off + 2] as number) << 8) | (b[off + 3] as number))
  const lo = ((b[off + 4] as number) * 0x1000000) + (((b[off + 5] as number) << 16) | ((b[off + 6] as number) << 8) | (b[off + 7] as number))
  // Below 2^31 return an int32 so V8 keeps it a small integer: a double stored in a Revision makes every
  // Revision's fields boxed heap numbers (16 bytes each, in a key index of millions of revisions).
  if (hi === 0 && lo <= 0x7fffffff) return lo | 0
  return hi * TWO32 + lo
}

/** The 17-byte key of a revision, or the 18-byte tombstone key when `tombstone` is set. */
export function revToBytes(rev: Revision, tombstone = false): Uint8Array {
  const out = new Uint8Array(tombstone ? MARKED_REV_BYTES_LEN : REV_BYTES_LEN)
  writeU64(out, 0, rev.main)
  out[8] = SEP
  writeU64(out, 9, rev.sub)
  if (tombstone) out[17] = TOMBSTONE_MARK
  return out
}

/** Decode the revision in the first 17 bytes of a key. */
export function bytesToRev(b: Uint8Array): Revision {
  return { main: readU64(b, 0), sub: readU64(b, 9) }
}

/** True for an 18-byte key ending in the tombstone mark. */
export function isTombstone(b: Uint8Array): boolean {
  return b.length === MARKED_REV_BYTES_LEN && b[17] === TOMBSTONE_MARK
}

/** True for a well-formed 17- or 18-byte revision key. */
export function isRevKey(b: Uint8Array): boolean {
  return (b.length === REV_BYTES_LEN || isTombstone(b)) && b[8] === SEP
}
