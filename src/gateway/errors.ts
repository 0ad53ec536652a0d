// How the gateway answers a failed call (grpc-gateway v1.16, the version etcd 3.5 builds with): the HTTP
// status for the gRPC code (HTTPStatusFromCode), and the body: {"error":m,"code":n,"message":m} for a unary
// call (runtime/internal's Error message, fields in its declaration order; 3.4's v1.9 wrote
// "error","message","code"), and {"error":{"grpc_code":n,"http_code":h,"message":m,"http_status":s}} for a
// streaming call that fails (StreamError). Zero fields are left out, as jsonpb leaves them out.
import { STATUS_CODES } from 'node:http'
import { status } from '@grpc/grpc-js'
import { jsonString } from './jsonpb-marshal.js'

const HTTP_BY_CODE: Readonly<Record<number, number>> = {
  [status.OK]: 200,
  [status.CANCELLED]: 408,
  [status.UNKNOWN]: 500,
  [status.INVALID_ARGUMENT]: 400,
  [status.DEADLINE_EXCEEDED]: 504,
  [status.NOT_FOUND]: 404,
  [status.ALREADY_EXISTS]: 409,
  [status.PERMISSION_DENIED]: 403,
  [status.UNAUTHENTICATED]: 401,
  [status.RESOURCE_EXHAUSTED]: 429,
  [status.FAILED_PRECONDITION]: 412,
  [status.ABORTED]: 409,
  [status.OUT_OF_RANGE]: 400,
  [status.UNIMPLEMENTED]: 501,
  [status.INTERNAL]: 500,
  [status.UNAVAILABLE]: 503,
  [status.DATA_LOSS]: 500,
}

/** grpc-gateway's HTTPStatusFromCode: 500 for a code it does not know. */
export function httpStatusFromCode(code: number): number {
  return HTTP_BY_CODE[code] ?? 500
}

/** A gRPC status as the gateway reports it. */
export interface GatewayStatus {
  readonly code: number
  readonly message: string
}

/** Go's http.StatusText (Node's table has the same texts for every status the gateway uses). */
export function statusText(httpCode: number): string {
  return STATUS_CODES[httpCode] ?? ''
}

/**
 * The body of a failed unary call: 3.5's key order, or with `v34` 3.4's (what clients of an etcdlite that
 * reports 3.4.x, and etcd 3.4's own tests, compare against).
 */
export function errorBody(s: GatewayStatus, v34 = false): string {
  const error = s.message === '' ? [] : [`"error":${jsonString(s.message)}`]
  const message = s.message === '' ? [] : [`"message":${jsonString(s.message)}`]
  const code = s.code === 0 ? [] : [`"code":${s.code}`]
  return `{${(v34 ? [...error, ...message, ...code] : [...error, ...code, ...message]).join(',')}}`
}

/** The chunk a failing stream ends with (no newline after it, as grpc-gateway writes none). */
export function streamErrorChunk(s: GatewayStatus): string {
  const httpCode = httpStatusFromCode(s.code)
  const parts: string[] = []
  if (s.code !== 0) parts.push(`"grpc_code":${s.code}`)
  parts.push(`"http_code":${httpCode}`)
  if (s.message !== '') parts.push(`"message":${jsonString(s.message)}`)
  parts.push(`"http_status":${jsonString(statusText(httpCode))}`)
  return `{"error":{${parts.join(',')}}}`
}
