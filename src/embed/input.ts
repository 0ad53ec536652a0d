// What the embedded API accepts from JavaScript callers, checked once where a call enters. The gRPC path
// gets its types from protobuf; an in-process caller can pass anything, and the server below trusts its
// types (a string value would be stored as that many zero bytes). So every public entry point runs its
// argument through one of the checkers here: bytes fields take a Uint8Array as is or a string as its UTF-8
// bytes, and anything else of the wrong type is refused with a TypeError naming the call and the field.
// Values of the right type go on unchecked in range (a negative revision, an empty key): the server
// answers them with etcd's own errors, as it does over gRPC.
import type {
  AuthRoleAddRequest, AuthRoleDeleteRequest, AuthRoleGetRequest, AuthRoleGrantPermissionRequest,
  AuthRoleRevokePermissionRequest, AuthUserAddRequest, AuthUserChangePasswordRequest, AuthUserDeleteRequest,
  AuthUserGetRequest, AuthUserGrantRoleRequest, AuthUserRevokeRoleRequest, AuthenticateRequest,
} from '../etcdserver/types/auth.js'
import type { MemberListRequest } from '../etcdserver/types/cluster.js'
import type {
  CampaignRequest, LeaderRequest, LockRequest, ProclaimRequest, ResignRequest, UnlockRequest,
} from '../etcdserver/types/concurrency.js'
import type {
  CompactionRequest, DeleteRangeRequest, PutRequest, RangeRequest, TxnRequest,
} from '../etcdserver/types/kv.js'
import type {
  LeaseGrantRequest, LeaseKeepAliveRequest, LeaseRevokeRequest, LeaseTimeToLiveRequest,
} from '../etcdserver/types/lease.js'
import type {
  AlarmRequest, DowngradeRequest, HashKVRequest, MoveLeaderRequest,
} from '../etcdserver/types/maintenance.js'
import type { WatchRequest } from '../etcdserver/types/watch.js'
import { prefixEnd as prefixEndOfBytes } from '../pkg/bytes.js'
import type { WatchOptions } from './watch.js'
import type { LeaseKeepAliveOptions } from './lease.js'
import type { EtcdOptions, ListenOptions } from './options.js'
import type { ConnectOptions } from '../client/options.js'
import {
  arrayOf, bool, bytes, INT64_MAX, INT64_MIN, int, int64, oneOf, opt, pem, pemOrList, port, record, refuse, describe, signal, str, tagged, uint32, uint64, type Field,
} from './input-fields.js'

/** Bytes as the embedded API takes them: a Uint8Array (a Buffer too) as is, or a string as its UTF-8 bytes. */
export type Bytes = Uint8Array | string

/**
 * A request type as the embedded API takes it: every Uint8Array field may also be a string (see Bytes),
 * nested ones too (txn ops and compares, a permission's key). What the API returns keeps Uint8Array.
 */
export type Input<T> = T extends Uint8Array
  ? Bytes
  : T extends string | number | bigint | boolean | undefined | null | AbortSignal | ((...args: never[]) => unknown)
    ? T
    : T extends readonly (infer E)[]
      ? readonly Input<E>[]
      : { readonly [K in keyof T]: Input<T[K]> }

/**
 * Checks one field and returns its value as the server takes it (the same value unless a string became
 * bytes). `call` and `path` only go into the error message.
 */
const RANGE = {
  key: bytes, rangeEnd: opt(bytes), limit: opt(int), revision: opt(int),
  sortOrder: opt(oneOf(['NONE', 'ASCEND', 'DESCEND'])), sortTarget: opt(oneOf(['KEY', 'VERSION', 'CREATE', 'MOD', 'VALUE'])),
  serializable: opt(bool), keysOnly: opt(bool), countOnly: opt(bool),
  minModRevision: opt(int), maxModRevision: opt(int), minCreateRevision: opt(int), maxCreateRevision: opt(int),
}
const PUT = { key: bytes, value: opt(bytes), lease: opt(int64), prevKv: opt(bool), ignoreValue: opt(bool), ignoreLease: opt(bool) }
const DELETE_RANGE = { key: bytes, rangeEnd: opt(bytes), prevKv: opt(bool) }
const COMPARE = record({
  key: bytes, rangeEnd: opt(bytes),
  target: oneOf(['VERSION', 'CREATE', 'MOD', 'VALUE', 'LEASE', 'UNKNOWN']),
  result: oneOf(['EQUAL', 'GREATER', 'LESS', 'NOT_EQUAL', 'UNKNOWN']),
  version: opt(int), createRevision: opt(int), modRevision: opt(int), value: opt(bytes), lease: opt(int64),
})
/** A txn's op; a txn op nests a txn, so the checker is built on first use. */
let requestOp: Field | undefined
const REQUEST_OP: Field = (v, call, path) => (requestOp ??= tagged({
  range: record({ request: record(RANGE) }),
  put: record({ request: record(PUT) }),
  deleteRange: record({ request: record(DELETE_RANGE) }),
  txn: record({ request: record(TXN) }),
  empty: record({}),
}))(v, call, path)
const TXN = { compare: opt(arrayOf(COMPARE)), success: opt(arrayOf(REQUEST_OP)), failure: opt(arrayOf(REQUEST_OP)) }
const FILTERS = opt(arrayOf(oneOf(['NOPUT', 'NODELETE'])))
const WATCH_CREATE = {
  key: bytes, rangeEnd: opt(bytes), startRevision: opt(int), progressNotify: opt(bool), filters: FILTERS,
  prevKv: opt(bool), watchId: opt(int), fragment: opt(bool),
}
const LEADER_KEY = record({ name: bytes, key: bytes, rev: int, lease: int64 })
const PERMISSION = record({ permType: oneOf(['READ', 'WRITE', 'READWRITE']), key: bytes, rangeEnd: bytes })
const SIGNAL_ONLY = { signal: opt(signal) }

/** An object with these methods (a logger, a clock, an abstract-level database). */
function withMethods(what: string, methods: readonly string[]): Field {
  return (v, call, path) =>
    typeof v === 'object' && v !== null && methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function')
      ? v
      : refuse(call, path, what, describe(v))
}

const URLS = opt(arrayOf(str))
const JWT_OPTIONS = record({ type: oneOf(['jwt']), signMethod: str, publicKey: opt(pem), privateKey: opt(pem), ttlMs: opt(int) })
/** openEtcd's options (and restoreSnapshot's); what their values mean is checked where they are used. */
const OPTIONS = record({
  dataDir: opt(str), memory: opt(bool), db: opt(withMethods('an abstract-level database', ['open', 'close', 'batch'])),
  unsafeNoFsync: opt(bool), maxRequestBytes: opt(int), maxTxnOps: opt(int), watchProgressNotifyIntervalMs: opt(int),
  indexCheckpointEntries: opt(int), logger: opt(withMethods('a Logger (debug, info, warn, error)', ['debug', 'info', 'warn', 'error'])),
  clock: opt(withMethods('a Clock (now, after)', ['now', 'after'])), minLeaseTtl: opt(int), leaseRenewOnStartMs: opt(int),
  quotaBackendBytes: opt(int), etcdVersion: opt(str), autoCompactionMode: opt(oneOf(['periodic', 'revision'])),
  autoCompactionRetention: opt(str), metrics: opt(oneOf(['basic', 'extensive'])), name: opt(str), peerUrls: URLS,
  advertiseClientUrls: URLS, memberId: opt(uint64), clusterId: opt(uint64),
  authToken: opt((v, call, path) =>
    v === 'simple' ? v : typeof v === 'object' && v !== null ? JWT_OPTIONS(v, call, path)
      : refuse(call, path, "'simple' or a JWT options object", typeof v === 'string' ? `'${v}'` : describe(v))),
  authTokenTtl: opt(int), bcryptCost: opt(int), enableV2: opt(bool),
  cors: opt(arrayOf(str)), hostWhitelist: opt(arrayOf(str)),
})

/** The checker of each entry point's request, by the name the error message gives the call. */
const CHECKS = {
  range: record(RANGE),
  put: record(PUT),
  deleteRange: record(DELETE_RANGE),
  txn: record(TXN),
  compact: record({ revision: int, physical: opt(bool) }),
  watch: record({
    key: bytes, rangeEnd: opt(bytes), prefix: opt(bool), startRevision: opt(int), prevKv: opt(bool), filters: FILTERS,
    progressNotify: opt(bool), signal: opt(signal),
  }),
  'watchStream.send': tagged({
    create: record({ request: record(WATCH_CREATE) }),
    cancel: record({ watchId: int }),
    progress: record({}),
  }),
  leaseGrant: record({ ttl: int, id: opt(int64) }),
  leaseRevoke: record({ id: int64 }),
  leaseKeepAliveOnce: record({ id: int64 }),
  leaseKeepAlive: record({ id: int64, signal: opt(signal) }),
  leaseTimeToLive: record({ id: int64, keys: opt(bool) }),
  lock: record({ name: bytes, lease: opt(int64) }),
  unlock: record({ key: bytes }),
  campaign: record({ name: bytes, lease: opt(int64), value: opt(bytes) }),
  proclaim: record({ leader: opt(LEADER_KEY), value: opt(bytes) }),
  leader: record({ name: bytes }),
  observe: record({ name: bytes }),
  resign: record({ leader: opt(LEADER_KEY) }),
  hashKV: record({ revision: opt(int) }),
  alarm: record({ action: oneOf(['GET', 'ACTIVATE', 'DEACTIVATE']), memberId: opt(uint64), alarm: opt(oneOf(['NONE', 'NOSPACE', 'CORRUPT'])) }),
  moveLeader: record({ targetId: uint64 }),
  downgrade: record({ action: opt(oneOf(['VALIDATE', 'ENABLE', 'CANCEL'])), version: opt(str) }),
  memberList: record({ linearizable: opt(bool) }),
  authenticate: record({ name: str, password: str }),
  userAdd: record({ name: str, password: str, options: opt(record({ noPassword: bool })) }),
  userGet: record({ name: str }),
  userDelete: record({ name: str }),
  userChangePassword: record({ name: str, password: str }),
  userGrantRole: record({ user: str, role: str }),
  userRevokeRole: record({ name: str, role: str }),
  roleAdd: record({ name: str }),
  roleGet: record({ role: str }),
  roleDelete: record({ role: str }),
  roleGrantPermission: record({ name: str, perm: PERMISSION }),
  roleRevokePermission: record({ role: str, key: bytes, rangeEnd: bytes }),
  listen: record({
    host: opt(str), port: opt(port),
    tls: opt(record({
      cert: pem, key: pem, trustedCa: opt(pemOrList), clientCertAuth: opt(bool), crlFile: opt(str),
      allowedHostnames: opt(arrayOf(str)), cipherSuites: opt(arrayOf(str)), minVersion: opt(str), maxVersion: opt(str),
      logRejectedConnections: opt(bool),
    })),
    alsoInsecure: opt(bool),
    keepAlive: opt(record({ intervalMs: uint32, timeoutMs: uint32 })),
    keepAliveMinTimeMs: opt(uint32),
    traffic: opt(oneOf(['grpc+http', 'grpc', 'http'])),
    pprof: opt(bool),
    maxConcurrentStreams: opt(uint32),
  }),
  listenMetrics: record({ host: opt(str), port: opt(port) }),
  openEtcd: OPTIONS,
  restoreSnapshot: OPTIONS,
  connect: record({
    endpoints: arrayOf(str), token: opt(str), user: opt(str), password: opt(str),
    tls: opt(record({ ca: opt(pem), cert: opt(pem), key: opt(pem), serverName: opt(str) })),
    dialTimeoutMs: opt(int), backoff: opt(record({ baseMs: opt(int), capMs: opt(int) })),
  }),
} as const

/** What each checker returns: the request type the server takes. */
export interface Checked {
  range: RangeRequest
  put: PutRequest
  deleteRange: DeleteRangeRequest
  txn: TxnRequest
  compact: CompactionRequest
  watch: WatchOptions
  'watchStream.send': WatchRequest
  leaseGrant: LeaseGrantRequest
  leaseRevoke: LeaseRevokeRequest
  leaseKeepAliveOnce: LeaseKeepAliveRequest
  leaseKeepAlive: LeaseKeepAliveOptions
  leaseTimeToLive: LeaseTimeToLiveRequest
  lock: LockRequest
  unlock: UnlockRequest
  campaign: CampaignRequest
  proclaim: ProclaimRequest
  leader: LeaderRequest
  observe: LeaderRequest
  resign: ResignRequest
  hashKV: HashKVRequest
  alarm: AlarmRequest
  moveLeader: MoveLeaderRequest
  downgrade: DowngradeRequest
  memberList: MemberListRequest
  authenticate: AuthenticateRequest
  userAdd: AuthUserAddRequest
  userGet: AuthUserGetRequest
  userDelete: AuthUserDeleteRequest
  userChangePassword: AuthUserChangePasswordRequest
  userGrantRole: AuthUserGrantRoleRequest
  userRevokeRole: AuthUserRevokeRoleRequest
  roleAdd: AuthRoleAddRequest
  roleGet: AuthRoleGetRequest
  roleDelete: AuthRoleDeleteRequest
  roleGrantPermission: AuthRoleGrantPermissionRequest
  roleRevokePermission: AuthRoleRevokePermissionRequest
  listen: ListenOptions
  listenMetrics: ListenOptions
  openEtcd: EtcdOptions
  restoreSnapshot: EtcdOptions
  connect: ConnectOptions
}

export type Call = keyof typeof CHECKS

/**
 * The request of entry point `call` as the server takes it (strings encoded as UTF-8), or a TypeError
 * naming the call and the field: `etcdlite: put: value must be a Uint8Array or a string, got number`.
 */
export function checkRequest<C extends Call>(call: C, req: unknown): Checked[C] {
  return CHECKS[call](req, call, '') as Checked[C]
}

/**
 * checkRequest('put', req) for the hot path: a put whose fields already have the server's types is
 * recognised by a few typeof checks (several times cheaper than the generic walk); any other goes through
 * checkRequest, which converts strings or says what is wrong.
 */
export function checkPut(req: unknown): PutRequest {
  if (typeof req === 'object' && req !== null) {
    const r = req as { key?: unknown; value?: unknown; lease?: unknown; prevKv?: unknown; ignoreValue?: unknown; ignoreLease?: unknown }
    const lease = r.lease
    if (
      r.key instanceof Uint8Array &&
      (r.value === undefined || r.value instanceof Uint8Array) &&
      (lease === undefined || (typeof lease === 'bigint' && lease >= INT64_MIN && lease <= INT64_MAX)) &&
      (r.prevKv === undefined || typeof r.prevKv === 'boolean') &&
      (r.ignoreValue === undefined || typeof r.ignoreValue === 'boolean') &&
      (r.ignoreLease === undefined || typeof r.ignoreLease === 'boolean')
    ) return req as PutRequest
  }
  return checkRequest('put', req)
}

/** The options argument of a call that takes only `{ signal? }` (lock, campaign, observe, snapshot). */
export function checkSignalOptions(call: string, opts: unknown): { readonly signal?: AbortSignal } {
  return signalOptions(opts, call, 'options') as { readonly signal?: AbortSignal }
}
const signalOptions = record(SIGNAL_ONLY)

/** A string argument (withToken's token, restoreSnapshot's file). */
export function checkString(call: string, name: string, v: unknown): string {
  return str(v, call, name) as string
}

/**
 * The end of the range of every key that starts with `prefix` (for `rangeEnd`), the public form of
 * pkg/bytes' prefixEnd: a string is taken as its UTF-8 bytes, anything else but a Uint8Array is a TypeError.
 */
export function prefixEnd(prefix: Bytes): Uint8Array {
  return prefixEndOfBytes(bytes(prefix, 'prefixEnd', 'prefix') as Uint8Array)
}
