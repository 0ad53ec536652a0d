// The encoded size of a write request as etcd measures it against --max-request-bytes: the marshalled
// InternalRaftRequest, i.e. the protobuf request plus a request header with a 64-bit ID and the wrapper.
import { bigVarintSize, varintSize } from '../wire/protobuf.js'
import type { Compare, DeleteRangeRequest, PutRequest, RangeRequest, RequestOp, TxnRequest } from './types/kv.js'

const varint = varintSize
const bigVarint = bigVarintSize
const bytesField = (b: Uint8Array | undefined, tag = 1): number => (b === undefined || b.length === 0 ? 0 : tag + varint(b.length) + b.length)
const intField = (n: number | undefined, tag = 1): number => (n === undefined || n === 0 ? 0 : tag + varint(n))
const boolField = (b: boolean | undefined, tag = 1): number => (b === true ? tag + 1 : 0)
const msgField = (size: number, tag = 1): number => tag + varint(size) + size

function rangeSize(r: RangeRequest): number {
  return (
    bytesField(r.key) + bytesField(r.rangeEnd) + intField(r.limit) + intField(r.revision) +
    (r.sortOrder !== undefined && r.sortOrder !== 'NONE' ? 2 : 0) + (r.sortTarget !== undefined && r.sortTarget !== 'KEY' ? 2 : 0) +
    boolField(r.serializable) + boolField(r.keysOnly) + boolField(r.countOnly) +
    intField(r.minModRevision) + intField(r.maxModRevision) + intField(r.minCreateRevision) + intField(r.maxCreateRevision)
  )
}

export function putSize(r: PutRequest): number {
  return bytesField(r.key) + bytesField(r.value) + (r.lease === undefined || r.lease === 0n ? 0 : 1 + bigVarint(r.lease)) +
    boolField(r.prevKv) + boolField(r.ignoreValue) + boolField(r.ignoreLease)
}

export function deleteRangeSize(r: DeleteRangeRequest): number {
  return bytesField(r.key) + bytesField(r.rangeEnd) + boolField(r.prevKv)
}

function compareSize(c: Compare): number {
  let operand = 0
  switch (c.target) {
    case 'VERSION': operand = c.version === undefined ? 0 : 1 + varint(c.version); break
    case 'CREATE': operand = c.createRevision === undefined ? 0 : 1 + varint(c.createRevision); break
    case 'MOD': operand = c.modRevision === undefined ? 0 : 1 + varint(c.modRevision); break
    case 'VALUE': operand = c.value === undefined ? 0 : 1 + varint(c.value.length) + c.value.length; break
    case 'LEASE': operand = c.lease === undefined ? 0 : 1 + bigVarint(c.lease); break
    case 'UNKNOWN': break
  }
  return (c.result !== 'EQUAL' ? 2 : 0) + (c.target !== 'VERSION' ? 2 : 0) + bytesField(c.key) + operand +
    (c.rangeEnd === undefined || c.rangeEnd.length === 0 ? 0 : 2 + varint(c.rangeEnd.length) + c.rangeEnd.length)
}

function opSize(op: RequestOp): number {
  switch (op.type) {
    case 'range': return msgField(rangeSize(op.request))
    case 'put': return msgField(putSize(op.request))
    case 'deleteRange': return msgField(deleteRangeSize(op.request))
    case 'txn': return msgField(txnSize(op.request))
    case 'empty': return 0
  }
}

export function txnSize(r: TxnRequest): number {
  let n = 0
  for (const c of r.compare ?? []) n += msgField(compareSize(c))
  for (const op of r.success ?? []) n += msgField(opSize(op))
  for (const op of r.failure ?? []) n += msgField(opSize(op))
  return n
}

/**
 * The InternalRaftRequest etcd marshals around a request of `size` bytes: the request field (one-byte tag
 * plus length) and a RequestHeader (two-byte tag, length, and an ID that etcd's generator makes 9 bytes
 * long in varint form).
 */
export function raftRequestSize(size: number): number {
  const header = 1 + 9
  return 2 + varint(header) + header + 1 + varint(size) + size
}
