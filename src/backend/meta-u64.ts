// 8-byte big-endian unsigned integers, the form of etcdlite's meta counters and IDs (member, cluster, term).

/** Decode a stored u64; undefined when absent or not 8 bytes. */
export function readU64(b: Uint8Array | undefined): bigint | undefined {
  return b === undefined || b.length !== 8 ? undefined : Buffer.from(b).readBigUInt64BE(0)
}

/** Encode a u64 (0 <= n < 2^64). */
export function u64(n: bigint): Uint8Array {
  const b = Buffer.alloc(8)
  b.writeBigUInt64BE(n)
  return b
}
