// The contract every compliance adapter implements, shaped like etcd's tests/framework Client: the KV calls
// take the DOMAIN requests of src/etcdserver/types/ and resolve to normalized DOMAIN responses (outer
// header filled: clusterId, memberId, revision, raftTerm), whatever transport sits in between.
import type { ResponseHeader } from '../../../src/etcdserver/types/header.js'
import type {
  CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse, PutRequest, PutResponse,
  RangeRequest, RangeResponse, TxnRequest, TxnResponse,
} from '../../../src/etcdserver/types/kv.js'
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseLeasesResponse,
  LeaseRevokeRequest, LeaseRevokeResponse, LeaseTimeToLiveRequest, LeaseTimeToLiveResponse,
} from '../../../src/etcdserver/types/lease.js'
import type { TestWatchStream } from '../../helpers/watch-stream.js'
// Auth
import type {
  AuthDisableResponse, AuthEnableResponse, AuthHeaderResponse, AuthRoleAddRequest, AuthRoleDeleteRequest,
  AuthRoleGetRequest, AuthRoleGetResponse, AuthRoleGrantPermissionRequest, AuthRoleListResponse,
  AuthRoleRevokePermissionRequest, AuthStatusResponse, AuthUserAddRequest, AuthUserChangePasswordRequest,
  AuthUserDeleteRequest, AuthUserGetRequest, AuthUserGetResponse, AuthUserGrantRoleRequest, AuthUserListResponse,
  AuthUserRevokeRoleRequest, AuthenticateRequest, AuthenticateResponse,
} from '../../../src/etcdserver/types/auth.js'
import type { MemberAddRequest } from '../../../src/etcdserver/types/cluster.js'

/**
 * The one error shape every adapter throws for a failed call: the gRPC status code (numeric, as in
 * `@grpc/grpc-js` `status`) and etcd's text (the status details, e.g. "etcdserver: key not found").
 * Anything else thrown by an adapter is a bug in the adapter or in the server and fails the test.
 */
export class ClientError extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
    this.name = 'ClientError'
  }
}

/**
 * A client bound to one fresh server. `close()` releases the client, every watch stream it opened and the
 * server it started.
 */
export interface EtcdTestClient {
  range(req: RangeRequest): Promise<RangeResponse>
  put(req: PutRequest): Promise<PutResponse>
  deleteRange(req: DeleteRangeRequest): Promise<DeleteRangeResponse>
  txn(req: TxnRequest): Promise<TxnResponse>
  compact(req: CompactionRequest): Promise<CompactionResponse>
  /**
   * Open a new watch stream (one gRPC Watch call, or one embedded watchStream()) on the same server.
   * Responses arrive as domain WatchResponses; a failure of the whole stream ends it (WatchStreamEnded).
   */
  watch(): TestWatchStream

  // Lease service (needs supports.lease).
  leaseGrant(req: LeaseGrantRequest): Promise<LeaseGrantResponse>
  leaseRevoke(req: LeaseRevokeRequest): Promise<LeaseRevokeResponse>
  /**
   * Send every request, in order, on ONE LeaseKeepAlive stream and resolve with one response per request
   * (etcd answers them in order), then end the stream.
   */
  leaseKeepAlive(reqs: readonly LeaseKeepAliveRequest[]): Promise<LeaseKeepAliveResponse[]>
  leaseTimeToLive(req: LeaseTimeToLiveRequest): Promise<LeaseTimeToLiveResponse>
  leaseLeases(): Promise<LeaseLeasesResponse>

  // Maintenance and Cluster services (needs supports.maintenance).
  status(): Promise<StatusResponse>
  hash(): Promise<HashResponse>
  hashKV(req: HashKvRequest): Promise<HashKvResponse>
  alarm(req: AlarmRequest): Promise<AlarmResponse>
  defragment(): Promise<DefragmentResponse>
  moveLeader(req: MoveLeaderRequest): Promise<MoveLeaderResponse>
  /** MemberList; `linearizable` is etcd 3.5's field (3.4 ignores it as an unknown field). */
  memberList(req?: MemberListRequest): Promise<MemberListResponse>
  /** etcd 3.5's Downgrade (needs supports.downgrade). */
  downgrade(req: DowngradeRequest): Promise<DowngradeResponse>

  // The Auth service (needs supports.auth). Every call acts as this client's principal: none for the client
  // a factory returns, the user for one from login(), the token for one from withToken().
  authEnable(): Promise<AuthEnableResponse>
  authDisable(): Promise<AuthDisableResponse>
  /** etcd 3.5's AuthStatus (needs supports.authStatus). */
  authStatus(): Promise<AuthStatusResponse>
  authenticate(req: AuthenticateRequest): Promise<AuthenticateResponse>
  userAdd(req: AuthUserAddRequest): Promise<AuthHeaderResponse>
  userGet(req: AuthUserGetRequest): Promise<AuthUserGetResponse>
  userList(): Promise<AuthUserListResponse>
  userDelete(req: AuthUserDeleteRequest): Promise<AuthHeaderResponse>
  userChangePassword(req: AuthUserChangePasswordRequest): Promise<AuthHeaderResponse>
  userGrantRole(req: AuthUserGrantRoleRequest): Promise<AuthHeaderResponse>
  userRevokeRole(req: AuthUserRevokeRoleRequest): Promise<AuthHeaderResponse>
  roleAdd(req: AuthRoleAddRequest): Promise<AuthHeaderResponse>
  roleGet(req: AuthRoleGetRequest): Promise<AuthRoleGetResponse>
  roleList(): Promise<AuthRoleListResponse>
  roleDelete(req: AuthRoleDeleteRequest): Promise<AuthHeaderResponse>
  roleGrantPermission(req: AuthRoleGrantPermissionRequest): Promise<AuthHeaderResponse>
  roleRevokePermission(req: AuthRoleRevokePermissionRequest): Promise<AuthHeaderResponse>
  /**
   * Authenticate as `name` (a failure rejects with ClientError, as Authenticate does) and return a client on
   * the same server whose every call, watch streams included, acts as that user, and the token it carries
   * when the adapter knows it (supports.authToken). The new client's close() releases only that client.
   */
  login(name: string, password: string): Promise<LoggedIn>
  /**
   * A client on the same server whose every call carries `token` as it is, valid or not (only with
   * supports.authToken; absent otherwise). Its close() releases only that client.
   */
  readonly withToken?: (token: string) => EtcdTestClient
  /** Cluster's MemberAdd (needs supports.memberAdd). */
  memberAdd(req: MemberAddRequest): Promise<MemberListResponse>
  /** Maintenance's Snapshot, read to the end: the number of bytes it streamed (needs supports.maintenance). */
  snapshot(): Promise<number>
  /**
   * Move the server's clock (only when the factory was asked for a short token TTL and the adapter runs the
   * server on a ManualClock: supports.manualClock).
   */
  readonly advanceTime?: (ms: number) => Promise<void>

  close(): Promise<void>
}

/** What login() resolves with. */
export interface LoggedIn {
  readonly client: EtcdTestClient
  /** The token the client sends (absent where the client library keeps it to itself, as etcd3 does). */
  readonly token?: string
}

/** How a case wants its server configured; an adapter applies what it can (see Supports). */
export interface ServerOptions {
  /** Seconds a simple token lives unused (etcd's --auth-token-ttl). */
  readonly authTokenTtl?: number
}

/** bcrypt cost every adapter's server uses: the minimum, so users and logins stay cheap. */
export const TEST_BCRYPT_COST = 4

// The suite's own shapes of the Maintenance and Cluster messages (etcd's rpc.proto, camelCase; int64
// counters as numbers, IDs as bigints). The adapters convert to them, so the suite does not depend on how
// etcdlite's embedded API spells its maintenance types. A header marked optional is one etcd 3.4 does not
// send (AlarmResponse, DefragmentResponse, MoveLeaderResponse).

export interface MemberListRequest {
  readonly linearizable?: boolean
}

/** etcd 3.5's DowngradeRequest; a number is an action value the enum does not define. */
export interface DowngradeRequest {
  /** Absent: the proto3 zero value, VALIDATE. */
  readonly action?: 'VALIDATE' | 'ENABLE' | 'CANCEL' | number
  readonly version: string
}

export interface DowngradeResponse {
  readonly header: ResponseHeader
  readonly version: string
}

export interface StatusResponse {
  readonly header: ResponseHeader
  readonly version: string
  readonly dbSize: number
  readonly leader: bigint
  readonly raftIndex: number
  readonly raftTerm: number
  readonly raftAppliedIndex: number
  readonly errors: readonly string[]
  readonly dbSizeInUse: number
  readonly isLearner: boolean
}
export interface HashResponse {
  readonly header: ResponseHeader
  readonly hash: number
}
export interface HashKvRequest {
  /** 0: the current revision. */
  readonly revision: number
}
export interface HashKvResponse {
  readonly header: ResponseHeader
  readonly hash: number
  /** -1 while nothing was ever compacted (etcd's initial compactMainRev). */
  readonly compactRevision: number
}
export type AlarmAction = 'GET' | 'ACTIVATE' | 'DEACTIVATE'
export type AlarmType = 'NONE' | 'NOSPACE' | 'CORRUPT'
export interface AlarmMember {
  readonly memberId: bigint
  readonly alarm: AlarmType
}
export interface AlarmRequest {
  readonly action: AlarmAction
  /** 0 with GET: every member. */
  readonly memberId: bigint
  /** NONE with GET: every alarm type. */
  readonly alarm: AlarmType
}
export interface AlarmResponse {
  readonly header?: ResponseHeader
  readonly alarms: readonly AlarmMember[]
}
export interface DefragmentResponse {
  readonly header?: ResponseHeader
}
export interface MoveLeaderRequest {
  readonly targetId: bigint
}
export interface MoveLeaderResponse {
  readonly header?: ResponseHeader
}
export interface Member {
  readonly id: bigint
  readonly name: string
  readonly peerUrls: readonly string[]
  readonly clientUrls: readonly string[]
  readonly isLearner: boolean
}
export interface MemberListResponse {
  readonly header: ResponseHeader
  readonly members: readonly Member[]
}

/** Starts a fresh server (empty store at revision 1) and returns a client bound to it. */
export type ClientFactory = (server?: ServerOptions) => Promise<EtcdTestClient>

/** Capabilities a case may require; an adapter lacking one skips that case with the reason. */
export interface Supports {
  /** Txns nested in RequestOp (etcd 3.3+). */
  readonly nestedTxn: boolean
  /** Writes over --max-request-bytes are refused with "etcdserver: request is too large". */
  readonly requestSizeLimit: boolean
  /** Compaction with physical=true. */
  readonly physicalCompaction: boolean
  /** The Lease service: grant, revoke, keep-alive, time-to-live, leases; puts attach keys to leases. */
  readonly lease: boolean
  /** The Maintenance service (status, hash, hashKV, alarm, defragment, moveLeader) and MemberList. */
  readonly maintenance: boolean
  /** The client hands a NOSPACE error (RESOURCE_EXHAUSTED, "database space exceeded") back to the caller. */
  readonly noSpaceErrors: boolean
  /** The Auth service and its enforcement on every service; login(). */
  readonly auth: boolean
  /** AuthStatus (etcd 3.5+; etcd 3.4 answers UNIMPLEMENTED). */
  readonly authStatus: boolean
  /** withToken(): calls carrying a raw token (a client library that manages its own token cannot). */
  readonly authToken: boolean
  /** Cluster's MemberAdd. */
  readonly memberAdd: boolean
  /** The factory honours ServerOptions.authTokenTtl on a ManualClock, and the client has advanceTime(). */
  readonly manualClock: boolean
  /** The client hands UNKNOWN errors (etcd's unmapped ones, e.g. a no-password user's Authenticate) back to the caller. */
  readonly unknownErrors: boolean
  /**
   * etcd's hardening of CVE-2026-33413 (GHSA-q8m4-xhhv-38mg, etcd 3.4.4x/3.5.28+): once auth is on, Status,
   * MemberList, listing alarms and the Lease calls need a user, MoveLeader and changing alarms the root role.
   */
  readonly authHardened: boolean
  /** etcd 3.4.23's rules before that hardening: those calls are open to anyone (the reference etcd). */
  readonly authLegacy: boolean
  /** etcd 3.5's Downgrade call (etcd 3.4 has no such call). */
  readonly downgrade: boolean
}

export type Feature = keyof Supports

/** Everything runComplianceSuite needs to know about one front end. */
export interface Adapter {
  readonly name: string
  readonly factory: ClientFactory
  readonly supports: Supports
  /** True for the real etcd: `todo` marks (known etcdlite deviations) do not apply to it. */
  readonly oracle?: boolean
  /**
   * The oracle's etcd release (e.g. "3.4.23"). A case whose `fixedIn` is a later release expects the
   * behaviour of that release and is skipped here; absent: no case is skipped for its version.
   */
  readonly etcdVersion?: string
  /** Set when the whole suite cannot run here; the text says why. */
  readonly skip?: string
  /** Cases run at once (each on its own server); default 1. */
  readonly concurrency?: number
}

export const SUPPORTS_ALL: Supports = {
  nestedTxn: true, requestSizeLimit: true, physicalCompaction: true, lease: true, maintenance: true, noSpaceErrors: true,
  // Auth
  auth: true, authStatus: true, authToken: true, memberAdd: true, manualClock: false, unknownErrors: true,
  authHardened: true, authLegacy: false,
  downgrade: true,
}
