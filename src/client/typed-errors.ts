// The reverse of grpc/status-codes.ts's TO_GRPC table: a status (or a watch's cancel reason) a client received,
// back to the error the embedded API throws, so code sees the same typed errors from Etcd and connect().
import type { status } from '@grpc/grpc-js'
import { CompactedError, DuplicateWatchIdError, EmptyWatcherRangeError, FutureRevError, WatcherNotExistError } from '../mvcc/errors.js'
import { ERROR_MESSAGES, EtcdError, type ErrorCode } from '../pkg/errors.js'
import { TO_GRPC } from '../grpc/status-codes.js'

/** Codes the embedded API throws as a class of their own (mvcc/errors.ts). */
const TYPED: Partial<Readonly<Record<ErrorCode, () => EtcdError>>> = {
  COMPACTED: () => new CompactedError(),
  FUTURE_REV: () => new FutureRevError(),
  WATCHER_RANGE_EMPTY: () => new EmptyWatcherRangeError(),
  WATCH_DUPLICATE_ID: () => new DuplicateWatchIdError(),
  WATCHER_NOT_EXIST: () => new WatcherNotExistError(),
}

/** Every code by its message: several codes never share a text, so the text names the code. */
const BY_MESSAGE: ReadonlyMap<string, ErrorCode> = new Map(
  (Object.keys(ERROR_MESSAGES) as ErrorCode[]).map((c) => [ERROR_MESSAGES[c], c] as const),
)

const typedError = (c: ErrorCode): EtcdError => TYPED[c]?.() ?? new EtcdError(c)

/**
 * The EtcdError (of the same class the embedded API throws: CompactedError, FutureRevError, ...) that
 * TO_GRPC sends as this status: the details are etcd's text for exactly one code, with that code's status.
 * Undefined for any other status (a transport failure, an error etcdlite does not know).
 */
export function fromGrpcStatus(code: status, details: string): EtcdError | undefined {
  const c = BY_MESSAGE.get(details)
  return c !== undefined && TO_GRPC[c] === code ? typedError(c) : undefined
}

/** etcd's recvLoop writes a refused create's gRPC error as Go prints it (see etcdserver/watch.ts). */
const GO_STATUS_TEXT = /^rpc error: code = \w+ desc = ([\s\S]*)$/

/**
 * The EtcdError behind a watch response's cancel_reason (mvcc's text, etcd's text, or a gRPC error as Go
 * prints it); undefined for a reason no code has.
 */
export function fromCancelReason(reason: string): EtcdError | undefined {
  const c = BY_MESSAGE.get(GO_STATUS_TEXT.exec(reason)?.[1] ?? reason)
  return c === undefined ? undefined : typedError(c)
}
