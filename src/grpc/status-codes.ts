// The gRPC status of every domain error code (etcd's rpctypes). Total by construction: adding an ErrorCode
// without a row here does not compile. It stands apart from status.ts so that a client reading statuses back
// (client/typed-errors.ts) loads neither the server's side nor the whole of grpc-js: the enum comes from
// grpc-js's constants module, and is the very object grpc-js exports as `status`. That module is CommonJS,
// so it is required rather than imported: the first CommonJS module an ES module imports costs the ESM
// loader several milliseconds (its export scanner), paid by every import('etcdlite').
import { createRequire } from 'node:module'
import type * as GrpcConstants from '@grpc/grpc-js/build/src/constants.js'
import type { ErrorCode } from '../pkg/errors.js'

/** grpc-js's Status enum: the gRPC status codes. */
export const { Status: status } = createRequire(import.meta.url)('@grpc/grpc-js/build/src/constants.js') as typeof GrpcConstants
export type status = GrpcConstants.Status

/** The gRPC status of each code; the message is the error's own, etcd's text (pkg/errors.ts). */
export const TO_GRPC: Readonly<Record<ErrorCode, status>> = {
  EMPTY_KEY: status.INVALID_ARGUMENT,
  KEY_NOT_FOUND: status.INVALID_ARGUMENT,
  VALUE_PROVIDED: status.INVALID_ARGUMENT,
  LEASE_PROVIDED: status.INVALID_ARGUMENT,
  TOO_MANY_OPS: status.INVALID_ARGUMENT,
  DUPLICATE_KEY: status.INVALID_ARGUMENT,
  COMPACTED: status.OUT_OF_RANGE,
  FUTURE_REV: status.OUT_OF_RANGE,
  LEASE_NOT_FOUND: status.NOT_FOUND,
  REQUEST_TOO_LARGE: status.INVALID_ARGUMENT,
  STOPPED: status.UNAVAILABLE,
  // In-band watch failures (a WatchResponse's cancel_reason); a status only if one ever ends a stream.
  WATCHER_RANGE_EMPTY: status.INVALID_ARGUMENT,
  WATCH_DUPLICATE_ID: status.INVALID_ARGUMENT,
  WATCHER_NOT_EXIST: status.NOT_FOUND,
  LEASE_EXISTS: status.FAILED_PRECONDITION,
  LEASE_TTL_TOO_LARGE: status.OUT_OF_RANGE,
  NO_SPACE: status.RESOURCE_EXHAUSTED,
  MEMBER_NOT_FOUND: status.NOT_FOUND,
  SINGLE_MEMBER: status.FAILED_PRECONDITION,
  BAD_LEADER_TRANSFEREE: status.FAILED_PRECONDITION,
  MEMBER_BAD_URLS: status.INVALID_ARGUMENT,
  MEMBER_NOT_LEARNER: status.FAILED_PRECONDITION,
  UNKNOWN_METHOD: status.UNKNOWN,
  TIMEOUT: status.UNAVAILABLE,
  CLUSTER_VERSION_UNAVAILABLE: status.UNAVAILABLE,
  WRONG_DOWNGRADE_VERSION_FORMAT: status.INVALID_ARGUMENT,
  INVALID_DOWNGRADE_TARGET_VERSION: status.INVALID_ARGUMENT,
  DOWNGRADE_IN_PROCESS: status.FAILED_PRECONDITION,
  NO_INFLIGHT_DOWNGRADE: status.FAILED_PRECONDITION,
  // Lock and Election: plain Go errors in etcd, so gRPC UNKNOWN on the wire.
  ELECTION_NOT_LEADER: status.UNKNOWN,
  ELECTION_NO_LEADER: status.UNKNOWN,
  ELECTION_MISSING_LEADER_KEY: status.UNKNOWN,
  MUTEX_SESSION_EXPIRED: status.UNKNOWN,
  AUTH_ROOT_USER_NOT_EXIST: status.FAILED_PRECONDITION,
  AUTH_ROOT_ROLE_NOT_EXIST: status.FAILED_PRECONDITION,
  USER_ALREADY_EXIST: status.FAILED_PRECONDITION,
  USER_EMPTY: status.INVALID_ARGUMENT,
  USER_NOT_FOUND: status.FAILED_PRECONDITION,
  ROLE_ALREADY_EXIST: status.FAILED_PRECONDITION,
  ROLE_NOT_FOUND: status.FAILED_PRECONDITION,
  ROLE_EMPTY: status.INVALID_ARGUMENT,
  AUTH_FAILED: status.INVALID_ARGUMENT,
  NO_PASSWORD_USER: status.UNKNOWN,
  PERMISSION_DENIED: status.PERMISSION_DENIED,
  ROLE_NOT_GRANTED: status.FAILED_PRECONDITION,
  PERMISSION_NOT_GRANTED: status.FAILED_PRECONDITION,
  AUTH_NOT_ENABLED: status.FAILED_PRECONDITION,
  INVALID_AUTH_TOKEN: status.UNAUTHENTICATED,
  INVALID_AUTH_MGMT: status.INVALID_ARGUMENT,
  AUTH_OLD_REVISION: status.INVALID_ARGUMENT,
  INVALID_PERMISSION_TYPE: status.INVALID_ARGUMENT,
  JWT_VERIFY_ONLY: status.UNKNOWN,
}
