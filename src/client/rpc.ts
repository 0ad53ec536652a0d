// The client's methods: path and (de)serializers of each, from the package definition the server is built
// from (grpc/proto.ts), typed with the generated message types.
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js'
import { loadEtcdPackageDefinition } from '../grpc/proto.js'
import type { RangeRequest as ReqRange } from '../grpc/generated/etcdserverpb/RangeRequest.js'
import type { RangeResponse__Output as ResRange } from '../grpc/generated/etcdserverpb/RangeResponse.js'
import type { PutRequest as ReqPut } from '../grpc/generated/etcdserverpb/PutRequest.js'
import type { PutResponse__Output as ResPut } from '../grpc/generated/etcdserverpb/PutResponse.js'
import type { DeleteRangeRequest as ReqDelete } from '../grpc/generated/etcdserverpb/DeleteRangeRequest.js'
import type { DeleteRangeResponse__Output as ResDelete } from '../grpc/generated/etcdserverpb/DeleteRangeResponse.js'
import type { TxnRequest as ReqTxn } from '../grpc/generated/etcdserverpb/TxnRequest.js'
import type { TxnResponse__Output as ResTxn } from '../grpc/generated/etcdserverpb/TxnResponse.js'
import type { CompactionRequest as ReqCompact } from '../grpc/generated/etcdserverpb/CompactionRequest.js'
import type { CompactionResponse__Output as ResCompact } from '../grpc/generated/etcdserverpb/CompactionResponse.js'
import type { WatchRequest as ReqWatch } from '../grpc/generated/etcdserverpb/WatchRequest.js'
import type { WatchResponse__Output as ResWatch } from '../grpc/generated/etcdserverpb/WatchResponse.js'
import type { LeaseGrantRequest as ReqGrant } from '../grpc/generated/etcdserverpb/LeaseGrantRequest.js'
import type { LeaseGrantResponse__Output as ResGrant } from '../grpc/generated/etcdserverpb/LeaseGrantResponse.js'
import type { LeaseRevokeResponse__Output as ResRevoke } from '../grpc/generated/etcdserverpb/LeaseRevokeResponse.js'
import type { LeaseKeepAliveResponse__Output as ResKeepAlive } from '../grpc/generated/etcdserverpb/LeaseKeepAliveResponse.js'
import type { LeaseTimeToLiveRequest as ReqTtl } from '../grpc/generated/etcdserverpb/LeaseTimeToLiveRequest.js'
import type { LeaseTimeToLiveResponse__Output as ResTtl } from '../grpc/generated/etcdserverpb/LeaseTimeToLiveResponse.js'
import type { LeaseLeasesResponse__Output as ResLeases } from '../grpc/generated/etcdserverpb/LeaseLeasesResponse.js'
import type { StatusResponse__Output as ResStatus } from '../grpc/generated/etcdserverpb/StatusResponse.js'
import type { HashKVRequest as ReqHashKV } from '../grpc/generated/etcdserverpb/HashKVRequest.js'
import type { HashKVResponse__Output as ResHashKV } from '../grpc/generated/etcdserverpb/HashKVResponse.js'
import type { DowngradeRequest as ReqDowngrade } from '../grpc/generated/etcdserverpb/DowngradeRequest.js'
import type { DowngradeResponse__Output as ResDowngrade } from '../grpc/generated/etcdserverpb/DowngradeResponse.js'
import type { AuthenticateRequest as ReqAuth } from '../grpc/generated/etcdserverpb/AuthenticateRequest.js'
import type { AuthenticateResponse__Output as ResAuth } from '../grpc/generated/etcdserverpb/AuthenticateResponse.js'
import type { LockRequest as ReqLock } from '../grpc/generated/v3lockpb/LockRequest.js'
import type { LockResponse__Output as ResLock } from '../grpc/generated/v3lockpb/LockResponse.js'
import type { UnlockRequest as ReqUnlock } from '../grpc/generated/v3lockpb/UnlockRequest.js'
import type { CampaignRequest as ReqCampaign } from '../grpc/generated/v3electionpb/CampaignRequest.js'
import type { CampaignResponse__Output as ResCampaign } from '../grpc/generated/v3electionpb/CampaignResponse.js'
import type { ProclaimRequest as ReqProclaim } from '../grpc/generated/v3electionpb/ProclaimRequest.js'
import type { LeaderRequest as ReqLeader } from '../grpc/generated/v3electionpb/LeaderRequest.js'
import type { LeaderResponse__Output as ResLeader } from '../grpc/generated/v3electionpb/LeaderResponse.js'
import type { ResignRequest as ReqResign } from '../grpc/generated/v3electionpb/ResignRequest.js'
import type { HeaderOnly } from '../grpc/convert-header.js'

export interface Rpc<Req, Res> {
  readonly path: string
  readonly serialize: (req: Req) => Buffer
  readonly deserialize: (bytes: Buffer) => Res
}

type Empty = Record<string, never>

function method<Req, Res>(service: string, name: string): Rpc<Req, Res> {
  const def = loadEtcdPackageDefinition()[service] as ServiceDefinition | undefined
  const m = def?.[name] as MethodDefinition<Req, Res> | undefined
  if (m === undefined) throw new Error(`etcdlite: the protos lack ${service}.${name}`)
  return { path: m.path, serialize: m.requestSerialize, deserialize: m.responseDeserialize }
}

function table() {
  const kv = 'etcdserverpb.KV'
  const lease = 'etcdserverpb.Lease'
  const election = 'v3electionpb.Election'
  return {
    range: method<ReqRange, ResRange>(kv, 'Range'),
    put: method<ReqPut, ResPut>(kv, 'Put'),
    deleteRange: method<ReqDelete, ResDelete>(kv, 'DeleteRange'),
    txn: method<ReqTxn, ResTxn>(kv, 'Txn'),
    compact: method<ReqCompact, ResCompact>(kv, 'Compact'),
    watch: method<ReqWatch, ResWatch>('etcdserverpb.Watch', 'Watch'),
    leaseGrant: method<ReqGrant, ResGrant>(lease, 'LeaseGrant'),
    leaseRevoke: method<{ ID: string }, ResRevoke>(lease, 'LeaseRevoke'),
    leaseKeepAlive: method<{ ID: string }, ResKeepAlive>(lease, 'LeaseKeepAlive'),
    leaseTimeToLive: method<ReqTtl, ResTtl>(lease, 'LeaseTimeToLive'),
    leaseLeases: method<Empty, ResLeases>(lease, 'LeaseLeases'),
    status: method<Empty, ResStatus>('etcdserverpb.Maintenance', 'Status'),
    hashKV: method<ReqHashKV, ResHashKV>('etcdserverpb.Maintenance', 'HashKV'),
    downgrade: method<ReqDowngrade, ResDowngrade>('etcdserverpb.Maintenance', 'Downgrade'),
    authenticate: method<ReqAuth, ResAuth>('etcdserverpb.Auth', 'Authenticate'),
    lock: method<ReqLock, ResLock>('v3lockpb.Lock', 'Lock'),
    unlock: method<ReqUnlock, HeaderOnly>('v3lockpb.Lock', 'Unlock'),
    campaign: method<ReqCampaign, ResCampaign>(election, 'Campaign'),
    proclaim: method<ReqProclaim, HeaderOnly>(election, 'Proclaim'),
    leader: method<ReqLeader, ResLeader>(election, 'Leader'),
    observe: method<ReqLeader, ResLeader>(election, 'Observe'),
    resign: method<ReqResign, HeaderOnly>(election, 'Resign'),
  }
}

export type RpcTable = ReturnType<typeof table>

let cached: RpcTable | undefined

/** Every method the client calls (loaded once, at the first connect()). */
export function rpcs(): RpcTable {
  cached ??= table()
  return cached
}
