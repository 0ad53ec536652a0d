// The only protobuf <-> domain converter of the server's direction (requests in, responses out); the
// client's direction is convert-requests.ts and convert-responses.ts, on the same scalar mappings
// (convert-scalars.ts). int64 fields arrive as decimal strings (LOADER_OPTIONS longs: String) and become
// numbers: revisions, versions, counts and limits are safe integers in practice and the conversion is
// monotone, so out-of-range inputs still order and fail as in etcd. IDs become bigint.
import type { RangeRequest__Output as pb_RangeRequest__Output } from './generated/etcdserverpb/RangeRequest.js'
import type { PutRequest__Output as pb_PutRequest__Output } from './generated/etcdserverpb/PutRequest.js'
import type { DeleteRangeRequest__Output as pb_DeleteRangeRequest__Output } from './generated/etcdserverpb/DeleteRangeRequest.js'
import type { CompactionRequest__Output as pb_CompactionRequest__Output } from './generated/etcdserverpb/CompactionRequest.js'
import type { ResponseHeader as pb_ResponseHeader } from './generated/etcdserverpb/ResponseHeader.js'
import type { RangeResponse as pb_RangeResponse } from './generated/etcdserverpb/RangeResponse.js'
import type { PutResponse as pb_PutResponse } from './generated/etcdserverpb/PutResponse.js'
import type { DeleteRangeResponse as pb_DeleteRangeResponse } from './generated/etcdserverpb/DeleteRangeResponse.js'
import type { CompactionResponse as pb_CompactionResponse } from './generated/etcdserverpb/CompactionResponse.js'
import type { KeyValue as PbKeyValue } from './generated/mvccpb/KeyValue.js'
import type { ResponseHeader } from '../etcdserver/types/header.js'
import type {
  CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse, KeyValue, PutRequest, PutResponse,
  RangeRequest, RangeResponse,
} from '../etcdserver/types/kv.js'
import { ALARM_ACTIONS, ALARM_TYPES, big, enumOf, num, SORT_ORDERS, SORT_TARGETS, u64 } from './convert-scalars.js'

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

// ---- domain -> protobuf ----

export function toPbHeader(h: ResponseHeader): pb_ResponseHeader {
  return { cluster_id: h.clusterId.toString(), member_id: h.memberId.toString(), revision: h.revision, raft_term: h.raftTerm }
}

export function toPbKeyValue(kv: KeyValue): PbKeyValue {
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

// ---- Lease ----
import type { LeaseTimeToLiveRequest__Output as pb_LeaseTimeToLiveRequest__Output } from './generated/etcdserverpb/LeaseTimeToLiveRequest.js'
import type { LeaseTimeToLiveResponse as pb_LeaseTimeToLiveResponse } from './generated/etcdserverpb/LeaseTimeToLiveResponse.js'
import type { LeaseLeasesResponse as pb_LeaseLeasesResponse } from './generated/etcdserverpb/LeaseLeasesResponse.js'
import type { LeaseLeasesResponse, LeaseTimeToLiveRequest, LeaseTimeToLiveResponse } from '../etcdserver/types/lease.js'

export const toDomainLeaseTimeToLive = (r: pb_LeaseTimeToLiveRequest__Output): LeaseTimeToLiveRequest => ({
  id: big(r.ID),
  keys: r.keys,
})

export const toPbLeaseTimeToLiveResponse = (r: LeaseTimeToLiveResponse): pb_LeaseTimeToLiveResponse => ({
  header: toPbHeader(r.header),
  ID: r.id.toString(),
  TTL: r.ttl,
  grantedTTL: r.grantedTtl,
  keys: r.keys,
})
export const toPbLeaseLeasesResponse = (r: LeaseLeasesResponse): pb_LeaseLeasesResponse => ({
  header: toPbHeader(r.header),
  leases: r.leases.map((l) => ({ ID: l.id.toString() })),
})
// ---- end Lease ----

// ---- Maintenance and Cluster ----
import type { HashKVRequest__Output as pb_HashKVRequest__Output } from './generated/etcdserverpb/HashKVRequest.js'
import type { AlarmRequest__Output as pb_AlarmRequest__Output } from './generated/etcdserverpb/AlarmRequest.js'
import type { MoveLeaderRequest__Output as pb_MoveLeaderRequest__Output } from './generated/etcdserverpb/MoveLeaderRequest.js'
import type { MemberAddRequest__Output as pb_MemberAddRequest__Output } from './generated/etcdserverpb/MemberAddRequest.js'
import type { MemberRemoveRequest__Output as pb_MemberRemoveRequest__Output } from './generated/etcdserverpb/MemberRemoveRequest.js'
import type { MemberUpdateRequest__Output as pb_MemberUpdateRequest__Output } from './generated/etcdserverpb/MemberUpdateRequest.js'
import type { MemberPromoteRequest__Output as pb_MemberPromoteRequest__Output } from './generated/etcdserverpb/MemberPromoteRequest.js'
import type { StatusResponse as pb_StatusResponse } from './generated/etcdserverpb/StatusResponse.js'
import type { HashResponse as pb_HashResponse } from './generated/etcdserverpb/HashResponse.js'
import type { HashKVResponse as pb_HashKVResponse } from './generated/etcdserverpb/HashKVResponse.js'
import type { SnapshotResponse as pb_SnapshotResponse } from './generated/etcdserverpb/SnapshotResponse.js'
import type { AlarmMember as pb_AlarmMember } from './generated/etcdserverpb/AlarmMember.js'
import type { AlarmResponse as pb_AlarmResponse } from './generated/etcdserverpb/AlarmResponse.js'
import type { Member as pb_Member } from './generated/etcdserverpb/Member.js'
import type { MemberListResponse as pb_MemberListResponse } from './generated/etcdserverpb/MemberListResponse.js'
import type { MemberListRequest__Output as pb_MemberListRequest__Output } from './generated/etcdserverpb/MemberListRequest.js'
import type { DowngradeRequest__Output as pb_DowngradeRequest__Output } from './generated/etcdserverpb/DowngradeRequest.js'
import type { DowngradeResponse as pb_DowngradeResponse } from './generated/etcdserverpb/DowngradeResponse.js'
import type {
  Member, MemberAddRequest, MemberListRequest, MemberListResponse, MemberPromoteRequest, MemberRemoveRequest,
  MemberUpdateRequest,
} from '../etcdserver/types/cluster.js'
import type {
  AlarmMember, AlarmRequest, AlarmResponse, DowngradeAction, DowngradeRequest, DowngradeResponse, HashKVRequest,
  HashKVResponse, HashResponse, MoveLeaderRequest, SnapshotChunk, StatusResponse,
} from '../etcdserver/types/maintenance.js'

export function toDomainHashKV(r: pb_HashKVRequest__Output): HashKVRequest {
  return { revision: num(r.revision) }
}

export function toDomainAlarm(r: pb_AlarmRequest__Output): AlarmRequest {
  // An action etcd does not know changes nothing there; GET (also read-only) stands in for it.
  return { action: enumOf(ALARM_ACTIONS, r.action, 'GET'), memberId: u64(r.memberID), alarm: enumOf(ALARM_TYPES, r.alarm, 'NONE') }
}

const DOWNGRADE_ACTIONS: readonly DowngradeAction[] = ['VALIDATE', 'ENABLE', 'CANCEL']

/**
 * A Downgrade request. An enum value etcd does not define arrives as its number (proto3 keeps it, and
 * etcd answers it with "unknown method"), so it stays a number here.
 */
export function toDomainDowngrade(r: pb_DowngradeRequest__Output): DowngradeRequest {
  const a: string | number = r.action
  const action: DowngradeAction | number =
    typeof a === 'number' ? (DOWNGRADE_ACTIONS[a] ?? a) : (DOWNGRADE_ACTIONS.find((n) => n === a) ?? -1)
  return { action, version: r.version }
}

export function toPbDowngradeResponse(r: DowngradeResponse): pb_DowngradeResponse {
  return { header: toPbHeader(r.header), version: r.version }
}

export function toDomainMemberList(r: pb_MemberListRequest__Output): MemberListRequest {
  return { linearizable: r.linearizable }
}

export function toDomainMoveLeader(r: pb_MoveLeaderRequest__Output): MoveLeaderRequest {
  return { targetId: u64(r.targetID) }
}

export function toDomainMemberAdd(r: pb_MemberAddRequest__Output): MemberAddRequest {
  return { peerUrls: r.peerURLs, isLearner: r.isLearner }
}

export function toDomainMemberRemove(r: pb_MemberRemoveRequest__Output): MemberRemoveRequest {
  return { id: u64(r.ID) }
}

export function toDomainMemberUpdate(r: pb_MemberUpdateRequest__Output): MemberUpdateRequest {
  return { id: u64(r.ID), peerUrls: r.peerURLs }
}

export function toDomainMemberPromote(r: pb_MemberPromoteRequest__Output): MemberPromoteRequest {
  return { id: u64(r.ID) }
}

export function toPbStatusResponse(r: StatusResponse): pb_StatusResponse {
  return {
    header: toPbHeader(r.header),
    version: r.version,
    dbSize: r.dbSize,
    leader: r.leader.toString(),
    raftIndex: r.raftIndex,
    raftTerm: r.raftTerm,
    raftAppliedIndex: r.raftAppliedIndex,
    errors: r.errors,
    dbSizeInUse: r.dbSizeInUse,
    isLearner: r.isLearner,
  }
}

export function toPbHashResponse(r: HashResponse): pb_HashResponse {
  return { header: toPbHeader(r.header), hash: r.hash }
}

export function toPbHashKVResponse(r: HashKVResponse): pb_HashKVResponse {
  return { header: toPbHeader(r.header), hash: r.hash, compact_revision: r.compactRevision }
}

export function toPbSnapshotResponse(r: SnapshotChunk): pb_SnapshotResponse {
  const out: pb_SnapshotResponse = { remaining_bytes: r.remainingBytes, blob: r.blob }
  if (r.header !== undefined) out.header = toPbHeader(r.header)
  return out
}

const toPbAlarmMember = (m: AlarmMember): pb_AlarmMember => ({ memberID: m.memberId.toString(), alarm: m.alarm })

/** No header, as etcd sends none on Alarm responses. */
export function toPbAlarmResponse(r: AlarmResponse): pb_AlarmResponse {
  return { alarms: r.alarms.map(toPbAlarmMember) }
}

const toPbMember = (m: Member): pb_Member => ({
  ID: m.id.toString(), name: m.name, peerURLs: [...m.peerUrls], clientURLs: [...m.clientUrls], isLearner: m.isLearner,
})

export function toPbMemberListResponse(r: MemberListResponse): pb_MemberListResponse {
  return { header: toPbHeader(r.header), members: r.members.map(toPbMember) }
}
// ---- end Maintenance and Cluster ----

// ---- Lock and Election ----
import type { LockRequest__Output as pb_LockRequest__Output } from './generated/v3lockpb/LockRequest.js'
import type { LockResponse as pb_LockResponse } from './generated/v3lockpb/LockResponse.js'
import type { UnlockRequest__Output as pb_UnlockRequest__Output } from './generated/v3lockpb/UnlockRequest.js'
import type { UnlockResponse as pb_UnlockResponse } from './generated/v3lockpb/UnlockResponse.js'
import type { LeaderKey as pb_LeaderKey, LeaderKey__Output as pb_LeaderKey__Output } from './generated/v3electionpb/LeaderKey.js'
import type { CampaignRequest__Output as pb_CampaignRequest__Output } from './generated/v3electionpb/CampaignRequest.js'
import type { CampaignResponse as pb_CampaignResponse } from './generated/v3electionpb/CampaignResponse.js'
import type { ProclaimRequest__Output as pb_ProclaimRequest__Output } from './generated/v3electionpb/ProclaimRequest.js'
import type { ProclaimResponse as pb_ProclaimResponse } from './generated/v3electionpb/ProclaimResponse.js'
import type { LeaderRequest__Output as pb_LeaderRequest__Output } from './generated/v3electionpb/LeaderRequest.js'
import type { LeaderResponse as pb_LeaderResponse } from './generated/v3electionpb/LeaderResponse.js'
import type { ResignRequest__Output as pb_ResignRequest__Output } from './generated/v3electionpb/ResignRequest.js'
import type { ResignResponse as pb_ResignResponse } from './generated/v3electionpb/ResignResponse.js'
import type {
  CampaignRequest, CampaignResponse, LeaderKey, LeaderRequest, LeaderResponse, LockRequest, LockResponse,
  ProclaimRequest, ProclaimResponse, ResignRequest, ResignResponse, UnlockRequest, UnlockResponse,
} from '../etcdserver/types/concurrency.js'

export const toDomainLock = (r: pb_LockRequest__Output): LockRequest => ({ name: r.name, lease: big(r.lease) })
export const toPbLockResponse = (r: LockResponse): pb_LockResponse => ({ header: toPbHeader(r.header), key: r.key })
export const toDomainUnlock = (r: pb_UnlockRequest__Output): UnlockRequest => ({ key: r.key })
export const toPbUnlockResponse = (r: UnlockResponse): pb_UnlockResponse => ({ header: toPbHeader(r.header) })

/** An absent leader stays absent: Proclaim and Resign then fail with etcd's `"leader" field must be provided`. */
const toDomainLeaderKey = (l: pb_LeaderKey__Output | null): LeaderKey | undefined =>
  l === null ? undefined : { name: l.name, key: l.key, rev: num(l.rev), lease: big(l.lease) }
const toPbLeaderKey = (l: LeaderKey): pb_LeaderKey => ({ name: l.name, key: l.key, rev: l.rev, lease: l.lease.toString() })

export const toDomainCampaign = (r: pb_CampaignRequest__Output): CampaignRequest => ({ name: r.name, lease: big(r.lease), value: r.value })
export const toPbCampaignResponse = (r: CampaignResponse): pb_CampaignResponse => ({ header: toPbHeader(r.header), leader: toPbLeaderKey(r.leader) })
export function toDomainProclaim(r: pb_ProclaimRequest__Output): ProclaimRequest {
  const leader = toDomainLeaderKey(r.leader)
  return leader === undefined ? { value: r.value } : { leader, value: r.value }
}
export const toPbProclaimResponse = (r: ProclaimResponse): pb_ProclaimResponse => ({ header: toPbHeader(r.header) })
export const toDomainLeader = (r: pb_LeaderRequest__Output): LeaderRequest => ({ name: r.name })
export const toPbLeaderResponse = (r: LeaderResponse): pb_LeaderResponse => ({ header: toPbHeader(r.header), kv: toPbKeyValue(r.kv) })
export function toDomainResign(r: pb_ResignRequest__Output): ResignRequest {
  const leader = toDomainLeaderKey(r.leader)
  return leader === undefined ? {} : { leader }
}
export const toPbResignResponse = (r: ResignResponse): pb_ResignResponse => ({ header: toPbHeader(r.header) })
// ---- end Lock and Election ----

// ---- Auth ----
import { EtcdError } from '../pkg/errors.js'
import type { AuthUserAddRequest__Output as pb_AuthUserAddRequest__Output } from './generated/etcdserverpb/AuthUserAddRequest.js'
import type { AuthUserChangePasswordRequest__Output as pb_AuthUserChangePasswordRequest__Output } from './generated/etcdserverpb/AuthUserChangePasswordRequest.js'
import type { AuthRoleGrantPermissionRequest__Output as pb_AuthRoleGrantPermissionRequest__Output } from './generated/etcdserverpb/AuthRoleGrantPermissionRequest.js'
import type { AuthRoleRevokePermissionRequest__Output as pb_AuthRoleRevokePermissionRequest__Output } from './generated/etcdserverpb/AuthRoleRevokePermissionRequest.js'
import type { AuthStatusResponse as pb_AuthStatusResponse } from './generated/etcdserverpb/AuthStatusResponse.js'
import type { AuthRoleGetResponse as pb_AuthRoleGetResponse } from './generated/etcdserverpb/AuthRoleGetResponse.js'
import type { Permission as pb_Permission } from './generated/authpb/Permission.js'
import type { AuthenticateResponse as pb_AuthenticateResponse } from './generated/etcdserverpb/AuthenticateResponse.js'
import type { AuthUserGetResponse as pb_AuthUserGetResponse } from './generated/etcdserverpb/AuthUserGetResponse.js'
import type { AuthUserListResponse as pb_AuthUserListResponse } from './generated/etcdserverpb/AuthUserListResponse.js'
import type { AuthRoleListResponse as pb_AuthRoleListResponse } from './generated/etcdserverpb/AuthRoleListResponse.js'
import type {
  AuthHeaderResponse, AuthRoleGetResponse, AuthRoleGrantPermissionRequest, AuthRoleListResponse,
  AuthRoleRevokePermissionRequest, AuthStatusResponse, AuthUserAddRequest, AuthUserChangePasswordRequest,
  AuthUserGetResponse, AuthUserListResponse, AuthenticateResponse, Permission, PermissionType,
} from '../etcdserver/types/auth.js'

const PERMISSION_TYPES: readonly PermissionType[] = ['READ', 'WRITE', 'READWRITE']

/**
 * READ, WRITE or READWRITE. etcd stores any other number as given and it then grants nothing; etcdlite
 * refuses it (INVALID_PERMISSION_TYPE) rather than store a permission that cannot mean anything.
 */
function toDomainPermType(t: string | number): PermissionType {
  const known = typeof t === 'number' ? PERMISSION_TYPES[t] : PERMISSION_TYPES.find((p) => p === t)
  if (known === undefined) throw new EtcdError('INVALID_PERMISSION_TYPE')
  return known
}

export const toDomainUserAdd = (r: pb_AuthUserAddRequest__Output): AuthUserAddRequest => ({
  name: r.name,
  password: r.password,
  options: { noPassword: r.options?.no_password === true },
  // etcd 3.5 overwrites a client's hashedPassword with its own hash of `password`: it is ignored here too.
})

export const toDomainUserChangePassword = (r: pb_AuthUserChangePasswordRequest__Output): AuthUserChangePasswordRequest => ({
  name: r.name,
  password: r.password,
})

export const toDomainRoleGrantPermission = (r: pb_AuthRoleGrantPermissionRequest__Output): AuthRoleGrantPermissionRequest => ({
  name: r.name,
  perm: {
    permType: toDomainPermType(r.perm?.permType ?? 'READ'),
    key: r.perm?.key ?? new Uint8Array(0),
    rangeEnd: r.perm?.range_end ?? new Uint8Array(0),
  },
})

export const toDomainRoleRevokePermission = (r: pb_AuthRoleRevokePermissionRequest__Output): AuthRoleRevokePermissionRequest => ({
  role: r.role,
  key: r.key,
  rangeEnd: r.range_end,
})

export const toPbAuthHeaderResponse = (r: AuthHeaderResponse): { header: pb_ResponseHeader } => ({ header: toPbHeader(r.header) })

export const toPbAuthStatusResponse = (r: AuthStatusResponse): pb_AuthStatusResponse => ({
  header: toPbHeader(r.header),
  enabled: r.enabled,
  authRevision: String(r.authRevision),
})

const toPbPermission = (p: Permission): pb_Permission => ({ permType: p.permType, key: Buffer.from(p.key), range_end: Buffer.from(p.rangeEnd) })

export const toPbAuthRoleGetResponse = (r: AuthRoleGetResponse): pb_AuthRoleGetResponse => ({
  header: toPbHeader(r.header),
  perm: r.perm.map(toPbPermission),
})

export const toPbAuthenticateResponse = (r: AuthenticateResponse): pb_AuthenticateResponse => ({ header: toPbHeader(r.header), token: r.token })
export const toPbAuthUserGetResponse = (r: AuthUserGetResponse): pb_AuthUserGetResponse => ({ header: toPbHeader(r.header), roles: [...r.roles] })
export const toPbAuthUserListResponse = (r: AuthUserListResponse): pb_AuthUserListResponse => ({ header: toPbHeader(r.header), users: [...r.users] })
export const toPbAuthRoleListResponse = (r: AuthRoleListResponse): pb_AuthRoleListResponse => ({ header: toPbHeader(r.header), roles: [...r.roles] })
// ---- end Auth ----
