// The stored value of a revision: protobuf mvccpb.KeyValue, byte-compatible with etcd's bbolt values.
// Hand-written because it sits on the hot path of every read and write.
import type { KeyValue } from './kv.js'

const EMPTY: Uint8Array = new Uint8Array(0)

function varintLen(n: number): number {
  let len = 1
  while (n >= 0x80) {
    n = Math.floor(n / 128)
    len++
  }
  return len
}

function bigVarintLen(n: bigint): number {
  let v = BigInt.asUintN(64, n)
  let len = 1
  while (v >= 0x80n) {
    v >>= 7n
    len++
  }
  return len
}

function writeVarint(out: Uint8Array, pos: number, n: number): number {
  while (n >= 0x80) {
    out[pos++] = (n % 128) | 0x80
    n = Math.floor(n / 128)
  }
  out[pos++] = n
  return pos
}

function writeBigVarint(out: Uint8Array, pos: number, n: bigint): number {
  let v = BigInt.asUintN(64, n)
  while (v >= 0x80n) {
    out[pos++] = Number(v & 0x7fn) | 0x80
    v >>= 7n
  }
  out[pos++] = Number(v)
  return pos
}

/** Encode a KeyValue as protobuf (fields 1..6, zero values omitted as proto3 does). */
export function encodeKeyValue(kv: KeyValue): Uint8Array {
  let size = 0
  if (kv.key.length) size += 1 + varintLen(kv.key.length) + kv.key.length
  if (kv.createRevision) size += 1 + varintLen(kv.createRevision)
  if (kv.modRevision) size += 1 + varintLen(kv.modRevision)
  if (kv.version) size += 1 + varintLen(kv.version)
  if (kv.value.length) size += 1 + varintLen(kv.value.length) + kv.value.length
  if (kv.lease) size += 1 + bigVarintLen(kv.lease)
  const out = new Uint8Array(size)
  let p = 0
  if (kv.key.length) {
    out[p++] = 0x0a
    p = writeVarint(out, p, kv.key.length)
    out.set(kv.key, p)
    p += kv.key.length
  }
  if (kv.createRevision) {
    out[p++] = 0x10
    p = writeVarint(out, p, kv.createRevision)
  }
  if (kv.modRevision) {
    out[p++] = 0x18
    p = writeVarint(out, p, kv.modRevision)
  }
  if (kv.version) {
    out[p++] = 0x20
    p = writeVarint(out, p, kv.version)
  }
  if (kv.value.length) {
    out[p++] = 0x2a
    p = writeVarint(out, p, kv.value.length)
    out.set(kv.value, p)
    p += kv.value.length
  }
  if (kv.lease) {
    out[p++] = 0x30
    p = writeBigVarint(out, p, kv.lease)
  }
  return out
}

/** Decode a stored KeyValue. Throws on malformed bytes (a corrupt store is a bug, never user input). */
export function decodeKeyValue(b: Uint8Array): KeyValue {
  let key = EMPTY
  let value = EMPTY
  let createRevision = 0
  let modRevision = 0
  let version = 0
  let lease = 0n
  let p = 0
  const readVarint = (): number => {
    let n = 0
    let mul = 1
    for (;;) {
      if (p >= b.length) throw new Error('mvcc: truncated KeyValue')
      const c = b[p++] as number
      n += (c & 0x7f) * mul
      if (c < 0x80) return n
      mul *= 128
    }
  }
  const readBigVarint = (): bigint => {
    let n = 0n
    let shift = 0n
    for (;;) {
      if (p >= b.length) throw new Error('mvcc: truncated KeyValue')
      const c = b[p++] as number
      n |= BigInt(c & 0x7f) << shift
      if (c < 0x80) return BigInt.asIntN(64, n)
      shift += 7n
    }
  }
  while (p < b.length) {
    const tag = b[p++] as number
    switch (tag) {
      case 0x0a: {
        const len = readVarint()
        key = b.subarray(p, p + len)
        p += len
        break
      }
      case 0x10:
        createRevision = readVarint()
        break
      case 0x18:
        modRevision = readVarint()
        break
      case 0x20:
        version = readVarint()
        break
      case 0x2a: {
        const len = readVarint()
        value = b.subarray(p, p + len)
        p += len
        break
      }
      case 0x30:
        lease = readBigVarint()
        break
      default:
        throw new Error(`mvcc: unexpected KeyValue tag ${tag}`)
    }
  }
  if (p !== b.length) throw new Error('mvcc: truncated KeyValue')
  return { key, createRevision, modRevision, version, value, lease }
}
