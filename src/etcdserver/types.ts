// Domain requests and responses of the KV API: camelCase, Uint8Array keys and values, number revisions
// (checked safe at the edge), bigint IDs. Optional request fields default to etcd's proto3 zero values.
import type { Permission, PermissionType } from '../auth/permission.js'
import type { KeyValue } from '../mvcc/kv.js'
import type { WireEvent, WireWatchResponse } from '../pkg/watch-wire.js'
import type { WatchId } from '../pkg/watch-id.js'

export type { KeyValue }

export interface ResponseHeader {
  readonly clusterId: bigint
  readonly memberId: bigint
  readonly revision: number
  readonly raftTerm: number
}

export type SortOrder = 'NONE' | 'ASCEND' | 'DESCEND'
export type SortTarget = 'KEY' | 'VERSION' | 'CREATE' | 'MOD' | 'VALUE'

/**
 * Range over [key, rangeEnd). rangeEnd absent or empty: the single key `key`; rangeEnd `"\0"`: every key
 * >= key (and key `"\0"` with rangeEnd `"\0"`: every key). revision <= 0 reads the current revision.
 */
export interface RangeRequest {
  readonly key: Uint8Array
  readonly rangeEnd?: Uint8Array
  readonly limit?: number
  readonly revision?: number
  readonly sortOrder?: SortOrder
  readonly sortTarget?: SortTarget
  readonly serializable?: boolean
  readonly keysOnly?: boolean
  readonly countOnly?: boolean
  readonly minModRevision?: number
  readonly maxModRevision?: number
  readonly minCreateRevision?: number
  readonly maxCreateRevision?: number
}

export interface RangeResponse {
  readonly header: ResponseHeader
  readonly kvs: KeyValue[]
  readonly more: boolean
  readonly count: number
}

export interface PutRequest {
  readonly key: Uint8Array
  readonly value?: Uint8Array
  /** Lease ID; 0n (or absent) for none. */
  readonly lease?: bigint
  readonly prevKv?: boolean
  readonly ignoreValue?: boolean
  readonly ignoreLease?: boolean
}

export interface PutResponse {
  readonly header: ResponseHeader
  readonly prevKv?: KeyValue
}

export interface DeleteRangeRequest {
  readonly key: Uint8Array
  readonly rangeEnd?: Uint8Array
  readonly prevKv?: boolean
}

export interface DeleteRangeResponse {
  readonly header: ResponseHeader
  readonly deleted: number
  readonly prevKvs: KeyValue[]
}

/**
 * What a compare looks at. 'UNKNOWN' stands for a value the protocol does not define (a newer or broken
 * client): as in etcd, it compares nothing and counts as equal.
 */
export type CompareTarget = 'VERSION' | 'CREATE' | 'MOD' | 'VALUE' | 'LEASE' | 'UNKNOWN'
/** How a compare judges. 'UNKNOWN' stands for an undefined value: as in etcd, such a compare always holds. */
export type CompareResult = 'EQUAL' | 'GREATER' | 'LESS' | 'NOT_EQUAL' | 'UNKNOWN'

/**
 * One txn comparison. The operand is the field named by `target` (etcd's target_union); when that field
 * is absent the operand is zero (empty for VALUE), as in etcd. With rangeEnd, every key in the range must
 * satisfy the comparison. A missing key compares as a zero KeyValue, except for VALUE, which then fails.
 */
export interface Compare {
  readonly key: Uint8Array
  readonly rangeEnd?: Uint8Array
  readonly target: CompareTarget
  readonly result: CompareResult
  readonly version?: number
  readonly createRevision?: number
  readonly modRevision?: number
  readonly value?: Uint8Array
  readonly lease?: bigint
}

export type RequestOp =
  | { readonly type: 'range'; readonly request: RangeRequest }
  | { readonly type: 'put'; readonly request: PutRequest }
  | { readonly type: 'deleteRange'; readonly request: DeleteRangeRequest }
  | { readonly type: 'txn'; readonly request: TxnRequest }
  /** An op with no request set; etcd rejects it with "key not found". */
  | { readonly type: 'empty' }

export type ResponseOp =
  | { readonly type: 'range'; readonly response: RangeResponse }
  | { readonly type: 'put'; readonly response: PutResponse }
  | { readonly type: 'deleteRange'; readonly response: DeleteRangeResponse }
  | { readonly type: 'txn'; readonly response: TxnResponse }
  | { readonly type: 'empty' }

export interface TxnRequest {
  readonly compare?: readonly Compare[]
  readonly success?: readonly RequestOp[]
  readonly failure?: readonly RequestOp[]
}

export interface TxnResponse {
  readonly header: ResponseHeader
  readonly succeeded: boolean
  readonly responses: ResponseOp[]
}

export interface CompactionRequest {
  readonly revision: number
  /** Wait until the compaction has been applied to the backend. */
  readonly physical?: boolean
}

export interface CompactionResponse {
  readonly header: ResponseHeader
}

/** A watch filter: NOPUT drops PUT events, NODELETE drops DELETE events (etcd's FilterType). */
export type WatchFilter = 'NOPUT' | 'NODELETE'

/**
 * Create a watcher on a watch stream (etcd's WatchCreateRequest).
 * - key/rangeEnd: as in RangeRequest. rangeEnd absent or empty: the single key; `"\0"`: every key >= key;
 *   key empty is read as `"\0"`. key >= rangeEnd (both set) fails with "mvcc: watcher range is empty".
 * - startRevision: 0 or absent = from the next revision; <= the current revision replays history from
 *   there (below the compacted revision: a canceled response with compactRevision set); a future revision
 *   waits for it. Negative: refused with cancel_reason "etcdserver: mvcc: required revision has been
 *   compacted", as etcd does since etcd-io/etcd#20693.
 * - watchId: 0 or absent = the stream picks one (counting from 0, skipping IDs in use); another ID (any
 *   int64, negative ones too; beyond the safe integers a bigint, see WatchId) is used as is, and one already in use on the stream fails with "mvcc: duplicate watch ID provided on the
 *   WatchStream".
 * - fragment: split responses over the server's limit into several, all but the last flagged `fragment`.
 */
export interface WatchCreateRequest {
  readonly key: Uint8Array
  readonly rangeEnd?: Uint8Array
  readonly startRevision?: number
  readonly progressNotify?: boolean
  readonly filters?: readonly WatchFilter[]
  readonly prevKv?: boolean
  readonly watchId?: WatchId
  readonly fragment?: boolean
}

/** One request on a watch stream (etcd's WatchRequest oneof). */
export type WatchRequest =
  | { readonly type: 'create'; readonly request: WatchCreateRequest }
  | { readonly type: 'cancel'; readonly watchId: WatchId }
  | { readonly type: 'progress' }

export type EventType = WireEvent['type']

/**
 * A change seen by a watcher (mvccpb.Event; its wire form is pkg/watch-wire.ts). A DELETE's kv holds the
 * key and modRevision = the revision of the delete (other fields zero). prevKv: the key's value just
 * before, when the watcher asked for it and that revision is not compacted.
 */
export type WatchEvent = WireEvent

/**
 * One response on a watch stream (etcd's WatchResponse). Kinds, as etcd sends them:
 * - created: `created` true (on failure also `canceled`, watchId -1 and `cancelReason`);
 * - events: one revision's events (or up to 1000 revisions' in catch-up), in revision order;
 * - progress: no events; header.revision says everything up to it has been sent (watchId -1 when asked
 *   for with a progress request);
 * - compacted: `compactRevision` set and `canceled` true; the watcher is gone;
 * - canceled: `canceled` true after a cancel request.
 */
export interface WatchResponse extends WireWatchResponse {
  readonly header: ResponseHeader
  readonly events: readonly WatchEvent[]
}

// ---- Leases (etcd's Lease service) ----

/** Grant a lease. `id` 0n (or absent): the server picks a random positive ID. `ttl` in seconds. */
export interface LeaseGrantRequest {
  readonly ttl: number
  readonly id?: bigint
}

export interface LeaseGrantResponse {
  readonly header: ResponseHeader
  readonly id: bigint
  /** The TTL granted: the requested one, raised to the minimum TTL. */
  readonly ttl: number
  /** Always empty; etcd reports failures as errors, not here. */
  readonly error: string
}

export interface LeaseRevokeRequest {
  readonly id: bigint
}

export interface LeaseRevokeResponse {
  readonly header: ResponseHeader
}

export interface LeaseKeepAliveRequest {
  readonly id: bigint
}

/** TTL 0 means the lease does not exist (it expired or was revoked); that is not an error. */
export interface LeaseKeepAliveResponse {
  readonly header: ResponseHeader
  readonly id: bigint
  readonly ttl: number
}

export interface LeaseTimeToLiveRequest {
  readonly id: bigint
  /** Also list the keys attached to the lease. */
  readonly keys?: boolean
}

/** For an unknown lease TTL is -1 and grantedTtl 0 (not an error). */
export interface LeaseTimeToLiveResponse {
  readonly header: ResponseHeader
  readonly id: bigint
  /** Whole seconds left before expiry. */
  readonly ttl: number
  readonly grantedTtl: number
  readonly keys: Uint8Array[]
}

export interface LeaseStatus {
  readonly id: bigint
}

export interface LeaseLeasesResponse {
  readonly header: ResponseHeader
  readonly leases: LeaseStatus[]
}

// ---- Maintenance and Cluster (owned by the maintenance work; keep additions inside this section) ----

/** etcd's Status, for a one-member server. */
export interface StatusResponse {
  readonly header: ResponseHeader
  /** The etcd version reported to clients (the `etcdVersion` option). */
  readonly version: string
  /** Bytes the backend occupies (see Backend.size()). */
  readonly dbSize: number
  /** Bytes in use: LevelDB has no free pages to report, so this equals dbSize. */
  readonly dbSizeInUse: number
  /** Always this member. */
  readonly leader: bigint
  /** The current revision plus the writes that take no revision (leases, compactions, alarms). */
  readonly raftIndex: number
  readonly raftTerm: number
  /** Equal to raftIndex: what is committed is applied. */
  readonly raftAppliedIndex: number
  /** Raised alarms, in etcd's text form (`memberID:… alarm:NOSPACE `). */
  readonly errors: string[]
  readonly isLearner: boolean
}

export interface HashResponse {
  readonly header: ResponseHeader
  /** CRC-32C over every bucket of the backend. */
  readonly hash: number
}

/** HashKV up to `revision`; 0 (or absent) means the current revision. */
export interface HashKVRequest {
  readonly revision?: number
}

export interface HashKVResponse {
  /** header.revision is the current revision, as etcd reports it. */
  readonly header: ResponseHeader
  readonly hash: number
  /** The compacted revision (-1 before any compaction). */
  readonly compactRevision: number
}

/**
 * One chunk of a snapshot stream. The first chunk carries the header; `remainingBytes` counts the data
 * still to come; the last chunk holds the SHA-256 of everything before it, with `remainingBytes` 0.
 */
export interface SnapshotChunk {
  readonly header?: ResponseHeader
  readonly remainingBytes: number
  readonly blob: Uint8Array
}

export type AlarmType = 'NONE' | 'NOSPACE' | 'CORRUPT'
export type AlarmAction = 'GET' | 'ACTIVATE' | 'DEACTIVATE'

/** An alarm raised for a member. */
export interface AlarmMember {
  readonly memberId: bigint
  readonly alarm: AlarmType
}

/**
 * GET lists raised alarms of `alarm` (NONE or absent: all); ACTIVATE raises `alarm` for `memberId` (NONE
 * raises nothing); DEACTIVATE clears it.
 */
export interface AlarmRequest {
  readonly action: AlarmAction
  readonly memberId?: bigint
  readonly alarm?: AlarmType
}

/** As in etcd the response carries no header. */
export interface AlarmResponse {
  /** GET: the alarms; ACTIVATE/DEACTIVATE: the alarm raised or cleared (none if nothing changed). */
  readonly alarms: AlarmMember[]
}

export interface MoveLeaderRequest {
  readonly targetId: bigint
}

/** A cluster member as MemberList shows it. */
export interface Member {
  readonly id: bigint
  readonly name: string
  readonly peerUrls: readonly string[]
  readonly clientUrls: readonly string[]
  readonly isLearner: boolean
}

/**
 * MemberList. `linearizable` (etcd 3.5) asks for the list only after a linearizable read barrier; a
 * one-member server's list is always current, so it changes nothing but is accepted.
 */
export interface MemberListRequest {
  readonly linearizable?: boolean
}

/** What a Downgrade call asks for (etcd 3.5's DowngradeRequest.DowngradeAction). */
export type DowngradeAction = 'VALIDATE' | 'ENABLE' | 'CANCEL'

/**
 * Downgrade: VALIDATE checks that `version` is the allowed target (one minor version below the cluster
 * version, given as major.minor or a full version) and that no downgrade is in progress; ENABLE checks
 * the same and starts it; CANCEL stops it. `action` defaults to VALIDATE and `version` to "", as on the
 * wire. A number is an action etcd's enum does not define (only the wire carries one): UNKNOWN_METHOD.
 */
export interface DowngradeRequest {
  readonly action?: DowngradeAction | number
  readonly version?: string
}

/** The cluster version (major.minor.0) when a downgrade was validated. */
export interface DowngradeResponse {
  readonly header: ResponseHeader
  readonly version: string
}

/** etcd's membership.DowngradeInfo: whether a downgrade is enabled, and to which cluster version. */
export interface DowngradeInfo {
  readonly enabled: boolean
  /** The target cluster version (major.minor.0); "" when not enabled. */
  readonly targetVersion: string
}

/** MemberList's header has no revision, as etcd's cluster service sends it. */
export interface MemberListResponse {
  readonly header: ResponseHeader
  readonly members: Member[]
}

export interface MemberAddRequest {
  readonly peerUrls: readonly string[]
  readonly isLearner?: boolean
}

export interface MemberRemoveRequest {
  readonly id: bigint
}

export interface MemberUpdateRequest {
  readonly id: bigint
  readonly peerUrls: readonly string[]
}

export interface MemberPromoteRequest {
  readonly id: bigint
}
// ---- end Maintenance and Cluster ----

// ---- Lock and Election (owned by the v3lock/v3election work; keep additions inside this section) ----

/**
 * Acquire the lock `name` (etcd's v3lock Lock). The lock key is `name + "/" + lease ID in hex`, attached to
 * the lease, so the lock goes away with the lease. `lease` 0n (or absent): the server grants a 60 s lease
 * of its own and never renews it, as etcd does.
 */
export interface LockRequest {
  readonly name: Uint8Array
  readonly lease?: bigint
}

export interface LockResponse {
  readonly header: ResponseHeader
  /** The key that exists while the caller holds the lock; Unlock takes it. */
  readonly key: Uint8Array
}

export interface UnlockRequest {
  readonly key: Uint8Array
}

export interface UnlockResponse {
  readonly header: ResponseHeader
}

/** A leadership (etcd's v3election LeaderKey): what Campaign returns and Proclaim and Resign take. */
export interface LeaderKey {
  /** The election name. */
  readonly name: Uint8Array
  /** The candidate key: `name + "/" + lease ID in hex`. */
  readonly key: Uint8Array
  /** The candidate key's create revision; Proclaim and Resign act only while the key still has it. */
  readonly rev: number
  readonly lease: bigint
}

/** Campaign in election `name` with `value`. `lease` 0n (or absent): a 60 s server-granted lease, as in etcd. */
export interface CampaignRequest {
  readonly name: Uint8Array
  readonly lease?: bigint
  readonly value?: Uint8Array
}

export interface CampaignResponse {
  readonly header: ResponseHeader
  readonly leader: LeaderKey
}

/** Set the leader's value; `leader` absent fails with etcd's `"leader" field must be provided`. */
export interface ProclaimRequest {
  readonly leader?: LeaderKey
  readonly value?: Uint8Array
}

export interface ProclaimResponse {
  readonly header: ResponseHeader
}

/** Leader and Observe: the election `name`. */
export interface LeaderRequest {
  readonly name: Uint8Array
}

/** The leader: the candidate key with the lowest create revision under `name + "/"`. */
export interface LeaderResponse {
  readonly header: ResponseHeader
  readonly kv: KeyValue
}

export interface ResignRequest {
  readonly leader?: LeaderKey
}

export interface ResignResponse {
  readonly header: ResponseHeader
}
// ---- end Lock and Election ----

// ---- Auth (etcd's Auth service; names as rpc.proto and authpb, camelCase) ----

export type { Permission, PermissionType }

export interface AuthEnableResponse {
  readonly header: ResponseHeader
}
export interface AuthDisableResponse {
  readonly header: ResponseHeader
}
export interface AuthStatusResponse {
  readonly header: ResponseHeader
  readonly enabled: boolean
  /** Bumped by every change of users, roles, permissions or the enabled flag. */
  readonly authRevision: number
}
export interface AuthenticateRequest {
  readonly name: string
  readonly password: string
}
export interface AuthenticateResponse {
  readonly header: ResponseHeader
  /** Send it as the `token` metadata (embedded: `etcd.withToken(token)`). */
  readonly token: string
}
export interface AuthUserAddRequest {
  readonly name: string
  readonly password: string
  /** noPassword: the user cannot authenticate with a password (only with a TLS certificate's CN). */
  readonly options?: { readonly noPassword: boolean }
}
export interface AuthUserGetRequest {
  readonly name: string
}
export interface AuthUserGetResponse {
  readonly header: ResponseHeader
  /** Sorted. */
  readonly roles: readonly string[]
}
export interface AuthUserListResponse {
  readonly header: ResponseHeader
  /** Sorted. */
  readonly users: readonly string[]
}
export interface AuthUserDeleteRequest {
  readonly name: string
}
export interface AuthUserChangePasswordRequest {
  readonly name: string
  readonly password: string
}
export interface AuthUserGrantRoleRequest {
  /** Named `user` here, `name` in the revoke request, as in etcd's rpc.proto. */
  readonly user: string
  readonly role: string
}
export interface AuthUserRevokeRoleRequest {
  readonly name: string
  readonly role: string
}
export interface AuthRoleAddRequest {
  readonly name: string
}
export interface AuthRoleGetRequest {
  readonly role: string
}
export interface AuthRoleGetResponse {
  readonly header: ResponseHeader
  /** Sorted by key. */
  readonly perm: readonly Permission[]
}
export interface AuthRoleListResponse {
  readonly header: ResponseHeader
  /** Sorted. */
  readonly roles: readonly string[]
}
export interface AuthRoleDeleteRequest {
  readonly role: string
}
export interface AuthRoleGrantPermissionRequest {
  /** The role. */
  readonly name: string
  readonly perm: Permission
}
export interface AuthRoleRevokePermissionRequest {
  readonly role: string
  readonly key: Uint8Array
  readonly rangeEnd: Uint8Array
}
/** The response of every auth call that returns only a header. */
export interface AuthHeaderResponse {
  readonly header: ResponseHeader
}
// ---- end Auth ----

// ---- Call credentials ----

/**
 * Who is calling, as the transport saw it: the `token` metadata of a gRPC call (or the token of an embedded
 * `withToken()` view), and the common name of a client certificate that the listener verified (only with
 * --client-cert-auth). A token wins over the certificate, as in etcd's AuthInfoFromCtx.
 */
export interface CallCredentials {
  readonly token?: string | undefined
  readonly commonName?: string | undefined
}
// ---- end Call credentials ----
