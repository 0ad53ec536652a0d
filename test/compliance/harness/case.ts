// The data model of the compliance cases and the small builders the case tables are written with.
// A case is a list of steps on a fresh server (revision 1). A KV step is one KV call and, optionally,
// the exact response (`want`) or the exact error (`err`) it must produce; KV steps with neither must
// simply succeed (seed data). A watch step acts on a named watch stream (opened on first use): send a
// request, take the next responses and compare them, or check that nothing arrives for a moment.
// Bytes are written as latin1 strings, so '\x00' and '\xff' are single bytes.
import { status } from '@grpc/grpc-js'
import type { ResponseHeader } from '../../../src/etcdserver/types/header.js'
import type {
  CompactionRequest, CompactionResponse, Compare, DeleteRangeRequest, DeleteRangeResponse, KeyValue, PutRequest,
  PutResponse, RangeRequest, RangeResponse, RequestOp, ResponseOp, TxnRequest, TxnResponse,
} from '../../../src/etcdserver/types/kv.js'
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseLeasesResponse,
  LeaseRevokeRequest, LeaseRevokeResponse, LeaseTimeToLiveRequest, LeaseTimeToLiveResponse,
} from '../../../src/etcdserver/types/lease.js'
import type { WatchRequest, WatchResponse } from '../../../src/etcdserver/types/watch.js'
import type {
  AlarmRequest, AlarmResponse, DefragmentResponse, DowngradeRequest, DowngradeResponse, Feature, HashKvRequest,
  HashKvResponse, HashResponse, MemberListRequest, MemberListResponse, MoveLeaderRequest, MoveLeaderResponse, StatusResponse,
} from './client.js'
import type { Loose, Matcher } from './match.js'
// Auth
import type {
  AuthDisableResponse, AuthEnableResponse, AuthHeaderResponse, AuthRoleAddRequest, AuthRoleDeleteRequest,
  AuthRoleGetRequest, AuthRoleGetResponse, AuthRoleGrantPermissionRequest, AuthRoleListResponse,
  AuthRoleRevokePermissionRequest, AuthStatusResponse, AuthUserAddRequest, AuthUserChangePasswordRequest,
  AuthUserDeleteRequest, AuthUserGetRequest, AuthUserGetResponse, AuthUserGrantRoleRequest, AuthUserListResponse,
  AuthUserRevokeRoleRequest, AuthenticateRequest, AuthenticateResponse,
} from '../../../src/etcdserver/types/auth.js'
import type { EtcdTestClient, ServerOptions } from './client.js'

/** A value as the suite compares it: bytes become latin1 strings, undefined fields disappear. */
export type View<T> = T extends Uint8Array
  ? string
  : T extends bigint | number | string | boolean | undefined
    ? T
    : T extends readonly (infer E)[]
      ? View<E>[]
      : { readonly [K in keyof T]: View<T[K]> }

/** An outer response as compared: everything but the header, plus the header's revision as `rev`. */
export type Want<R extends { readonly header: ResponseHeader }> = Omit<View<R>, 'header'> & { readonly rev: number }

export interface WantError {
  readonly code: number
  readonly message: string
}

interface Check<R extends { readonly header: ResponseHeader }> {
  readonly want?: Want<R>
  readonly err?: WantError
}

export type KvStep =
  | ({ readonly range: RangeRequest } & Check<RangeResponse>)
  | ({ readonly put: PutRequest } & Check<PutResponse>)
  | ({ readonly deleteRange: DeleteRangeRequest } & Check<DeleteRangeResponse>)
  | ({ readonly txn: TxnRequest } & Check<TxnResponse>)
  | ({ readonly compact: CompactionRequest } & Check<CompactionResponse>)

/** A watch response as compared: everything but the header, plus the header's revision as `rev`. */
export type WantWatch = Want<WatchResponse>

/**
 * A step on the watch stream named `stream` (a stream is opened on its first step and closed when the
 * case ends). Every response taken has its header checked like a KV header (same cluster, member and
 * raft term as the rest of the case).
 * - send: write one request; nothing is awaited.
 * - expect: take the next `expect.length` responses and compare them in order, or as a multiset with
 *   `anyOrder` (responses of different watchers for the same revision come in no defined order).
 * - silentMs: no response may arrive within this many ms. Only where etcd guarantees silence and no
 *   later response can prove it; keep it short and rare.
 * - close: end the stream from the client side.
 */
export type WatchStep =
  | { readonly stream: string; readonly send: WatchRequest }
  | { readonly stream: string; readonly expect: readonly WantWatch[]; readonly anyOrder?: boolean }
  | { readonly stream: string; readonly silentMs: number }
  | { readonly stream: string; readonly close: true }

/** The raft term a freshly bootstrapped single-member etcd reports (it campaigns once, from term 1). */
export const FRESH_RAFT_TERM = 2

/** The compared `rev` of a response that etcd sent without a header (etcd 3.4: Alarm, Defragment, MoveLeader). */
export const NO_HEADER = 'no header'

/**
 * A lease or maintenance response as a case expects it: like Want, but any field may be a Matcher
 * (match.ts) for values that are not constants: IDs the server picks, hashes, sizes, a counting-down TTL.
 */
export type LooseWant<R extends { readonly header?: ResponseHeader }> = {
  readonly [K in keyof Omit<R, 'header'>]: Loose<Omit<R, 'header'>[K]>
} & { readonly rev: number | typeof NO_HEADER | Matcher }

interface LooseCheck<R extends { readonly header?: ResponseHeader }> {
  readonly want?: LooseWant<R>
  readonly err?: WantError
}

/** An ID in a request: a literal, or the value an earlier step of the case captured (match.ts capture()). */
export interface Saved {
  readonly saved: string
}
export type IdRef = bigint | Saved
/** A request whose `key` field may name a captured value instead of a literal ID. */
export type WithRef<T, K extends keyof T> = Omit<T, K> & { readonly [P in K]: IdRef }

/**
 * One call of the Lease service. leaseKeepAlive sends its requests in order on one stream and compares
 * the responses in order. leaseTimeToLive keys and leaseLeases leases are compared sorted (by bytes, by
 * ID): etcd returns them in map order and in expiry order.
 */
export type LeaseStep =
  | ({ readonly leaseGrant: LeaseGrantRequest } & LooseCheck<LeaseGrantResponse>)
  | ({ readonly leaseRevoke: WithRef<LeaseRevokeRequest, 'id'> } & LooseCheck<LeaseRevokeResponse>)
  | {
    readonly leaseKeepAlive: readonly WithRef<LeaseKeepAliveRequest, 'id'>[]
    readonly want?: readonly LooseWant<LeaseKeepAliveResponse>[]
    readonly err?: WantError
  }
  | ({ readonly leaseTimeToLive: WithRef<LeaseTimeToLiveRequest, 'id'> } & LooseCheck<LeaseTimeToLiveResponse>)
  | ({ readonly leaseLeases: true } & LooseCheck<LeaseLeasesResponse>)

/** One call of the Maintenance service, or Cluster's MemberList. */
export type MaintenanceStep =
  | ({ readonly status: true } & LooseCheck<StatusResponse>)
  | ({ readonly hash: true } & LooseCheck<HashResponse>)
  | ({ readonly hashKV: HashKvRequest } & LooseCheck<HashKvResponse>)
  | ({ readonly alarm: WithRef<AlarmRequest, 'memberId'> } & LooseCheck<AlarmResponse>)
  | ({ readonly defragment: true } & LooseCheck<DefragmentResponse>)
  | ({ readonly moveLeader: WithRef<MoveLeaderRequest, 'targetId'> } & LooseCheck<MoveLeaderResponse>)
  | ({ readonly memberList: true | MemberListRequest } & LooseCheck<MemberListResponse>)
  | ({ readonly downgrade: DowngradeRequest } & LooseCheck<DowngradeResponse>)

/** Names the client a step runs on: a principal an earlier login or useToken step made; absent: the case's own client. */
interface As {
  readonly as?: string
}
interface AuthCheck<R extends { readonly header?: ResponseHeader }> {
  readonly want?: LooseWant<R>
  readonly err?: WantError
}

/** One call of the Auth service, on the case's own client or (`as`) on a principal's. */
export type AuthCallStep = As & (
  | ({ readonly authEnable: true } & AuthCheck<AuthEnableResponse>)
  | ({ readonly authDisable: true } & AuthCheck<AuthDisableResponse>)
  | ({ readonly authStatus: true } & AuthCheck<AuthStatusResponse>)
  | ({ readonly authenticate: AuthenticateRequest } & AuthCheck<AuthenticateResponse>)
  | ({ readonly userAdd: AuthUserAddRequest } & AuthCheck<AuthHeaderResponse>)
  | ({ readonly userGet: AuthUserGetRequest } & AuthCheck<AuthUserGetResponse>)
  | ({ readonly userList: true } & AuthCheck<AuthUserListResponse>)
  | ({ readonly userDelete: AuthUserDeleteRequest } & AuthCheck<AuthHeaderResponse>)
  | ({ readonly userChangePassword: AuthUserChangePasswordRequest } & AuthCheck<AuthHeaderResponse>)
  | ({ readonly userGrantRole: AuthUserGrantRoleRequest } & AuthCheck<AuthHeaderResponse>)
  | ({ readonly userRevokeRole: AuthUserRevokeRoleRequest } & AuthCheck<AuthHeaderResponse>)
  | ({ readonly roleAdd: AuthRoleAddRequest } & AuthCheck<AuthHeaderResponse>)
  | ({ readonly roleGet: AuthRoleGetRequest } & AuthCheck<AuthRoleGetResponse>)
  | ({ readonly roleList: true } & AuthCheck<AuthRoleListResponse>)
  | ({ readonly roleDelete: AuthRoleDeleteRequest } & AuthCheck<AuthHeaderResponse>)
  | ({ readonly roleGrantPermission: AuthRoleGrantPermissionRequest } & AuthCheck<AuthHeaderResponse>)
  | ({ readonly roleRevokePermission: AuthRoleRevokePermissionRequest } & AuthCheck<AuthHeaderResponse>)
)

/** One cell of a permission matrix: an operation and what it must give ('ok', or the exact error). */
export interface MatrixCell {
  /** The operation, as a failure table names it (e.g. "range [a, c)"). */
  readonly name: string
  /** Run it on a principal's client: resolve on success, reject with ClientError on failure. */
  readonly run: (c: EtcdTestClient) => Promise<void>
  readonly want: 'ok' | WantError
}

/** The cells one principal runs (`as` absent: the case's own client, which has no credentials). */
export interface MatrixRow {
  readonly as?: string
  readonly cells: readonly MatrixCell[]
}

/**
 * The steps of the auth part (auth-steps.ts runs them):
 * - an Auth call (AuthCallStep);
 * - login: Authenticate as `login` through the case's client (or principal `via`) and keep a client acting as
 *   that user under the principal name `name` (default: the user's name); with `err`, the login must fail so;
 * - useToken: a principal whose calls carry this literal token, or the token principal `of` logged in with
 *   (needs supports.authToken);
 * - logout: close a principal's client;
 * - as: run any other step (KV, watch, lease, maintenance) as a principal; its watch streams are the
 *   principal's own;
 * - matrix: run every row's cells as its principal, in order, and report every cell that differs in one table;
 * - expireToken: let principal `expireToken`'s token go unused until the server's token TTL (`ttl` seconds)
 *   has passed: a ManualClock adapter moves its clock; otherwise fresh tokens of the same user (made right
 *   after its last use, so they expire no sooner) are probed one by one until one is refused;
 * - advanceMs: move the server's ManualClock (needs supports.manualClock).
 */
export type AuthStep =
  | AuthCallStep
  | { readonly login: string; readonly password: string; readonly name?: string; readonly via?: string; readonly err?: WantError }
  | { readonly useToken: string | { readonly of: string }; readonly name: string }
  | { readonly logout: string }
  | { readonly as: string; readonly step: KvStep | WatchStep | LeaseStep | MaintenanceStep }
  | { readonly matrix: readonly MatrixRow[] }
  | { readonly expireToken: string; readonly user: string; readonly password: string; readonly ttl: number }
  | { readonly advanceMs: number }

export type Step = KvStep | WatchStep | LeaseStep | MaintenanceStep | AuthStep

export interface Case {
  /** States the behaviour, e.g. "range with limit sets more and counts every match". */
  readonly name: string
  readonly steps: readonly Step[]
  /** Capabilities the case needs; adapters without them skip it. */
  readonly requires?: readonly Feature[]
  /** A known etcdlite deviation from etcd (reported); ignored by the oracle, which must pass it. */
  readonly todo?: string
  /**
   * The case expects the behaviour of a later etcd release than the oracle may run (etcdlite follows
   * that release on purpose): an oracle older than `version` skips the case, saying `why`.
   */
  readonly fixedIn?: { readonly version: string; readonly why: string }
  /** How the case's server is configured (e.g. a short token TTL); absent: the adapter's defaults. */
  readonly server?: ServerOptions
  /**
   * etcdlite differs on purpose from every etcd release known (e.g. it closes a hole etcd leaves open): the
   * oracle skips the case, saying why.
   */
  readonly deviation?: string
}

// Builders

/** Bytes from a latin1 string, as a plain Uint8Array (not a Buffer: the domain type is Uint8Array). */
export const b = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))

/** A KeyValue as the suite compares it. */
export const kv = (key: string, value: string, createRevision: number, modRevision: number, version: number, lease = 0n): View<KeyValue> =>
  ({ key, createRevision, modRevision, version, value, lease })

/** The header of a response nested in a txn: etcd fills only the revision there. */
export const ih = (revision: number): ResponseHeader => ({ clusterId: 0n, memberId: 0n, revision, raftTerm: 0 })

/** The ID an earlier step captured as `name` (match.ts capture()), for a request. */
export const saved = (name: string): Saved => ({ saved: name })

/** Seed puts: key=value pairs in order, each must succeed. */
export const puts = (...pairs: readonly (readonly [string, string])[]): Step[] =>
  pairs.map(([k, v]) => ({ put: { key: b(k), value: b(v) } }))

// RequestOp builders for txns.
export const opRange = (request: RangeRequest): RequestOp => ({ type: 'range', request })
export const opPut = (key: string, value: string, o: Omit<PutRequest, 'key' | 'value'> = {}): RequestOp =>
  ({ type: 'put', request: { ...o, key: b(key), value: b(value) } })
export const opDel = (key: string, rangeEnd?: string, o: Omit<DeleteRangeRequest, 'key' | 'rangeEnd'> = {}): RequestOp =>
  ({ type: 'deleteRange', request: rangeEnd === undefined ? { ...o, key: b(key) } : { ...o, key: b(key), rangeEnd: b(rangeEnd) } })
export const opTxn = (request: TxnRequest): RequestOp => ({ type: 'txn', request })

/** A compare on one key (or [key, rangeEnd)) with the operand in the field `target` names. */
export function cmp(key: string, target: Compare['target'], result: Compare['result'], operand: number | bigint | string, rangeEnd?: string): Compare {
  const base = rangeEnd === undefined ? { key: b(key), target, result } : { key: b(key), rangeEnd: b(rangeEnd), target, result }
  switch (target) {
    case 'VERSION': return { ...base, version: Number(operand) }
    case 'CREATE': return { ...base, createRevision: Number(operand) }
    case 'MOD': return { ...base, modRevision: Number(operand) }
    case 'VALUE': return { ...base, value: b(String(operand)) }
    case 'LEASE': return { ...base, lease: BigInt(operand) }
    case 'UNKNOWN': return base
  }
}

// Expected inner responses (View form).
export const rPut = (revision: number, prevKv?: View<KeyValue>): View<ResponseOp> =>
  ({ type: 'put', response: prevKv === undefined ? { header: ih(revision) } : { header: ih(revision), prevKv } })
export const rRange = (revision: number, kvs: View<KeyValue>[], count = kvs.length, more = false): View<ResponseOp> =>
  ({ type: 'range', response: { header: ih(revision), kvs, more, count } })
export const rDel = (revision: number, deleted: number, prevKvs: View<KeyValue>[] = []): View<ResponseOp> =>
  ({ type: 'deleteRange', response: { header: ih(revision), deleted, prevKvs } })
export const rTxn = (succeeded: boolean, responses: View<ResponseOp>[]): View<ResponseOp> =>
  ({ type: 'txn', response: { header: ih(0), succeeded, responses } })

// etcd's errors, verbatim (rpctypes), with their gRPC status.
export const ERR = {
  emptyKey: { code: status.INVALID_ARGUMENT, message: 'etcdserver: key is not provided' },
  keyNotFound: { code: status.INVALID_ARGUMENT, message: 'etcdserver: key not found' },
  valueProvided: { code: status.INVALID_ARGUMENT, message: 'etcdserver: value is provided' },
  leaseProvided: { code: status.INVALID_ARGUMENT, message: 'etcdserver: lease is provided' },
  tooManyOps: { code: status.INVALID_ARGUMENT, message: 'etcdserver: too many operations in txn request' },
  duplicateKey: { code: status.INVALID_ARGUMENT, message: 'etcdserver: duplicate key given in txn request' },
  requestTooLarge: { code: status.INVALID_ARGUMENT, message: 'etcdserver: request is too large' },
  compacted: { code: status.OUT_OF_RANGE, message: 'etcdserver: mvcc: required revision has been compacted' },
  futureRev: { code: status.OUT_OF_RANGE, message: 'etcdserver: mvcc: required revision is a future revision' },
  leaseNotFound: { code: status.NOT_FOUND, message: 'etcdserver: requested lease not found' },
  leaseExists: { code: status.FAILED_PRECONDITION, message: 'etcdserver: lease already exists' },
  leaseTtlTooLarge: { code: status.OUT_OF_RANGE, message: 'etcdserver: too large lease TTL' },
  noSpace: { code: status.RESOURCE_EXHAUSTED, message: 'etcdserver: mvcc: database space exceeded' },
  badLeaderTransferee: { code: status.FAILED_PRECONDITION, message: 'etcdserver: bad leader transferee' },
  // Downgrade (etcd 3.5's rpctypes; unknown method and the request timeout are etcdserver's own errors)
  wrongDowngradeVersionFormat: { code: status.INVALID_ARGUMENT, message: 'etcdserver: wrong downgrade target version format' },
  invalidDowngradeTargetVersion: { code: status.INVALID_ARGUMENT, message: 'etcdserver: invalid downgrade target version' },
  downgradeInProcess: { code: status.FAILED_PRECONDITION, message: 'etcdserver: cluster has a downgrade job in progress' },
  noInflightDowngrade: { code: status.FAILED_PRECONDITION, message: 'etcdserver: no inflight downgrade job' },
  unknownMethod: { code: status.UNKNOWN, message: 'etcdserver: unknown method' },
} as const satisfies Record<string, WantError>
