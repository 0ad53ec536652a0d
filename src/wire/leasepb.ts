// The stored form of a lease: an encoded leasepb.Lease {ID = 1, TTL = 2, RemainingTTL = 3}, under an
// 8-byte big-endian ID key in the `lease` bucket, as etcd stores it in bbolt. Hand-written for speed (every
// grant and revoke writes one, every start reads them all); it must stay byte-identical to what etcd's
// gogoproto Marshal stores, as protobufjs also writes it (proto3 zero values left out).
import { bigVarintSize, Reader, WIRE_VARINT, writeBigVarint } from './protobuf.js'

export interface LeaseRecord {
  readonly id: bigint
  readonly ttl: number
  readonly remainingTtl: number
}

/** The bucket key of a lease: its ID as a signed 64-bit big-endian integer (etcd's int64ToBytes). */
export function leaseIdKey(id: bigint): Uint8Array {
  const b = Buffer.alloc(8)
  b.writeBigInt64BE(id)
  return b
}

export function encodeLease(r: LeaseRecord): Uint8Array {
  const id = BigInt.asIntN(64, r.id)
  const ttl = BigInt(r.ttl)
  const rem = BigInt(r.remainingTtl)
  let size = 0
  if (id !== 0n) size += 1 + bigVarintSize(id)
  if (ttl !== 0n) size += 1 + bigVarintSize(ttl)
  if (rem !== 0n) size += 1 + bigVarintSize(rem)
  const out = new Uint8Array(size)
  let pos = 0
  if (id !== 0n) {
    out[pos++] = (1 << 3) | WIRE_VARINT
    pos = writeBigVarint(out, pos, id)
  }
  if (ttl !== 0n) {
    out[pos++] = (2 << 3) | WIRE_VARINT
    pos = writeBigVarint(out, pos, ttl)
  }
  if (rem !== 0n) {
    out[pos++] = (3 << 3) | WIRE_VARINT
    writeBigVarint(out, pos, rem)
  }
  return out
}

/** Decode a stored lease; malformed bytes throw WireError. */
export function decodeLease(buf: Uint8Array): LeaseRecord {
  const r = new Reader(buf)
  let id = 0n
  let ttl = 0
  let remainingTtl = 0
  while (!r.done) {
    const tag = r.varint()
    const field = Math.floor(tag / 8)
    const wire = tag & 7
    if (wire === WIRE_VARINT && field === 1) id = r.bigVarint()
    else if (wire === WIRE_VARINT && field === 2) ttl = Number(r.bigVarint())
    else if (wire === WIRE_VARINT && field === 3) remainingTtl = Number(r.bigVarint())
    else r.skip(wire)
  }
  return { id, ttl, remainingTtl }
}
