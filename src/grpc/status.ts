// A thrown error -> the gRPC status a call ends with: domain error codes through TO_GRPC (status-codes.ts,
// etcd's rpctypes). The message on the wire is the error's, which for every code is etcd's verbatim text
// (pkg/errors.ts ERROR_MESSAGES), because clients match on it.
import { status, type ServiceError, Metadata } from '@grpc/grpc-js'
import { EtcdError, UnmarshalError } from '../pkg/errors.js'
import { TO_GRPC } from './status-codes.js'

export { TO_GRPC }

export type ErrorReporter = (err: unknown) => void

/**
 * A ServiceError for any thrown value. EtcdErrors map through TO_GRPC (codes whose table message is empty
 * keep their own message), UnmarshalErrors become grpc-go's INTERNAL; anything else is a bug: it is
 * reported and becomes UNKNOWN.
 */
export function toServiceError(err: unknown, report?: ErrorReporter): Partial<ServiceError> {
  if (err instanceof EtcdError) {
    return { code: TO_GRPC[err.code], details: err.message, message: err.message, metadata: new Metadata() }
  }
  // grpc-go's answer to a request its codec could not unmarshal (server.go processUnaryRPC).
  if (err instanceof UnmarshalError) {
    const details = `grpc: error unmarshalling request: ${err.message}`
    return { code: status.INTERNAL, details, message: details, metadata: new Metadata() }
  }
  report?.(err)
  const details = err instanceof Error ? err.message : String(err)
  return { code: status.UNKNOWN, details, message: details, metadata: new Metadata() }
}
