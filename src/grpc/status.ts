// Domain error codes -> gRPC status with etcd's verbatim message (etcd's rpctypes). Total by construction:
// adding an ErrorCode without a row here does not compile.
import { status, type ServiceError, Metadata } from '@grpc/grpc-js'
import { EtcdError, type ErrorCode } from '../pkg/errors.js'

export const TO_GRPC: Readonly<Record<ErrorCode, readonly [status, string]>> = {
  EMPTY_KEY: [status.INVALID_ARGUMENT, 'etcdserver: key is not provided'],
  KEY_NOT_FOUND: [status.INVALID_ARGUMENT, 'etcdserver: key not found'],
  VALUE_PROVIDED: [status.INVALID_ARGUMENT, 'etcdserver: value is provided'],
  LEASE_PROVIDED: [status.INVALID_ARGUMENT, 'etcdserver: lease is provided'],
  TOO_MANY_OPS: [status.INVALID_ARGUMENT, 'etcdserver: too many operations in txn request'],
  DUPLICATE_KEY: [status.INVALID_ARGUMENT, 'etcdserver: duplicate key given in txn request'],
  COMPACTED: [status.OUT_OF_RANGE, 'etcdserver: mvcc: required revision has been compacted'],
  FUTURE_REV: [status.OUT_OF_RANGE, 'etcdserver: mvcc: required revision is a future revision'],
  LEASE_NOT_FOUND: [status.NOT_FOUND, 'etcdserver: requested lease not found'],
  REQUEST_TOO_LARGE: [status.INVALID_ARGUMENT, 'etcdserver: request is too large'],
  STOPPED: [status.UNAVAILABLE, 'etcdserver: server stopped'],
  INVALID_ARGUMENT: [status.INVALID_ARGUMENT, ''],
  UNIMPLEMENTED: [status.UNIMPLEMENTED, ''],
}

export type ErrorReporter = (err: unknown) => void

/**
 * A ServiceError for any thrown value. EtcdErrors map through TO_GRPC (codes whose table message is empty
 * keep their own message); anything else is a bug: it is reported and becomes UNKNOWN.
 */
export function toServiceError(err: unknown, report?: ErrorReporter): Partial<ServiceError> {
  if (err instanceof EtcdError) {
    const [code, message] = TO_GRPC[err.code]
    const details = message === '' ? err.message : message
    return { code, details, message: details, metadata: new Metadata() }
  }
  report?.(err)
  const details = err instanceof Error ? err.message : String(err)
  return { code: status.UNKNOWN, details, message: details, metadata: new Metadata() }
}
