// Domain requests -> protobuf (proto-loader input objects), the client's direction of convert.ts: what
// connect()'s client sends. Fields the domain leaves absent stay absent on the wire (proto3 zero values).
import type { RangeRequest as pb_RangeRequest } from './generated/etcdserverpb/RangeRequest.js'
import type { PutRequest as pb_PutRequest } from './generated/etcdserverpb/PutRequest.js'
import type { DeleteRangeRequest as pb_DeleteRangeRequest } from './generated/etcdserverpb/DeleteRangeRequest.js'
import type { CompactionRequest as pb_CompactionRequest } from './generated/etcdserverpb/CompactionRequest.js'
import type { Compare as pb_Compare } from './generated/etcdserverpb/Compare.js'
import type { RequestOp as pb_RequestOp } from './generated/etcdserverpb/RequestOp.js'
import type { TxnRequest as pb_TxnRequest } from './generated/etcdserverpb/TxnRequest.js'
import type { WatchRequest as pb_WatchRequest } from './generated/etcdserverpb/WatchRequest.js'
import type { WatchCreateRequest as pb_WatchCreateRequest } from './generated/etcdserverpb/WatchCreateRequest.js'
import type { LeaseGrantRequest as pb_LeaseGrantRequest } from './generated/etcdserverpb/LeaseGrantRequest.js'
import type { LeaseTimeToLiveRequest as pb_LeaseTimeToLiveRequest } from './generated/etcdserverpb/LeaseTimeToLiveRequest.js'
import type { HashKVRequest as pb_HashKVRequest } from './generated/etcdserverpb/HashKVRequest.js'
import type { DowngradeRequest as pb_DowngradeRequest } from './generated/etcdserverpb/DowngradeRequest.js'
import type { LockRequest as pb_LockRequest } from './generated/v3lockpb/LockRequest.js'
import type { LeaderKey as pb_LeaderKey } from './generated/v3electionpb/LeaderKey.js'
import type { CampaignRequest as pb_CampaignRequest } from './generated/v3electionpb/CampaignRequest.js'
import type { ProclaimRequest as pb_ProclaimRequest } from './generated/v3electionpb/ProclaimRequest.js'
import type { ResignRequest as pb_ResignRequest } from './generated/v3electionpb/ResignRequest.js'
import type {
  CampaignRequest, LeaderKey, LockRequest, ProclaimRequest, ResignRequest,
} from '../etcdserver/types/concurrency.js'
import type {
  CompactionRequest, Compare, CompareResult, CompareTarget, DeleteRangeRequest, PutRequest, RangeRequest, RequestOp,
  TxnRequest,
} from '../etcdserver/types/kv.js'
import type { LeaseGrantRequest, LeaseTimeToLiveRequest } from '../etcdserver/types/lease.js'
import type { DowngradeRequest, HashKVRequest } from '../etcdserver/types/maintenance.js'
import type { WatchCreateRequest, WatchRequest } from '../etcdserver/types/watch.js'
import { COMPARE_RESULTS, COMPARE_TARGETS } from './convert-scalars.js'

/** The number sent for a domain 'UNKNOWN' compare result or target: one rpc.proto does not define. */
const UNDEFINED_ENUM = 99

/**
 * A range_end goes on the wire only when it has bytes. The domain reads absent and empty alike (the single
 * key); on the wire etcd tells a range_end sent empty from one not sent, and reads the former as "no upper
 * bound" in a read.
 */
const rangeEnd = (b: Uint8Array | undefined): { range_end?: Uint8Array } => (b === undefined || b.length === 0 ? {} : { range_end: b })

/** `{ [k]: v }`, or nothing when v is undefined. */
function opt<K extends string, V>(k: K, v: V | undefined): { [P in K]?: V } {
  return (v === undefined ? {} : { [k]: v }) as { [P in K]?: V }
}
const id = (v: bigint | undefined): string | undefined => v?.toString()

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

export function toPbWatchCreateRequest(c: WatchCreateRequest): pb_WatchCreateRequest {
  return {
    key: c.key, ...rangeEnd(c.rangeEnd), ...opt('start_revision', c.startRevision),
    ...opt('progress_notify', c.progressNotify), ...opt('filters', c.filters?.slice()), ...opt('prev_kv', c.prevKv),
    ...opt('watch_id', c.watchId === undefined ? undefined : String(c.watchId)), ...opt('fragment', c.fragment),
  }
}

export function toPbWatchRequest(r: WatchRequest): pb_WatchRequest {
  switch (r.type) {
    case 'create': return { create_request: toPbWatchCreateRequest(r.request) }
    case 'cancel': return { cancel_request: { watch_id: String(r.watchId) } }
    case 'progress': return { progress_request: {} }
  }
}

// ---- Lease ----
export const toPbLeaseGrantRequest = (r: LeaseGrantRequest): pb_LeaseGrantRequest => ({ TTL: r.ttl, ...opt('ID', id(r.id)) })
/** LeaseRevokeRequest and LeaseKeepAliveRequest: the ID alone. */
export const toPbLeaseIdRequest = (r: { readonly id: bigint }): { ID: string } => ({ ID: r.id.toString() })
export const toPbLeaseTimeToLiveRequest = (r: LeaseTimeToLiveRequest): pb_LeaseTimeToLiveRequest =>
  ({ ID: r.id.toString(), ...opt('keys', r.keys) })
// ---- end Lease ----

export const toPbHashKVRequest = (r: HashKVRequest): pb_HashKVRequest => ({ ...opt('revision', r.revision) })
/** A Downgrade request; actions go by name (a number, which only the wire carries, is refused). */
export function toPbDowngradeRequest(r: DowngradeRequest): pb_DowngradeRequest {
  if (typeof r.action === 'number') throw new TypeError('downgrade: action must be VALIDATE, ENABLE or CANCEL')
  return { ...(r.action === undefined ? {} : { action: r.action }), ...(r.version === undefined ? {} : { version: r.version }) }
}

// ---- Lock and Election ----
export const toPbLockRequest = (r: LockRequest): pb_LockRequest => ({ name: r.name, ...opt('lease', id(r.lease)) })
const toPbLeaderKey = (l: LeaderKey): pb_LeaderKey => ({ name: l.name, key: l.key, rev: l.rev, lease: l.lease.toString() })
export const toPbCampaignRequest = (r: CampaignRequest): pb_CampaignRequest =>
  ({ name: r.name, ...opt('lease', id(r.lease)), ...opt('value', r.value) })
export const toPbProclaimRequest = (r: ProclaimRequest): pb_ProclaimRequest =>
  ({ ...(r.leader === undefined ? {} : { leader: toPbLeaderKey(r.leader) }), ...opt('value', r.value) })
export const toPbResignRequest = (r: ResignRequest): pb_ResignRequest =>
  (r.leader === undefined ? {} : { leader: toPbLeaderKey(r.leader) })
// ---- end Lock and Election ----
