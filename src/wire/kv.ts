// etcdserverpb.RangeRequest, PutRequest, RangeResponse and PutResponse on the wire: requests decode straight
// into domain requests, responses encode straight from domain responses. Hand-written for speed, as these
// are the hottest KV messages (the other KV messages go through proto-loader and grpc/convert-kv.ts); they
// must stay byte-identical to protobufjs/grpc-js output, which a unit test checks in both directions.
import type {
  PutRequest, PutResponse, RangeRequest, RangeResponse, SortOrder, SortTarget,
} from '../etcdserver/types/kv.js'
import { SORT_ORDERS, SORT_TARGETS } from './enums.js'
import { keyValueSize, writeKeyValue } from './keyvalue.js'
import { lenFieldSize, Reader, varintSize, WIRE_LEN, WIRE_VARINT, writeVarint, writeVarintField } from './protobuf.js'
import { headerSize, writeHeader } from './response-header.js'

const EMPTY: Uint8Array = new Uint8Array(0)
const FROM_KEY_END: Uint8Array = Uint8Array.of(0)

interface MutableRange {
  key: Uint8Array
  rangeEnd: Uint8Array
  limit: number
  revision: number
  sortOrder: SortOrder
  sortTarget: SortTarget
  serializable: boolean
  keysOnly: boolean
  countOnly: boolean
  minModRevision: number
  maxModRevision: number
  minCreateRevision: number
  maxCreateRevision: number
}

/**
 * Decode an etcdserverpb.RangeRequest; unknown fields are skipped, unknown enum values read as defaults.
 * A range_end sent empty becomes `sentEmptyEnd` (by default "\0": see below).
 */
export function decodeRangeRequest(buf: Uint8Array, sentEmptyEnd: Uint8Array = FROM_KEY_END): RangeRequest {
  const r: MutableRange = {
    key: EMPTY, rangeEnd: EMPTY, limit: 0, revision: 0, sortOrder: 'NONE', sortTarget: 'KEY', serializable: false,
    keysOnly: false, countOnly: false, minModRevision: 0, maxModRevision: 0, minCreateRevision: 0, maxCreateRevision: 0,
  }
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (wt === WIRE_LEN && field === 1) r.key = rd.bytes()
    else if (wt === WIRE_LEN && field === 2) {
      const end = rd.bytes()
      // etcd (gogoproto) tells a range_end sent empty from one not sent, and reads the former as "to the
      // end of the keyspace", exactly like "\0".
      r.rangeEnd = end.length === 0 ? sentEmptyEnd : end
    }
    else if (wt !== WIRE_VARINT) rd.skip(wt)
    else {
      switch (field) {
        case 3: r.limit = rd.varint(); break
        case 4: r.revision = rd.varint(); break
        case 5: r.sortOrder = SORT_ORDERS[rd.varint()] ?? 'NONE'; break
        case 6: r.sortTarget = SORT_TARGETS[rd.varint()] ?? 'KEY'; break
        case 7: r.serializable = rd.bool(); break
        case 8: r.keysOnly = rd.bool(); break
        case 9: r.countOnly = rd.bool(); break
        case 10: r.minModRevision = rd.varint(); break
        case 11: r.maxModRevision = rd.varint(); break
        case 12: r.minCreateRevision = rd.varint(); break
        case 13: r.maxCreateRevision = rd.varint(); break
        default: rd.skip(wt)
      }
    }
  }
  return r
}

/** Decode an etcdserverpb.PutRequest. */
export function decodePutRequest(buf: Uint8Array): PutRequest {
  let key = EMPTY
  let value = EMPTY
  let lease = 0n
  let prevKv = false
  let ignoreValue = false
  let ignoreLease = false
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (wt === WIRE_LEN && field === 1) key = rd.bytes()
    else if (wt === WIRE_LEN && field === 2) value = rd.bytes()
    else if (wt === WIRE_VARINT && field === 3) lease = rd.bigVarint()
    else if (wt === WIRE_VARINT && field === 4) prevKv = rd.bool()
    else if (wt === WIRE_VARINT && field === 5) ignoreValue = rd.bool()
    else if (wt === WIRE_VARINT && field === 6) ignoreLease = rd.bool()
    else rd.skip(wt)
  }
  return { key, value, lease, prevKv, ignoreValue, ignoreLease }
}

/** Encode an etcdserverpb.RangeResponse. */
export function encodeRangeResponse(r: RangeResponse): Buffer {
  const hs = headerSize(r.header)
  let size = lenFieldSize(hs)
  const kvSizes = r.kvs.map(keyValueSize)
  for (const s of kvSizes) size += lenFieldSize(s)
  if (r.more) size += 2
  if (r.count) size += 1 + varintSize(r.count)
  const out = Buffer.allocUnsafe(size)
  let pos = writeHeader(out, 0, r.header, hs)
  for (let i = 0; i < r.kvs.length; i++) {
    out[pos++] = (2 << 3) | WIRE_LEN
    pos = writeVarint(out, pos, kvSizes[i] as number)
    pos = writeKeyValue(out, pos, r.kvs[i] as RangeResponse['kvs'][number])
  }
  if (r.more) pos = writeVarintField(out, pos, 3, 1)
  if (r.count) writeVarintField(out, pos, 4, r.count)
  return out
}

/** Encode an etcdserverpb.PutResponse. */
export function encodePutResponse(r: PutResponse): Buffer {
  const hs = headerSize(r.header)
  const kvSize = r.prevKv === undefined ? -1 : keyValueSize(r.prevKv)
  const out = Buffer.allocUnsafe(lenFieldSize(hs) + (kvSize < 0 ? 0 : lenFieldSize(kvSize)))
  let pos = writeHeader(out, 0, r.header, hs)
  if (r.prevKv !== undefined) {
    out[pos++] = (2 << 3) | WIRE_LEN
    pos = writeVarint(out, pos, kvSize)
    writeKeyValue(out, pos, r.prevKv)
  }
  return out
}
