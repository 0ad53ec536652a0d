// The Lock and Election services' messages (v3lockpb, v3electionpb), protobuf (proto-loader objects) <->
// domain, both directions: the server reads their requests and builds their responses; the client
// (connect()) builds the requests and reads the responses.
import type {
  CampaignRequest as pb_CampaignRequest, CampaignRequest__Output as pb_CampaignRequest__Output,
} from './generated/v3electionpb/CampaignRequest.js'
import type {
  CampaignResponse as pb_CampaignResponse, CampaignResponse__Output as pb_CampaignResponse__Output,
} from './generated/v3electionpb/CampaignResponse.js'
import type { LeaderKey as pb_LeaderKey, LeaderKey__Output as pb_LeaderKey__Output } from './generated/v3electionpb/LeaderKey.js'
import type { LeaderRequest__Output as pb_LeaderRequest__Output } from './generated/v3electionpb/LeaderRequest.js'
import type { LeaderResponse as pb_LeaderResponse, LeaderResponse__Output as pb_LeaderResponse__Output } from './generated/v3electionpb/LeaderResponse.js'
import type { ProclaimRequest as pb_ProclaimRequest, ProclaimRequest__Output as pb_ProclaimRequest__Output } from './generated/v3electionpb/ProclaimRequest.js'
import type { ProclaimResponse as pb_ProclaimResponse } from './generated/v3electionpb/ProclaimResponse.js'
import type { ResignRequest as pb_ResignRequest, ResignRequest__Output as pb_ResignRequest__Output } from './generated/v3electionpb/ResignRequest.js'
import type { ResignResponse as pb_ResignResponse } from './generated/v3electionpb/ResignResponse.js'
import type { LockRequest as pb_LockRequest, LockRequest__Output as pb_LockRequest__Output } from './generated/v3lockpb/LockRequest.js'
import type { LockResponse as pb_LockResponse, LockResponse__Output as pb_LockResponse__Output } from './generated/v3lockpb/LockResponse.js'
import type { UnlockRequest__Output as pb_UnlockRequest__Output } from './generated/v3lockpb/UnlockRequest.js'
import type { UnlockResponse as pb_UnlockResponse } from './generated/v3lockpb/UnlockResponse.js'
import type {
  CampaignRequest, CampaignResponse, LeaderKey, LeaderRequest, LeaderResponse, LockRequest, LockResponse,
  ProclaimRequest, ProclaimResponse, ResignRequest, ResignResponse, UnlockRequest, UnlockResponse,
} from '../etcdserver/types/concurrency.js'
import { fromPbHeader, toPbHeader } from './convert-header.js'
import { kvOrZero, toPbKeyValue } from './convert-kv.js'
import { big, id, num, opt } from './convert-scalars.js'

const EMPTY = new Uint8Array(0)

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

export const toPbLockRequest = (r: LockRequest): pb_LockRequest => ({ name: r.name, ...opt('lease', id(r.lease)) })
export const toPbCampaignRequest = (r: CampaignRequest): pb_CampaignRequest =>
  ({ name: r.name, ...opt('lease', id(r.lease)), ...opt('value', r.value) })
export const toPbProclaimRequest = (r: ProclaimRequest): pb_ProclaimRequest =>
  ({ ...(r.leader === undefined ? {} : { leader: toPbLeaderKey(r.leader) }), ...opt('value', r.value) })
export const toPbResignRequest = (r: ResignRequest): pb_ResignRequest =>
  (r.leader === undefined ? {} : { leader: toPbLeaderKey(r.leader) })

export const fromPbLockResponse = (r: pb_LockResponse__Output): LockResponse => ({ header: fromPbHeader(r.header), key: r.key })
const fromPbLeaderKey = (l: pb_LeaderKey__Output | null): LeaderKey =>
  (l === null ? { name: EMPTY, key: EMPTY, rev: 0, lease: 0n } : { name: l.name, key: l.key, rev: num(l.rev), lease: big(l.lease) })
export const fromPbCampaignResponse = (r: pb_CampaignResponse__Output): CampaignResponse =>
  ({ header: fromPbHeader(r.header), leader: fromPbLeaderKey(r.leader) })
export const fromPbLeaderResponse = (r: pb_LeaderResponse__Output): LeaderResponse => ({ header: fromPbHeader(r.header), kv: kvOrZero(r.kv) })
