// Test-side domain <-> protobuf conversion for the wire adapters (raw grpc-js, etcd3, reference etcd).
// Written independently of src/grpc/convert-*.ts on purpose: the suite must not trust the code it checks.
// Requests use proto field names and numeric enum values (the wire truth, accepted by our proto and by
// etcd3's renamed one alike); responses are narrowed from `unknown` field by field, so a wrong wire
// shape fails loudly instead of being coerced.
import type { ResponseHeader } from '../../../../src/etcdserver/types/header.js'
import type {
  CompactionRequest, CompactionResponse, Compare, CompareResult, CompareTarget, DeleteRangeRequest,
  DeleteRangeResponse, KeyValue, PutRequest, PutResponse, RangeRequest, RangeResponse, RequestOp, ResponseOp,
  SortOrder, SortTarget, TxnRequest, TxnResponse,
} from '../../../../src/etcdserver/types/kv.js'
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveResponse, LeaseLeasesResponse, LeaseRevokeResponse,
  LeaseTimeToLiveRequest, LeaseTimeToLiveResponse,
} from '../../../../src/etcdserver/types/lease.js'
import type { WatchEvent, WatchFilter, WatchRequest, WatchResponse } from '../../../../src/etcdserver/types/watch.js'
import type {
  AlarmAction, AlarmRequest, AlarmResponse, AlarmType, DefragmentResponse, DowngradeResponse, HashKvRequest, HashKvResponse,
  HashResponse, MemberListResponse, MoveLeaderRequest, MoveLeaderResponse, StatusResponse,
} from '../client.js'

// Enum numbers from etcd's rpc.proto.
const SORT_ORDER: Readonly<Record<SortOrder, number>> = { NONE: 0, ASCEND: 1, DESCEND: 2 }
const SORT_TARGET: Readonly<Record<SortTarget, number>> = { KEY: 0, VERSION: 1, CREATE: 2, MOD: 3, VALUE: 4 }
// UNKNOWN stands for a number etcd's proto does not define; 9 is one.
const COMPARE_RESULT: Readonly<Record<CompareResult, number>> = { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3, UNKNOWN: 9 }
const COMPARE_TARGET: Readonly<Record<CompareTarget, number>> = { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3, LEASE: 4, UNKNOWN: 9 }

export interface PbRangeRequest {
  key: Buffer
  range_end?: Buffer
  limit?: string
  revision?: string
  sort_order?: number
  sort_target?: number
  serializable?: boolean
  keys_only?: boolean
  count_only?: boolean
  min_mod_revision?: string
  max_mod_revision?: string
  min_create_revision?: string
  max_create_revision?: string
}
export interface PbPutRequest {
  key: Buffer
  value?: Buffer
  lease?: string
  prev_kv?: boolean
  ignore_value?: boolean
  ignore_lease?: boolean
}
export interface PbDeleteRangeRequest {
  key: Buffer
  range_end?: Buffer
  prev_kv?: boolean
}
export interface PbCompare {
  key: Buffer
  range_end?: Buffer
  target: number
  result: number
  version?: string
  create_revision?: string
  mod_revision?: string
  value?: Buffer
  lease?: string
}
export interface PbRequestOp {
  request_range?: PbRangeRequest
  request_put?: PbPutRequest
  request_delete_range?: PbDeleteRangeRequest
  request_txn?: PbTxnRequest
}
export interface PbTxnRequest {
  compare: PbCompare[]
  success: PbRequestOp[]
  failure: PbRequestOp[]
}
export interface PbCompactionRequest {
  revision: string
  physical?: boolean
}

const buf = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength)

/** Copy the fields that are set; absent domain fields stay absent on the wire (proto3 defaults). */
function set<T extends object, K extends keyof T>(o: T, k: K, v: T[K] | undefined): void {
  if (v !== undefined) o[k] = v
}
const i64 = (n: number | bigint | undefined): string | undefined => (n === undefined ? undefined : String(n))
const optBuf = (b: Uint8Array | undefined): Buffer | undefined => (b === undefined ? undefined : buf(b))
/**
 * A range_end is sent only when non-empty. The domain says "absent or empty: the single key", and that is
 * what an absent field means to etcd; a field present with zero bytes is NOT the same on the wire to etcd
 * (gogoproto keeps it as a non-nil empty slice, which etcd's index reads as "no upper bound").
 */
const rangeEnd = (b: Uint8Array | undefined): Buffer | undefined => (b === undefined || b.length === 0 ? undefined : buf(b))

export function toPbRange(r: RangeRequest): PbRangeRequest {
  const o: PbRangeRequest = { key: buf(r.key) }
  set(o, 'range_end', rangeEnd(r.rangeEnd))
  set(o, 'limit', i64(r.limit))
  set(o, 'revision', i64(r.revision))
  set(o, 'sort_order', r.sortOrder === undefined ? undefined : SORT_ORDER[r.sortOrder])
  set(o, 'sort_target', r.sortTarget === undefined ? undefined : SORT_TARGET[r.sortTarget])
  set(o, 'serializable', r.serializable)
  set(o, 'keys_only', r.keysOnly)
  set(o, 'count_only', r.countOnly)
  set(o, 'min_mod_revision', i64(r.minModRevision))
  set(o, 'max_mod_revision', i64(r.maxModRevision))
  set(o, 'min_create_revision', i64(r.minCreateRevision))
  set(o, 'max_create_revision', i64(r.maxCreateRevision))
  return o
}

export function toPbPut(r: PutRequest): PbPutRequest {
  const o: PbPutRequest = { key: buf(r.key) }
  set(o, 'value', optBuf(r.value))
  set(o, 'lease', r.lease?.toString())
  set(o, 'prev_kv', r.prevKv)
  set(o, 'ignore_value', r.ignoreValue)
  set(o, 'ignore_lease', r.ignoreLease)
  return o
}

export function toPbDeleteRange(r: DeleteRangeRequest): PbDeleteRangeRequest {
  const o: PbDeleteRangeRequest = { key: buf(r.key) }
  set(o, 'range_end', rangeEnd(r.rangeEnd))
  set(o, 'prev_kv', r.prevKv)
  return o
}

function toPbCompare(c: Compare): PbCompare {
  const o: PbCompare = { key: buf(c.key), target: COMPARE_TARGET[c.target], result: COMPARE_RESULT[c.result] }
  set(o, 'range_end', rangeEnd(c.rangeEnd))
  set(o, 'version', i64(c.version))
  set(o, 'create_revision', i64(c.createRevision))
  set(o, 'mod_revision', i64(c.modRevision))
  set(o, 'value', optBuf(c.value))
  set(o, 'lease', c.lease?.toString())
  return o
}

function toPbOp(op: RequestOp): PbRequestOp {
  switch (op.type) {
    case 'range': return { request_range: toPbRange(op.request) }
    case 'put': return { request_put: toPbPut(op.request) }
    case 'deleteRange': return { request_delete_range: toPbDeleteRange(op.request) }
    case 'txn': return { request_txn: toPbTxn(op.request) }
    case 'empty': return {}
  }
}

export function toPbTxn(r: TxnRequest): PbTxnRequest {
  return {
    compare: (r.compare ?? []).map(toPbCompare),
    success: (r.success ?? []).map(toPbOp),
    failure: (r.failure ?? []).map(toPbOp),
  }
}

export function toPbCompaction(r: CompactionRequest): PbCompactionRequest {
  const o: PbCompactionRequest = { revision: String(r.revision) }
  set(o, 'physical', r.physical)
  return o
}

// Responses: narrowed from unknown

type Obj = Readonly<Record<string, unknown>>

function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x)
}
function obj(x: unknown, what: string): Obj {
  if (!isObj(x)) throw new TypeError(`wire: ${what} is not a message: ${String(x)}`)
  return x
}
function field(o: Obj, k: string): unknown {
  return o[k]
}
/** int64/uint64 fields arrive as decimal strings (longs: String); they must be safe integers here. */
function int(o: Obj, k: string): number {
  const v = field(o, k)
  const n = typeof v === 'string' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new TypeError(`wire: ${k} is not a safe integer: ${String(v)}`)
  return n
}
function big(o: Obj, k: string): bigint {
  const v = field(o, k)
  if (typeof v !== 'string' && typeof v !== 'number') throw new TypeError(`wire: ${k} is not an integer: ${String(v)}`)
  return BigInt(v)
}
function bool(o: Obj, k: string): boolean {
  const v = field(o, k)
  if (typeof v !== 'boolean') throw new TypeError(`wire: ${k} is not a bool: ${String(v)}`)
  return v
}
function bytes(o: Obj, k: string): Uint8Array {
  const v = field(o, k)
  if (!(v instanceof Uint8Array)) throw new TypeError(`wire: ${k} is not bytes: ${String(v)}`)
  return new Uint8Array(v)
}
function list(o: Obj, k: string): readonly unknown[] {
  const v = field(o, k)
  if (!Array.isArray(v)) throw new TypeError(`wire: ${k} is not a list: ${String(v)}`)
  return v
}

/** A message field that must be present (etcd always sends a header, even an all-zero one). */
function header(o: Obj): ResponseHeader {
  const h = obj(field(o, 'header'), 'header')
  return { clusterId: big(h, 'cluster_id'), memberId: big(h, 'member_id'), revision: int(h, 'revision'), raftTerm: int(h, 'raft_term') }
}

export function fromPbKeyValue(x: unknown): KeyValue {
  const o = obj(x, 'kv')
  return {
    key: bytes(o, 'key'),
    createRevision: int(o, 'create_revision'),
    modRevision: int(o, 'mod_revision'),
    version: int(o, 'version'),
    value: bytes(o, 'value'),
    lease: big(o, 'lease'),
  }
}

export function fromPbRange(x: unknown): RangeResponse {
  const o = obj(x, 'RangeResponse')
  return { header: header(o), kvs: list(o, 'kvs').map(fromPbKeyValue), more: bool(o, 'more'), count: int(o, 'count') }
}

export function fromPbPut(x: unknown): PutResponse {
  const o = obj(x, 'PutResponse')
  const prev = field(o, 'prev_kv')
  return prev === null || prev === undefined ? { header: header(o) } : { header: header(o), prevKv: fromPbKeyValue(prev) }
}

export function fromPbDeleteRange(x: unknown): DeleteRangeResponse {
  const o = obj(x, 'DeleteRangeResponse')
  return { header: header(o), deleted: int(o, 'deleted'), prevKvs: list(o, 'prev_kvs').map(fromPbKeyValue) }
}

function fromPbResponseOp(x: unknown): ResponseOp {
  const o = obj(x, 'ResponseOp')
  const present = (k: string): boolean => field(o, k) !== null && field(o, k) !== undefined
  if (present('response_range')) return { type: 'range', response: fromPbRange(field(o, 'response_range')) }
  if (present('response_put')) return { type: 'put', response: fromPbPut(field(o, 'response_put')) }
  if (present('response_delete_range')) return { type: 'deleteRange', response: fromPbDeleteRange(field(o, 'response_delete_range')) }
  if (present('response_txn')) return { type: 'txn', response: fromPbTxn(field(o, 'response_txn')) }
  return { type: 'empty' }
}

export function fromPbTxn(x: unknown): TxnResponse {
  const o = obj(x, 'TxnResponse')
  return { header: header(o), succeeded: bool(o, 'succeeded'), responses: list(o, 'responses').map(fromPbResponseOp) }
}

export function fromPbCompaction(x: unknown): CompactionResponse {
  return { header: header(obj(x, 'CompactionResponse')) }
}

// Watch

const WATCH_FILTER: Readonly<Record<WatchFilter, number>> = { NOPUT: 0, NODELETE: 1 }

export interface PbWatchCreateRequest {
  key: Buffer
  range_end?: Buffer
  start_revision?: string
  progress_notify?: boolean
  filters?: number[]
  prev_kv?: boolean
  watch_id?: string
  fragment?: boolean
}
export interface PbWatchRequest {
  create_request?: PbWatchCreateRequest
  cancel_request?: { watch_id: string }
  progress_request?: Record<string, never>
}

export function toPbWatchRequest(r: WatchRequest): PbWatchRequest {
  switch (r.type) {
    case 'cancel': return { cancel_request: { watch_id: String(r.watchId) } }
    case 'progress': return { progress_request: {} }
    case 'create': {
      const c = r.request
      const o: PbWatchCreateRequest = { key: buf(c.key) }
      set(o, 'range_end', rangeEnd(c.rangeEnd))
      set(o, 'start_revision', i64(c.startRevision))
      set(o, 'progress_notify', c.progressNotify)
      set(o, 'filters', c.filters?.map((f) => WATCH_FILTER[f]))
      set(o, 'prev_kv', c.prevKv)
      set(o, 'watch_id', i64(c.watchId))
      set(o, 'fragment', c.fragment)
      return { create_request: o }
    }
  }
}

function fromPbEvent(x: unknown): WatchEvent {
  const o = obj(x, 'Event')
  const t = field(o, 'type')
  // Enums arrive as names (enums: String); a number means a value our proto does not define.
  if (t !== 'PUT' && t !== 'DELETE') throw new TypeError(`wire: event type ${String(t)}`)
  const kv = fromPbKeyValue(field(o, 'kv'))
  const prev = field(o, 'prev_kv')
  return prev === null || prev === undefined ? { type: t, kv } : { type: t, kv, prevKv: fromPbKeyValue(prev) }
}

export function fromPbWatchResponse(x: unknown): WatchResponse {
  const o = obj(x, 'WatchResponse')
  const cancelReason = field(o, 'cancel_reason')
  if (typeof cancelReason !== 'string') throw new TypeError('wire: cancel_reason is not a string')
  return {
    header: header(o),
    watchId: int(o, 'watch_id'),
    created: bool(o, 'created'),
    canceled: bool(o, 'canceled'),
    compactRevision: int(o, 'compact_revision'),
    cancelReason,
    fragment: bool(o, 'fragment'),
    events: list(o, 'events').map(fromPbEvent),
  }
}

// Lease

export interface PbLeaseGrantRequest {
  TTL: string
  ID?: string
}
export interface PbLeaseIdRequest {
  ID: string
}
export interface PbLeaseTimeToLiveRequest {
  ID: string
  keys?: boolean
}

export function toPbLeaseGrant(r: LeaseGrantRequest): PbLeaseGrantRequest {
  const o: PbLeaseGrantRequest = { TTL: String(r.ttl) }
  set(o, 'ID', r.id?.toString())
  return o
}
export const toPbLeaseId = (r: { readonly id: bigint }): PbLeaseIdRequest => ({ ID: r.id.toString() })
export function toPbLeaseTimeToLive(r: LeaseTimeToLiveRequest): PbLeaseTimeToLiveRequest {
  const o: PbLeaseTimeToLiveRequest = { ID: r.id.toString() }
  set(o, 'keys', r.keys)
  return o
}

function str(o: Obj, k: string): string {
  const v = field(o, k)
  if (typeof v !== 'string') throw new TypeError(`wire: ${k} is not a string: ${String(v)}`)
  return v
}

export function fromPbLeaseGrant(x: unknown): LeaseGrantResponse {
  const o = obj(x, 'LeaseGrantResponse')
  return { header: header(o), id: big(o, 'ID'), ttl: int(o, 'TTL'), error: str(o, 'error') }
}
export function fromPbLeaseRevoke(x: unknown): LeaseRevokeResponse {
  return { header: header(obj(x, 'LeaseRevokeResponse')) }
}
export function fromPbLeaseKeepAlive(x: unknown): LeaseKeepAliveResponse {
  const o = obj(x, 'LeaseKeepAliveResponse')
  return { header: header(o), id: big(o, 'ID'), ttl: int(o, 'TTL') }
}
export function fromPbLeaseTimeToLive(x: unknown): LeaseTimeToLiveResponse {
  const o = obj(x, 'LeaseTimeToLiveResponse')
  const keys = list(o, 'keys').map((k, i) => {
    if (!(k instanceof Uint8Array)) throw new TypeError(`wire: keys[${i}] is not bytes`)
    return new Uint8Array(k)
  })
  return { header: header(o), id: big(o, 'ID'), ttl: int(o, 'TTL'), grantedTtl: int(o, 'grantedTTL'), keys }
}
export function fromPbLeaseLeases(x: unknown): LeaseLeasesResponse {
  const o = obj(x, 'LeaseLeasesResponse')
  return { header: header(o), leases: list(o, 'leases').map((l) => ({ id: big(obj(l, 'LeaseStatus'), 'ID') })) }
}

// Maintenance and cluster

// Numbers from etcd's rpc.proto; etcd3's copy renames the enum values (Get, Nospace, ...), so requests
// send numbers and responses are read by name, case-insensitively.
const ALARM_ACTION: Readonly<Record<AlarmAction, number>> = { GET: 0, ACTIVATE: 1, DEACTIVATE: 2 }
const ALARM_TYPE: Readonly<Record<AlarmType, number>> = { NONE: 0, NOSPACE: 1, CORRUPT: 2 }

export interface PbAlarmRequest {
  action: number
  memberID: string
  alarm: number
}
export const toPbAlarm = (r: AlarmRequest): PbAlarmRequest =>
  ({ action: ALARM_ACTION[r.action], memberID: r.memberId.toString(), alarm: ALARM_TYPE[r.alarm] })
export const toPbHashKv = (r: HashKvRequest): { revision: string } => ({ revision: String(r.revision) })
export const toPbMoveLeader = (r: MoveLeaderRequest): { targetID: string } => ({ targetID: r.targetId.toString() })

/** etcd 3.4 sends some maintenance responses without a header (nil): absent here too. */
function optHeader(o: Obj): { header?: ResponseHeader } {
  const h = field(o, 'header')
  return h === null || h === undefined ? {} : { header: header(o) }
}
function strings(o: Obj, k: string): string[] {
  return list(o, k).map((s, i) => {
    if (typeof s !== 'string') throw new TypeError(`wire: ${k}[${i}] is not a string`)
    return s
  })
}
function alarmType(o: Obj): AlarmType {
  const v = field(o, 'alarm')
  const name = typeof v === 'string' ? v.toUpperCase() : v
  if (name !== 'NONE' && name !== 'NOSPACE' && name !== 'CORRUPT') throw new TypeError(`wire: alarm type ${String(v)}`)
  return name
}

export function fromPbStatus(x: unknown): StatusResponse {
  const o = obj(x, 'StatusResponse')
  return {
    header: header(o),
    version: str(o, 'version'),
    dbSize: int(o, 'dbSize'),
    leader: big(o, 'leader'),
    raftIndex: int(o, 'raftIndex'),
    raftTerm: int(o, 'raftTerm'),
    raftAppliedIndex: int(o, 'raftAppliedIndex'),
    errors: strings(o, 'errors'),
    dbSizeInUse: int(o, 'dbSizeInUse'),
    isLearner: bool(o, 'isLearner'),
  }
}
export function fromPbHash(x: unknown): HashResponse {
  const o = obj(x, 'HashResponse')
  return { header: header(o), hash: int(o, 'hash') }
}
export function fromPbHashKv(x: unknown): HashKvResponse {
  const o = obj(x, 'HashKVResponse')
  return { header: header(o), hash: int(o, 'hash'), compactRevision: int(o, 'compact_revision') }
}
export function fromPbAlarm(x: unknown): AlarmResponse {
  const o = obj(x, 'AlarmResponse')
  const alarms = list(o, 'alarms').map((a) => {
    const m = obj(a, 'AlarmMember')
    return { memberId: big(m, 'memberID'), alarm: alarmType(m) }
  })
  return { ...optHeader(o), alarms }
}
export const fromPbDefragment = (x: unknown): DefragmentResponse => optHeader(obj(x, 'DefragmentResponse'))
export const fromPbMoveLeader = (x: unknown): MoveLeaderResponse => optHeader(obj(x, 'MoveLeaderResponse'))
export function fromPbDowngrade(x: unknown): DowngradeResponse {
  const o = obj(x, 'DowngradeResponse')
  return { header: header(o), version: str(o, 'version') }
}
export function fromPbMemberList(x: unknown): MemberListResponse {
  const o = obj(x, 'MemberListResponse')
  const members = list(o, 'members').map((m) => {
    const p = obj(m, 'Member')
    return { id: big(p, 'ID'), name: str(p, 'name'), peerUrls: strings(p, 'peerURLs'), clientUrls: strings(p, 'clientURLs'), isLearner: bool(p, 'isLearner') }
  })
  return { header: header(o), members }
}
