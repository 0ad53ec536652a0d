// mvccpb.KeyValue on the wire: the value of every revision in the store (as in etcd's bbolt `key` bucket)
// and of every kv in a response, byte-compatible with etcd's (proto3 zero values omitted, as Go writes them).
// Hand-written for speed, as it is on the path of every read and write; it must stay byte-identical to
// protobufjs/grpc-js output.
import { latin1Range } from '../pkg/bytes.js'
import {
  bigVarintSize, lenFieldSize, Reader, varintSize, WIRE_LEN, WIRE_VARINT, WireError, writeBigVarint, writeBytesField, writeVarintField,
} from './protobuf.js'

/** The fields of mvccpb.KeyValue (structurally the mvcc KeyValue). */
export interface WireKeyValue {
  readonly key: Uint8Array
  readonly createRevision: number
  readonly modRevision: number
  readonly version: number
  readonly value: Uint8Array
  readonly lease: bigint
}
type KeyValue = WireKeyValue

const EMPTY: Uint8Array = new Uint8Array(0)

/** Encoded size of a KeyValue. */
export function keyValueSize(kv: KeyValue): number {
  let size = 0
  if (kv.key.length) size += lenFieldSize(kv.key.length)
  if (kv.createRevision) size += 1 + varintSize(kv.createRevision)
  if (kv.modRevision) size += 1 + varintSize(kv.modRevision)
  if (kv.version) size += 1 + varintSize(kv.version)
  if (kv.value.length) size += lenFieldSize(kv.value.length)
  if (kv.lease) size += 1 + bigVarintSize(kv.lease)
  return size
}

/** Write a KeyValue (fields 1..6) at `pos`; returns the new position. */
export function writeKeyValue(out: Uint8Array, pos: number, kv: KeyValue): number {
  if (kv.key.length) pos = writeBytesField(out, pos, 1, kv.key)
  if (kv.createRevision) pos = writeVarintField(out, pos, 2, kv.createRevision)
  if (kv.modRevision) pos = writeVarintField(out, pos, 3, kv.modRevision)
  if (kv.version) pos = writeVarintField(out, pos, 4, kv.version)
  if (kv.value.length) pos = writeBytesField(out, pos, 5, kv.value)
  if (kv.lease) {
    out[pos++] = (6 << 3) | WIRE_VARINT
    pos = writeBigVarint(out, pos, kv.lease)
  }
  return pos
}

export function encodeKeyValue(kv: KeyValue): Uint8Array {
  const out = new Uint8Array(keyValueSize(kv))
  writeKeyValue(out, 0, kv)
  return out
}

/** Decode a KeyValue. Throws on malformed bytes. Key and value are views into `b`. */
export function decodeKeyValue(b: Uint8Array): KeyValue {
  let key = EMPTY
  let value = EMPTY
  let createRevision = 0
  let modRevision = 0
  let version = 0
  let lease = 0n
  const r = new Reader(b)
  while (!r.done) {
    const tag = r.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (field === 1 && wt === WIRE_LEN) key = r.bytes()
    else if (field === 2 && wt === WIRE_VARINT) createRevision = r.varint()
    else if (field === 3 && wt === WIRE_VARINT) modRevision = r.varint()
    else if (field === 4 && wt === WIRE_VARINT) version = r.varint()
    else if (field === 5 && wt === WIRE_LEN) value = r.bytes()
    else if (field === 6 && wt === WIRE_VARINT) lease = r.bigVarint()
    else r.skip(wt)
  }
  return { key, createRevision, modRevision, version, value, lease }
}

/** The fields of a stored KeyValue that rebuilding the key index needs; the key as a latin1 string. */
export interface IndexFields {
  readonly key: string
  readonly createRevision: number
  readonly version: number
  readonly lease: bigint
}

/**
 * Decode only the key (as latin1, see pkg/bytes.ts), create revision, version and lease of a KeyValue: the
 * restore path reads every stored revision once and needs neither the value nor byte views.
 */
export function decodeIndexFields(b: Uint8Array): IndexFields {
  let key = ''
  let createRevision = 0
  let version = 0
  let lease = 0n
  const r = new Reader(b)
  while (!r.done) {
    const tag = r.varint()
    const field = tag >>> 3
    const wt = tag & 7
    if (field === 1 && wt === WIRE_LEN) {
      const n = r.varint()
      if (r.pos + n > b.length) throw new WireError('truncated bytes')
      key = latin1Range(b, r.pos, r.pos + n)
      r.pos += n
    } else if (field === 2 && wt === WIRE_VARINT) createRevision = r.varint()
    else if (field === 4 && wt === WIRE_VARINT) version = r.varint()
    else if (field === 6 && wt === WIRE_VARINT) lease = r.bigVarint()
    else r.skip(wt)
  }
  return { key, createRevision, version, lease }
}
