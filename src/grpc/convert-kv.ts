// The KV service's messages, protobuf (proto-loader objects) <-> domain, both directions: the server reads
// DeleteRange and Compact requests and builds their responses (Range, Put and Txn have hand-written codecs,
// wire/kv.ts and wire/txn.ts); the client (connect()) builds every KV request and reads every response.
// mvccpb.KeyValue is here too: the watch and election converters use it.
import type { CompactionRequest as pb_CompactionRequest, CompactionRequest__Output as pb_CompactionRequest__Output } from './generated/etcdserverpb/CompactionRequest.js'
import type { CompactionResponse as pb_CompactionResponse } from './generated/etcdserverpb/CompactionResponse.js'
import type { Compare as pb_Compare } from './generated/etcdserverpb/Compare.js'
import type { DeleteRangeRequest as pb_DeleteRangeRequest, DeleteRangeRequest__Output as pb_DeleteRangeRequest__Output } from './generated/etcdserverpb/DeleteRangeRequest.js'
import type { DeleteRangeResponse as pb_DeleteRangeResponse, DeleteRangeResponse__Output as pb_DeleteRangeResponse__Output } from './generated/etcdserverpb/DeleteRangeResponse.js'
import type { PutRequest as pb_PutRequest, PutRequest__Output as pb_PutRequest__Output } from './generated/etcdserverpb/PutRequest.js'
import type { PutResponse as pb_PutResponse, PutResponse__Output as pb_PutResponse__Output } from './generated/etcdserverpb/PutResponse.js'
import type { RangeRequest as pb_RangeRequest, RangeRequest__Output as pb_RangeRequest__Output } from './generated/etcdserverpb/RangeRequest.js'
import type { RangeResponse as pb_RangeResponse, RangeResponse__Output as pb_RangeResponse__Output } from './generated/etcdserverpb/RangeResponse.js'
import type { RequestOp as pb_RequestOp } from './generated/etcdserverpb/RequestOp.js'
import type { ResponseOp__Output as pb_ResponseOp__Output } from './generated/etcdserverpb/ResponseOp.js'
import type { TxnRequest as pb_TxnRequest } from './generated/etcdserverpb/TxnRequest.js'
import type { TxnResponse__Output as pb_TxnResponse__Output } from './generated/etcdserverpb/TxnResponse.js'
import type { KeyValue as pb_KeyValue, KeyValue__Output as pb_KeyValue__Output } from './generated/mvccpb/KeyValue.js'
import type {
  CompactionRequest, CompactionResponse, Compare, CompareResult, CompareTarget, DeleteRangeRequest, DeleteRangeResponse,
  KeyValue, PutRequest, PutResponse, RangeRequest, RangeResponse, RequestOp, ResponseOp, TxnRequest, TxnResponse,
} from '../etcdserver/types/kv.js'
import { COMPARE_RESULTS, COMPARE_TARGETS, SORT_ORDERS, SORT_TARGETS } from '../wire/enums.js'
import { fromPbHeader, toPbHeader } from './convert-header.js'
import { big, enumOf, id, num, opt, rangeEnd } from './convert-scalars.js'

const EMPTY = new Uint8Array(0)
/** The number sent for a domain 'UNKNOWN' compare result or target: one rpc.proto does not define. */
const UNDEFINED_ENUM = 99

export function toDomainRange(r: pb_RangeRequest__Output): RangeRequest {
  return {
    key: r.key,
    rangeEnd: r.range_end,
    limit: num(r.limit),
    revision: num(r.revision),
    // etcd sorts nothing for an order it does not know; NONE does the same.
    sortOrder: enumOf(SORT_ORDERS, r.sort_order, 'NONE'),
    sortTarget: enumOf(SORT_TARGETS, r.sort_target, 'KEY'),
    serializable: r.serializable,
    keysOnly: r.keys_only,
    countOnly: r.count_only,
    minModRevision: num(r.min_mod_revision),
    maxModRevision: num(r.max_mod_revision),
    minCreateRevision: num(r.min_create_revision),
    maxCreateRevision: num(r.max_create_revision),
  }
}

export function toDomainPut(r: pb_PutRequest__Output): PutRequest {
  return { key: r.key, value: r.value, lease: big(r.lease), prevKv: r.prev_kv, ignoreValue: r.ignore_value, ignoreLease: r.ignore_lease }
}

export function toDomainDeleteRange(r: pb_DeleteRangeRequest__Output): DeleteRangeRequest {
  return { key: r.key, rangeEnd: r.range_end, prevKv: r.prev_kv }
}

export function toDomainCompaction(r: pb_CompactionRequest__Output): CompactionRequest {
  return { revision: num(r.revision), physical: r.physical }
}

export function toPbKeyValue(kv: KeyValue): pb_KeyValue {
  return {
    key: kv.key,
    create_revision: kv.createRevision,
    mod_revision: kv.modRevision,
    version: kv.version,
    value: kv.value,
    lease: kv.lease === 0n ? 0 : kv.lease.toString(),
  }
}

export function toPbRangeResponse(r: RangeResponse): pb_RangeResponse {
  return { header: toPbHeader(r.header), kvs: r.kvs.map(toPbKeyValue), more: r.more, count: r.count }
}

export function toPbPutResponse(r: PutResponse): pb_PutResponse {
  return r.prevKv === undefined ? { header: toPbHeader(r.header) } : { header: toPbHeader(r.header), prev_kv: toPbKeyValue(r.prevKv) }
}

export function toPbDeleteRangeResponse(r: DeleteRangeResponse): pb_DeleteRangeResponse {
  return { header: toPbHeader(r.header), deleted: r.deleted, prev_kvs: r.prevKvs.map(toPbKeyValue) }
}

export function toPbCompactionResponse(r: CompactionResponse): pb_CompactionResponse {
  return { header: toPbHeader(r.header) }
}

export function toPbRangeRequest(r: RangeRequest): pb_RangeRequest {
  return {
    key: r.key, ...rangeEnd(r.rangeEnd), ...opt('limit', r.limit), ...opt('revision', r.revision),
    ...opt('sort_order', r.sortOrder), ...opt('sort_target', r.sortTarget), ...opt('serializable', r.serializable),
    ...opt('keys_only', r.keysOnly), ...opt('count_only', r.countOnly), ...opt('min_mod_revision', r.minModRevision),
    ...opt('max_mod_revision', r.maxModRevision), ...opt('min_create_revision', r.minCreateRevision),
    ...opt('max_create_revision', r.maxCreateRevision),
  }
}

export function toPbPutRequest(r: PutRequest): pb_PutRequest {
  return {
    key: r.key, ...opt('value', r.value), ...opt('lease', id(r.lease)), ...opt('prev_kv', r.prevKv),
    ...opt('ignore_value', r.ignoreValue), ...opt('ignore_lease', r.ignoreLease),
  }
}

export function toPbDeleteRangeRequest(r: DeleteRangeRequest): pb_DeleteRangeRequest {
  return { key: r.key, ...rangeEnd(r.rangeEnd), ...opt('prev_kv', r.prevKv) }
}

export function toPbCompactionRequest(r: CompactionRequest): pb_CompactionRequest {
  return { revision: r.revision, ...opt('physical', r.physical) }
}

const enumNumber = <T extends string>(names: readonly T[], v: T): number => {
  const i = names.indexOf(v)
  return i < 0 ? UNDEFINED_ENUM : i
}

function toPbCompare(c: Compare): pb_Compare {
  return {
    key: c.key, ...rangeEnd(c.rangeEnd),
    result: enumNumber<CompareResult>(COMPARE_RESULTS, c.result) as NonNullable<pb_Compare['result']>,
    target: enumNumber<CompareTarget>(COMPARE_TARGETS, c.target) as NonNullable<pb_Compare['target']>,
    ...opt('version', c.version), ...opt('create_revision', c.createRevision), ...opt('mod_revision', c.modRevision),
    ...opt('value', c.value), ...opt('lease', id(c.lease)),
  }
}

function toPbRequestOp(op: RequestOp): pb_RequestOp {
  switch (op.type) {
    case 'range': return { request_range: toPbRangeRequest(op.request) }
    case 'put': return { request_put: toPbPutRequest(op.request) }
    case 'deleteRange': return { request_delete_range: toPbDeleteRangeRequest(op.request) }
    case 'txn': return { request_txn: toPbTxnRequest(op.request) }
    case 'empty': return {}
  }
}

export function toPbTxnRequest(r: TxnRequest): pb_TxnRequest {
  return {
    compare: (r.compare ?? []).map(toPbCompare),
    success: (r.success ?? []).map(toPbRequestOp),
    failure: (r.failure ?? []).map(toPbRequestOp),
  }
}

export function fromPbKeyValue(kv: pb_KeyValue__Output): KeyValue {
  return {
    key: kv.key, createRevision: num(kv.create_revision), modRevision: num(kv.mod_revision), version: num(kv.version),
    value: kv.value, lease: big(kv.lease),
  }
}

const ZERO_KV: KeyValue = { key: EMPTY, createRevision: 0, modRevision: 0, version: 0, value: EMPTY, lease: 0n }

/** A KeyValue a message may leave out (an event's kv, a leader's kv): absent reads as the zero KeyValue. */
export const kvOrZero = (kv: pb_KeyValue__Output | null): KeyValue => (kv === null ? ZERO_KV : fromPbKeyValue(kv))

export function fromPbRangeResponse(r: pb_RangeResponse__Output): RangeResponse {
  return { header: fromPbHeader(r.header), kvs: r.kvs.map(fromPbKeyValue), more: r.more, count: num(r.count) }
}

export function fromPbPutResponse(r: pb_PutResponse__Output): PutResponse {
  const header = fromPbHeader(r.header)
  return r.prev_kv === null ? { header } : { header, prevKv: fromPbKeyValue(r.prev_kv) }
}

export function fromPbDeleteRangeResponse(r: pb_DeleteRangeResponse__Output): DeleteRangeResponse {
  return { header: fromPbHeader(r.header), deleted: num(r.deleted), prevKvs: r.prev_kvs.map(fromPbKeyValue) }
}

function fromPbResponseOp(op: pb_ResponseOp__Output): ResponseOp {
  switch (op.response) {
    case 'response_range': return op.response_range == null ? { type: 'empty' } : { type: 'range', response: fromPbRangeResponse(op.response_range) }
    case 'response_put': return op.response_put == null ? { type: 'empty' } : { type: 'put', response: fromPbPutResponse(op.response_put) }
    case 'response_delete_range':
      return op.response_delete_range == null ? { type: 'empty' } : { type: 'deleteRange', response: fromPbDeleteRangeResponse(op.response_delete_range) }
    case 'response_txn': return op.response_txn == null ? { type: 'empty' } : { type: 'txn', response: fromPbTxnResponse(op.response_txn) }
    case undefined: return { type: 'empty' }
  }
  return { type: 'empty' }
}

export function fromPbTxnResponse(r: pb_TxnResponse__Output): TxnResponse {
  return { header: fromPbHeader(r.header), succeeded: r.succeeded, responses: r.responses.map(fromPbResponseOp) }
}
