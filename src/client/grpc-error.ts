// What a failed call rejects with: the typed error the embedded API throws for the same failure
// (grpc/status.ts maps etcd's statuses back), or, for a status no etcd error has (the network, a
// deadline), a GrpcError with the status itself.
// The status enum comes from grpc-js's constants module (the object grpc-js exports as `status`), so that
// importing the client's classes does not load grpc-js: connect() does.
import type { ServiceError } from '@grpc/grpc-js'
import { status } from '../grpc/status-codes.js'
import { fromGrpcStatus } from './typed-errors.js'
import { asError } from '../pkg/as-error.js'

/** A gRPC status that is none of etcd's errors: the endpoints are unreachable, the call timed out, ... */
export class GrpcError extends Error {
  /** The gRPC status code (`@grpc/grpc-js` `status`). */
  readonly code: status
  readonly details: string
  constructor(code: status, details: string, options?: { cause?: unknown }) {
    super(`${status[code] ?? code}: ${details}`, options)
    this.code = code
    this.details = details
    this.name = 'GrpcError'
  }
}

/** What a call on a closed client rejects with. */
export const closedError = (): GrpcError => new GrpcError(status.CANCELLED, 'etcdlite: the client is closed')

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof Error && typeof (e as Partial<ServiceError>).code === 'number' && typeof (e as Partial<ServiceError>).details === 'string'
}

/** The error a call rejects with for `e` (a grpc-js ServiceError, or anything thrown on the way). */
export function toClientError(e: unknown): Error {
  if (!isServiceError(e)) return asError(e)
  return fromGrpcStatus(e.code, e.details) ?? new GrpcError(e.code, e.details, { cause: e })
}

/** grpc-js's texts for a call that never reached a server: repeating it cannot apply a write twice. */
const NOT_SENT = [/^No connection established/, /^Stream refused by server$/, /^Channel closed before call started$/]

/**
 * Whether `e` says the endpoint is unreachable or stopping (a reason to try again, elsewhere), and
 * whether the request surely never reached it (only then may a write be repeated). etcd's "no leader"
 * is such a failure too: the member refused the request before applying it.
 */
export function transportFailure(e: unknown): { readonly retry: boolean; readonly notSent: boolean } {
  if (!isServiceError(e) || e.code !== status.UNAVAILABLE) return { retry: false, notSent: false }
  const notSent = NOT_SENT.some((r) => r.test(e.details)) || e.details === 'etcdserver: no leader'
  return { retry: true, notSent }
}
