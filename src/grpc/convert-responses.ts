// Protobuf responses (proto-loader output objects) -> domain responses, the client's direction of
// convert.ts: what connect()'s client returns, in exactly the shapes the embedded API returns.
import type { ResponseHeader__Output as pb_ResponseHeader } from './generated/etcdserverpb/ResponseHeader.js'
import type { KeyValue__Output as pb_KeyValue } from './generated/mvccpb/KeyValue.js'
import type { RangeResponse__Output as pb_RangeResponse } from './generated/etcdserverpb/RangeResponse.js'
import type { PutResponse__Output as pb_PutResponse } from './generated/etcdserverpb/PutResponse.js'
import type { DeleteRangeResponse__Output as pb_DeleteRangeResponse } from './generated/etcdserverpb/DeleteRangeResponse.js'
import type { TxnResponse__Output as pb_TxnResponse } from './generated/etcdserverpb/TxnResponse.js'
import type { ResponseOp__Output as pb_ResponseOp } from './generated/etcdserverpb/ResponseOp.js'
import type { WatchResponse__Output as pb_WatchResponse } from './generated/etcdserverpb/WatchResponse.js'
import type { Event__Output as pb_Event } from './generated/mvccpb/Event.js'
import type { LeaseGrantResponse__Output as pb_LeaseGrantResponse } from './generated/etcdserverpb/LeaseGrantResponse.js'
import type { LeaseKeepAliveResponse__Output as pb_LeaseKeepAliveResponse } from './generated/etcdserverpb/LeaseKeepAliveResponse.js'
import type { LeaseTimeToLiveResponse__Output as pb_LeaseTimeToLiveResponse } from './generated/etcdserverpb/LeaseTimeToLiveResponse.js'
import type { LeaseLeasesResponse__Output as pb_LeaseLeasesResponse } from './generated/etcdserverpb/LeaseLeasesResponse.js'
import type { StatusResponse__Output as pb_StatusResponse } from './generated/etcdserverpb/StatusResponse.js'
import type { HashKVResponse__Output as pb_HashKVResponse } from './generated/etcdserverpb/HashKVResponse.js'
import type { DowngradeResponse__Output as pb_DowngradeResponse } from './generated/etcdserverpb/DowngradeResponse.js'
import type { AuthenticateResponse__Output as pb_AuthenticateResponse } from './generated/etcdserverpb/AuthenticateResponse.js'
import type { LockResponse__Output as pb_LockResponse } from './generated/v3lockpb/LockResponse.js'
import type { LeaderKey__Output as pb_LeaderKey } from './generated/v3electionpb/LeaderKey.js'
import type { CampaignResponse__Output as pb_CampaignResponse } from './generated/v3electionpb/CampaignResponse.js'
import type { LeaderResponse__Output as pb_LeaderResponse } from './generated/v3electionpb/LeaderResponse.js'
import type { AuthenticateResponse } from '../etcdserver/types/auth.js'
import type { CampaignResponse, LeaderKey, LeaderResponse, LockResponse } from '../etcdserver/types/concurrency.js'
import type { ResponseHeader } from '../etcdserver/types/header.js'
import type {
  DeleteRangeResponse, KeyValue, PutResponse, RangeResponse, ResponseOp, TxnResponse,
} from '../etcdserver/types/kv.js'
import type {
  LeaseGrantResponse, LeaseKeepAliveResponse, LeaseLeasesResponse, LeaseTimeToLiveResponse,
} from '../etcdserver/types/lease.js'
import type { DowngradeResponse, HashKVResponse, StatusResponse } from '../etcdserver/types/maintenance.js'
import type { WatchEvent, WatchResponse } from '../etcdserver/types/watch.js'
import { watchIdOf } from '../pkg/watch-id.js'
import { big, num, u64 } from './convert-scalars.js'

const EMPTY = new Uint8Array(0)
const NO_HEADER: ResponseHeader = { clusterId: 0n, memberId: 0n, revision: 0, raftTerm: 0 }

/** A message that carries nothing but its header (PutResponse without prev_kv, UnlockResponse, ...). */
export interface HeaderOnly {
  readonly header: pb_ResponseHeader | null
}

export function fromPbHeader(h: pb_ResponseHeader | null): ResponseHeader {
  if (h === null) return NO_HEADER
  return { clusterId: u64(h.cluster_id), memberId: u64(h.member_id), revision: num(h.revision), raftTerm: num(h.raft_term) }
}

export const fromPbHeaderOnly = (r: HeaderOnly): { header: ResponseHeader } => ({ header: fromPbHeader(r.header) })

export function fromPbKeyValue(kv: pb_KeyValue): KeyValue {
  return {
    key: kv.key, createRevision: num(kv.create_revision), modRevision: num(kv.mod_revision), version: num(kv.version),
    value: kv.value, lease: big(kv.lease),
  }
}

const ZERO_KV: KeyValue = { key: EMPTY, createRevision: 0, modRevision: 0, version: 0, value: EMPTY, lease: 0n }
const kvOrZero = (kv: pb_KeyValue | null): KeyValue => (kv === null ? ZERO_KV : fromPbKeyValue(kv))

export function fromPbRangeResponse(r: pb_RangeResponse): RangeResponse {
  return { header: fromPbHeader(r.header), kvs: r.kvs.map(fromPbKeyValue), more: r.more, count: num(r.count) }
}

export function fromPbPutResponse(r: pb_PutResponse): PutResponse {
  const header = fromPbHeader(r.header)
  return r.prev_kv === null ? { header } : { header, prevKv: fromPbKeyValue(r.prev_kv) }
}

export function fromPbDeleteRangeResponse(r: pb_DeleteRangeResponse): DeleteRangeResponse {
  return { header: fromPbHeader(r.header), deleted: num(r.deleted), prevKvs: r.prev_kvs.map(fromPbKeyValue) }
}

function fromPbResponseOp(op: pb_ResponseOp): ResponseOp {
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

export function fromPbTxnResponse(r: pb_TxnResponse): TxnResponse {
  return { header: fromPbHeader(r.header), succeeded: r.succeeded, responses: r.responses.map(fromPbResponseOp) }
}

function fromPbEvent(e: pb_Event): WatchEvent {
  // Enums arrive by name; a number is a type our proto lacks, which no etcd sends.
  const type = e.type === 'DELETE' ? 'DELETE' : 'PUT'
  const kv = kvOrZero(e.kv)
  return e.prev_kv === null ? { type, kv } : { type, kv, prevKv: fromPbKeyValue(e.prev_kv) }
}

export function fromPbWatchResponse(r: pb_WatchResponse): WatchResponse {
  return {
    header: fromPbHeader(r.header),
    watchId: watchIdOf(big(r.watch_id)),
    created: r.created,
    canceled: r.canceled,
    compactRevision: num(r.compact_revision),
    cancelReason: r.cancel_reason,
    fragment: r.fragment,
    events: r.events.map(fromPbEvent),
  }
}

// ---- Lease ----
export const fromPbLeaseGrantResponse = (r: pb_LeaseGrantResponse): LeaseGrantResponse =>
  ({ header: fromPbHeader(r.header), id: big(r.ID), ttl: num(r.TTL), error: r.error })
export const fromPbLeaseKeepAliveResponse = (r: pb_LeaseKeepAliveResponse): LeaseKeepAliveResponse =>
  ({ header: fromPbHeader(r.header), id: big(r.ID), ttl: num(r.TTL) })
export const fromPbLeaseTimeToLiveResponse = (r: pb_LeaseTimeToLiveResponse): LeaseTimeToLiveResponse =>
  ({ header: fromPbHeader(r.header), id: big(r.ID), ttl: num(r.TTL), grantedTtl: num(r.grantedTTL), keys: r.keys })
export const fromPbLeaseLeasesResponse = (r: pb_LeaseLeasesResponse): LeaseLeasesResponse =>
  ({ header: fromPbHeader(r.header), leases: r.leases.map((l) => ({ id: big(l.ID) })) })
// ---- end Lease ----

// ---- Maintenance and Auth ----
export function fromPbStatusResponse(r: pb_StatusResponse): StatusResponse {
  return {
    header: fromPbHeader(r.header), version: r.version, dbSize: num(r.dbSize), dbSizeInUse: num(r.dbSizeInUse),
    leader: u64(r.leader), raftIndex: num(r.raftIndex), raftTerm: num(r.raftTerm), raftAppliedIndex: num(r.raftAppliedIndex),
    errors: r.errors, isLearner: r.isLearner,
  }
}
export const fromPbHashKVResponse = (r: pb_HashKVResponse): HashKVResponse =>
  ({ header: fromPbHeader(r.header), hash: r.hash, compactRevision: num(r.compact_revision) })
export const fromPbDowngradeResponse = (r: pb_DowngradeResponse): DowngradeResponse =>
  ({ header: fromPbHeader(r.header), version: r.version })
export const fromPbAuthenticateResponse = (r: pb_AuthenticateResponse): AuthenticateResponse =>
  ({ header: fromPbHeader(r.header), token: r.token })
// ---- end Maintenance and Auth ----

// ---- Lock and Election ----
export const fromPbLockResponse = (r: pb_LockResponse): LockResponse => ({ header: fromPbHeader(r.header), key: r.key })
const fromPbLeaderKey = (l: pb_LeaderKey | null): LeaderKey =>
  (l === null ? { name: EMPTY, key: EMPTY, rev: 0, lease: 0n } : { name: l.name, key: l.key, rev: num(l.rev), lease: big(l.lease) })
export const fromPbCampaignResponse = (r: pb_CampaignResponse): CampaignResponse =>
  ({ header: fromPbHeader(r.header), leader: fromPbLeaderKey(r.leader) })
export const fromPbLeaderResponse = (r: pb_LeaderResponse): LeaderResponse => ({ header: fromPbHeader(r.header), kv: kvOrZero(r.kv) })
// ---- end Lock and Election ----
