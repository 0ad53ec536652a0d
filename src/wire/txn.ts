// etcdserverpb.TxnRequest and TxnResponse on the wire (with the Compare, RequestOp, DeleteRangeRequest,
// ResponseOp and DeleteRangeResponse they hold): the request decodes straight into a domain request, the
// response encodes straight from the domain response. Hand-written for speed and for nesting: protobufjs
// refuses messages nested deeper than 100 levels both ways (its recursion limit), which would cut txns at
// 50 levels, refusing deeper requests as "Error deserializing request" and answering a 49-level write, once
// applied, with "Error serializing response". This codec has no such limit; a request nested deeper than any
// etcd accepts is cut where etcd's own check refuses it. It must stay byte-identical to protobufjs/grpc-js
// output on every message protobufjs can handle, which a unit test checks.
import type {
  Compare, CompareResult, CompareTarget, DeleteRangeRequest, DeleteRangeResponse, RequestOp, ResponseOp, TxnRequest,
  TxnResponse,
} from '../etcdserver/types/kv.js'
import { COMPARE_RESULTS, COMPARE_TARGETS } from './enums.js'
import { keyValueSize, writeKeyValue } from './keyvalue.js'
import { decodePutRequest, decodeRangeRequest, encodePutResponse, encodeRangeResponse } from './kv.js'
import { Reader, varintSize, WIRE_LEN, WIRE_VARINT, writeVarint } from './protobuf.js'
import { encodeHeaderField } from './response-header.js'

const EMPTY: Uint8Array = new Uint8Array(0)
/**
 * A range_end sent empty, told by identity from one not sent (EMPTY), until the whole request is known:
 * etcd (gogoproto) keeps the difference, and reads such a range_end, in a range or a compare, as "to the
 * end of the keyspace" in a read-only txn; a write txn goes through raft, whose marshalling drops the
 * empty field, so there it is a single key, as if not sent.
 */
const SENT_EMPTY: Uint8Array = new Uint8Array(0)
const FROM_KEY_END: Uint8Array = Uint8Array.of(0)
const EMPTY_TXN: TxnRequest = { compare: [], success: [], failure: [] }

/** An enum field as Go reads it (int32: the low 32 bits of the varint); values the proto lacks are `fallback`. */
function enumValue<T extends string>(rd: Reader, names: readonly T[], fallback: T): T {
  return names[Number(BigInt.asIntN(32, rd.bigVarint()))] ?? fallback
}

/** An int64 field, rounded to the nearest double, as Number() of protobufjs's long string gives it. */
const int64 = (rd: Reader): number => Number(rd.bigVarint())

type Operand = Pick<Compare, 'version' | 'createRevision' | 'modRevision' | 'value' | 'lease'>

function decodeCompare(buf: Uint8Array): Compare {
  let key = EMPTY
  let rangeEnd = EMPTY
  let target: CompareTarget = 'VERSION'
  let result: CompareResult = 'EQUAL'
  // target_union is a oneof: the last member on the wire wins, as in Go.
  let operand: Operand = {}
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (wt === WIRE_VARINT && field === 1) result = enumValue(rd, COMPARE_RESULTS, 'UNKNOWN')
    else if (wt === WIRE_VARINT && field === 2) target = enumValue(rd, COMPARE_TARGETS, 'UNKNOWN')
    else if (wt === WIRE_LEN && field === 3) key = rd.bytes()
    else if (wt === WIRE_VARINT && field === 4) operand = { version: int64(rd) }
    else if (wt === WIRE_VARINT && field === 5) operand = { createRevision: int64(rd) }
    else if (wt === WIRE_VARINT && field === 6) operand = { modRevision: int64(rd) }
    else if (wt === WIRE_LEN && field === 7) operand = { value: rd.bytes() }
    else if (wt === WIRE_VARINT && field === 8) operand = { lease: rd.bigVarint() }
    else if (wt === WIRE_LEN && field === 64) {
      const end = rd.bytes()
      rangeEnd = end.length === 0 ? SENT_EMPTY : end
    }
    else rd.skip(wt)
  }
  return { key, rangeEnd, target, result, ...operand }
}

function decodeDeleteRange(buf: Uint8Array): DeleteRangeRequest {
  let key = EMPTY
  let rangeEnd = EMPTY
  let prevKv = false
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (wt === WIRE_LEN && field === 1) key = rd.bytes()
    // Unlike a range's, a delete's range_end sent empty is a single key in etcd, as one not sent.
    else if (wt === WIRE_LEN && field === 2) rangeEnd = rd.bytes()
    else if (wt === WIRE_VARINT && field === 3) prevKv = rd.bool()
    else rd.skip(wt)
  }
  return { key, rangeEnd, prevKv }
}

function decodeRequestOp(buf: Uint8Array, level: number, maxLevels: number): RequestOp {
  // request is a oneof: the last member on the wire wins, as in Go.
  let op: RequestOp = { type: 'empty' }
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (wt !== WIRE_LEN || field < 1 || field > 4) {
      rd.skip(wt)
      continue
    }
    const b = rd.bytes()
    switch (field) {
      case 1: op = { type: 'range', request: decodeRangeRequest(b, SENT_EMPTY) }; break
      case 2: op = { type: 'put', request: decodePutRequest(b) }; break
      case 3: op = { type: 'deleteRange', request: decodeDeleteRange(b) }; break
      default: op = { type: 'txn', request: decodeLevel(b, level + 1, maxLevels) }
    }
  }
  return op
}

function decodeLevel(buf: Uint8Array, level: number, maxLevels: number): TxnRequest {
  // A level this deep has no op budget left in etcd's checkTxnRequest whatever it holds (every level above
  // it spends at least the one op that holds the next), so its contents cannot change the answer.
  if (level > maxLevels) return EMPTY_TXN
  const compare: Compare[] = []
  const success: RequestOp[] = []
  const failure: RequestOp[] = []
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (wt !== WIRE_LEN || field < 1 || field > 3) rd.skip(wt)
    else if (field === 1) compare.push(decodeCompare(rd.bytes()))
    else if (field === 2) success.push(decodeRequestOp(rd.bytes(), level, maxLevels))
    else failure.push(decodeRequestOp(rd.bytes(), level, maxLevels))
  }
  return { compare, success, failure }
}

/**
 * The deepest nesting (levels of TxnRequest, the request itself being level 1) that etcd's checkTxnRequest
 * can accept with a budget of `maxTxnOps`: each level that holds a nested txn spends at least one op, so
 * level maxTxnOps + 1 can only be an empty txn, and a level below that is always refused.
 */
export const maxTxnLevels = (maxTxnOps: number): number => maxTxnOps + 1

/**
 * Decode an etcdserverpb.TxnRequest. A level below maxTxnLevels(maxTxnOps) is decoded as an empty txn
 * and the levels below it not at all: etcd refuses such a request ("too many operations in txn request")
 * at that level or before, and checkTxnRequest still does, after any error etcd finds first.
 */
export function decodeTxnRequest(buf: Uint8Array, maxTxnOps: number): TxnRequest {
  const r = decodeLevel(buf, 1, maxTxnLevels(maxTxnOps))
  // etcd's isTxnReadonly: only ranges in both branches (so no nested txn, whose range_ends stay as decoded).
  const ops = [...(r.success ?? []), ...(r.failure ?? [])]
  if (!ops.every((op) => op.type === 'range')) return r
  const fromKey = (end: Uint8Array | undefined): Uint8Array => (end === SENT_EMPTY ? FROM_KEY_END : (end ?? EMPTY))
  const range = (op: RequestOp): RequestOp => (op.type === 'range' ? { type: 'range', request: { ...op.request, rangeEnd: fromKey(op.request.rangeEnd) } } : op)
  return {
    compare: (r.compare ?? []).map((c) => ({ ...c, rangeEnd: fromKey(c.rangeEnd) })),
    success: (r.success ?? []).map(range),
    failure: (r.failure ?? []).map(range),
  }
}

const lenField = (field: number, body: Uint8Array): Buffer => {
  const head = Buffer.allocUnsafe(1 + varintSize(body.length))
  head[0] = (field << 3) | WIRE_LEN
  writeVarint(head, 1, body.length)
  return Buffer.concat([head, body])
}

function encodeDeleteRangeResponse(r: DeleteRangeResponse): Buffer {
  const header = encodeHeaderField(r.header)
  const kvSizes = r.prevKvs.map(keyValueSize)
  let size = header.length + (r.deleted ? 1 + varintSize(r.deleted) : 0)
  for (const s of kvSizes) size += 1 + varintSize(s) + s
  const out = Buffer.allocUnsafe(size)
  out.set(header, 0)
  let pos = header.length
  if (r.deleted) {
    out[pos++] = (2 << 3) | WIRE_VARINT
    pos = writeVarint(out, pos, r.deleted)
  }
  for (let i = 0; i < r.prevKvs.length; i++) {
    out[pos++] = (3 << 3) | WIRE_LEN
    pos = writeVarint(out, pos, kvSizes[i] as number)
    pos = writeKeyValue(out, pos, r.prevKvs[i] as DeleteRangeResponse['prevKvs'][number])
  }
  return out
}

function encodeResponseOp(op: ResponseOp): Buffer {
  switch (op.type) {
    case 'range': return lenField(1, encodeRangeResponse(op.response))
    case 'put': return lenField(2, encodePutResponse(op.response))
    case 'deleteRange': return lenField(3, encodeDeleteRangeResponse(op.response))
    case 'txn': return lenField(4, encodeTxnResponse(op.response))
    case 'empty': return Buffer.alloc(0)
  }
}

/** Encode an etcdserverpb.TxnResponse (proto3: zero fields omitted, as Go writes them). */
export function encodeTxnResponse(r: TxnResponse): Buffer {
  const parts: Uint8Array[] = [encodeHeaderField(r.header)]
  if (r.succeeded) parts.push(Uint8Array.of((2 << 3) | WIRE_VARINT, 1))
  for (const op of r.responses) parts.push(lenField(3, encodeResponseOp(op)))
  return Buffer.concat(parts)
}
