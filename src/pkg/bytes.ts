/**
 * Byte helpers shared by every layer. Keys and values are `Uint8Array`; strings made from bytes use
 * latin1, which maps each byte to one UTF-16 code unit and therefore preserves byte order under `<`.
 */

/** Lexicographic byte comparison: negative, zero or positive, like Go's bytes.Compare. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = a.length < b.length ? a.length : b.length
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number)
    if (d !== 0) return d
  }
  return a.length - b.length
}

/** True when both byte strings hold the same bytes. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The binary-safe, order-preserving string form of a byte string (one char per byte). */
export function bytesToLatin1(b: Uint8Array): string {
  return latin1Range(b, 0, b.length)
}

/** The bytes of a latin1 string made by bytesToLatin1, as a fresh plain Uint8Array. */
export function latin1ToBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length)
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i)
  return out
}

/** bytesToLatin1 of b[start, end), without copying the bytes first (and without a wrapper when b is a Buffer). */
export function latin1Range(b: Uint8Array, start: number, end: number): string {
  return (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString('latin1', start, end)
}

/**
 * The smallest key greater than every key with the given prefix, as etcd's clientv3.GetPrefixRangeEnd:
 * drop trailing 0xff bytes and increment the last byte; a prefix of only 0xff bytes (or empty) gives
 * `"\0"`, which etcd reads as "to the end of the keyspace".
 */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i] !== 0xff) {
      // A copy (Buffer's slice() is a view, and the caller's prefix must not change).
      const end = Uint8Array.prototype.slice.call(prefix, 0, i + 1)
      end[i] = (end[i] as number) + 1
      return end
    }
  }
  return Uint8Array.of(0)
}

/**
 * The end of a half-open range as the key index wants it, mirroring etcd's mkGteRange:
 * - `undefined` or empty: the request names the single key `key`;
 * - `"\0"` (one zero byte): every key greater than or equal to `key` (returned as `FROM_KEY`);
 * - anything else: keys in [key, end).
 */
export type RangeEnd = Uint8Array | typeof FROM_KEY | undefined

/** Marker for "no upper bound" (the wire form is a range_end of one zero byte). */
export const FROM_KEY: unique symbol = Symbol('etcdlite.fromKey')

/** Normalise a wire range_end into a {@link RangeEnd}. */
export function toRangeEnd(end: Uint8Array | undefined): RangeEnd {
  if (end === undefined || end.length === 0) return undefined
  if (end.length === 1 && end[0] === 0) return FROM_KEY
  return end
}

/** True when `key` falls inside the range [start, end) as described by {@link RangeEnd}. */
export function inRange(key: Uint8Array, start: Uint8Array, end: RangeEnd): boolean {
  if (end === undefined) return equalBytes(key, start)
  if (compareBytes(key, start) < 0) return false
  return end === FROM_KEY || compareBytes(key, end) < 0
}
