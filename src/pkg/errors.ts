/**
 * Typed errors with stable codes (Level's contract). Every code has exactly one gRPC mapping with etcd's
 * verbatim message in grpc/status.ts; the compiler enforces that the mapping is total.
 */

export type ErrorCode =
  | 'EMPTY_KEY'
  | 'KEY_NOT_FOUND'
  | 'VALUE_PROVIDED'
  | 'LEASE_PROVIDED'
  | 'TOO_MANY_OPS'
  | 'DUPLICATE_KEY'
  | 'COMPACTED'
  | 'FUTURE_REV'
  | 'LEASE_NOT_FOUND'
  | 'REQUEST_TOO_LARGE'
  | 'STOPPED'
  | 'WATCHER_RANGE_EMPTY'
  | 'WATCH_DUPLICATE_ID'
  | 'WATCHER_NOT_EXIST'
  // Leases
  | 'LEASE_EXISTS'
  | 'LEASE_TTL_TOO_LARGE'
  // Maintenance and cluster
  | 'NO_SPACE'
  | 'MEMBER_NOT_FOUND'
  | 'SINGLE_MEMBER'
  | 'BAD_LEADER_TRANSFEREE'
  | 'MEMBER_BAD_URLS'
  | 'MEMBER_NOT_LEARNER'
  // Downgrade (etcd 3.5) and the proposal errors it can end with
  | 'UNKNOWN_METHOD'
  | 'TIMEOUT'
  | 'CLUSTER_VERSION_UNAVAILABLE'
  | 'WRONG_DOWNGRADE_VERSION_FORMAT'
  | 'INVALID_DOWNGRADE_TARGET_VERSION'
  | 'DOWNGRADE_IN_PROCESS'
  | 'NO_INFLIGHT_DOWNGRADE'
  // Lock and Election (etcd's v3lock/v3election return these as plain errors: gRPC UNKNOWN)
  | 'ELECTION_NOT_LEADER'
  | 'ELECTION_NO_LEADER'
  | 'ELECTION_MISSING_LEADER_KEY'
  | 'MUTEX_SESSION_EXPIRED'
  // Auth (etcd's auth package errors, as rpctypes maps them)
  | 'AUTH_ROOT_USER_NOT_EXIST'
  | 'AUTH_ROOT_ROLE_NOT_EXIST'
  | 'USER_ALREADY_EXIST'
  | 'USER_EMPTY'
  | 'USER_NOT_FOUND'
  | 'ROLE_ALREADY_EXIST'
  | 'ROLE_NOT_FOUND'
  | 'ROLE_EMPTY'
  | 'AUTH_FAILED'
  | 'NO_PASSWORD_USER'
  | 'PERMISSION_DENIED'
  | 'ROLE_NOT_GRANTED'
  | 'PERMISSION_NOT_GRANTED'
  | 'AUTH_NOT_ENABLED'
  | 'INVALID_AUTH_TOKEN'
  | 'INVALID_AUTH_MGMT'
  | 'AUTH_OLD_REVISION'
  | 'INVALID_PERMISSION_TYPE'
  | 'JWT_VERIFY_ONLY'

/** etcd's exact message for each code (etcd's rpctypes); clients match on this text. */
export const ERROR_MESSAGES: Readonly<Record<ErrorCode, string>> = {
  EMPTY_KEY: 'etcdserver: key is not provided',
  KEY_NOT_FOUND: 'etcdserver: key not found',
  VALUE_PROVIDED: 'etcdserver: value is provided',
  LEASE_PROVIDED: 'etcdserver: lease is provided',
  TOO_MANY_OPS: 'etcdserver: too many operations in txn request',
  DUPLICATE_KEY: 'etcdserver: duplicate key given in txn request',
  COMPACTED: 'etcdserver: mvcc: required revision has been compacted',
  FUTURE_REV: 'etcdserver: mvcc: required revision is a future revision',
  LEASE_NOT_FOUND: 'etcdserver: requested lease not found',
  REQUEST_TOO_LARGE: 'etcdserver: request is too large',
  STOPPED: 'etcdserver: server stopped',
  // Watch failures travel in-band, as a WatchResponse's cancel_reason, with mvcc's own text.
  WATCHER_RANGE_EMPTY: 'mvcc: watcher range is empty',
  WATCH_DUPLICATE_ID: 'mvcc: duplicate watch ID provided on the WatchStream',
  WATCHER_NOT_EXIST: 'mvcc: watcher does not exist',
  LEASE_EXISTS: 'etcdserver: lease already exists',
  LEASE_TTL_TOO_LARGE: 'etcdserver: too large lease TTL',
  NO_SPACE: 'etcdserver: mvcc: database space exceeded',
  MEMBER_NOT_FOUND: 'etcdserver: member not found',
  // etcdlite's own: membership of a one-member server cannot change.
  SINGLE_MEMBER: 'etcdserver: etcdlite is a single-member server; cluster membership cannot change',
  BAD_LEADER_TRANSFEREE: 'etcdserver: bad leader transferee',
  MEMBER_BAD_URLS: 'etcdserver: given member URLs are invalid',
  MEMBER_NOT_LEARNER: 'etcdserver: can only promote a learner member',
  // Not in etcd's rpctypes map: gRPC UNKNOWN with etcdserver's text.
  UNKNOWN_METHOD: 'etcdserver: unknown method',
  TIMEOUT: 'etcdserver: request timed out',
  CLUSTER_VERSION_UNAVAILABLE: 'etcdserver: cluster version not found during downgrade',
  WRONG_DOWNGRADE_VERSION_FORMAT: 'etcdserver: wrong downgrade target version format',
  INVALID_DOWNGRADE_TARGET_VERSION: 'etcdserver: invalid downgrade target version',
  DOWNGRADE_IN_PROCESS: 'etcdserver: cluster has a downgrade job in progress',
  NO_INFLIGHT_DOWNGRADE: 'etcdserver: no inflight downgrade job',
  // Lock and Election: clientv3/concurrency's and v3election's texts.
  ELECTION_NOT_LEADER: 'election: not leader',
  ELECTION_NO_LEADER: 'election: no leader',
  ELECTION_MISSING_LEADER_KEY: '"leader" field must be provided',
  MUTEX_SESSION_EXPIRED: 'mutex: session is expired',
  // Auth: rpctypes' texts.
  AUTH_ROOT_USER_NOT_EXIST: 'etcdserver: root user does not exist',
  AUTH_ROOT_ROLE_NOT_EXIST: 'etcdserver: root user does not have root role',
  USER_ALREADY_EXIST: 'etcdserver: user name already exists',
  USER_EMPTY: 'etcdserver: user name is empty',
  USER_NOT_FOUND: 'etcdserver: user name not found',
  ROLE_ALREADY_EXIST: 'etcdserver: role name already exists',
  ROLE_NOT_FOUND: 'etcdserver: role name not found',
  ROLE_EMPTY: 'etcdserver: role name is empty',
  AUTH_FAILED: 'etcdserver: authentication failed, invalid user ID or password',
  // Not in etcd's rpctypes map: the auth package's own text reaches the client with gRPC UNKNOWN.
  NO_PASSWORD_USER: 'auth: authentication failed, password was given for no password user',
  PERMISSION_DENIED: 'etcdserver: permission denied',
  ROLE_NOT_GRANTED: 'etcdserver: role is not granted to the user',
  PERMISSION_NOT_GRANTED: 'etcdserver: permission is not granted to the role',
  AUTH_NOT_ENABLED: 'etcdserver: authentication is not enabled',
  INVALID_AUTH_TOKEN: 'etcdserver: invalid auth token',
  INVALID_AUTH_MGMT: 'etcdserver: invalid auth management',
  AUTH_OLD_REVISION: 'etcdserver: revision of auth store is old',
  // etcdlite's own: etcd stores an unknown permission type, which then grants nothing.
  INVALID_PERMISSION_TYPE: 'etcdserver: permission type must be READ, WRITE or READWRITE',
  // Not in etcd's rpctypes map: gRPC UNKNOWN with the auth package's text.
  JWT_VERIFY_ONLY: 'auth: token signing attempted with verify-only key',
}

/** Base of every domain error. `code` is stable; `message` is etcd's text for that code. */
export class EtcdError extends Error {
  readonly code: ErrorCode
  constructor(code: ErrorCode, message?: string, options?: { cause?: unknown }) {
    super(message ?? ERROR_MESSAGES[code], options)
    this.code = code
    this.name = 'EtcdError'
  }
}

/** True for an {@link EtcdError}, optionally of one code. */
export function isEtcdError(e: unknown, code?: ErrorCode): e is EtcdError {
  return e instanceof EtcdError && (code === undefined || e.code === code)
}

/**
 * A request etcd's Go code would not unmarshal (grpc/unmarshal.ts); `message` is the Go error's text, which
 * grpc-go wraps into the INTERNAL status clients see (grpc/status.ts).
 */
export class UnmarshalError extends Error {
  override name = 'UnmarshalError'
}
