// grpc-gateway's annotateContext: what an HTTP request passes to the gRPC call. The Authorization header
// as `authorization` (etcd reads the token there), the standard ("permanent") HTTP headers as
// grpcgateway-<name> (etcd's auth takes grpcgateway-accept as the mark of a gateway call and then ignores
// the client certificate the gateway itself presents), Grpc-Metadata-<name> headers as <name>,
// x-forwarded-host and x-forwarded-for, and Grpc-Timeout as the call's deadline.
import type { GatewayRequest } from './http-shapes.js'
import { Metadata, status } from '@grpc/grpc-js'
import type { GatewayStatus } from './errors.js'

/** Go's textproto.CanonicalMIMEHeaderKey for a header name made of token characters. */
export function canonicalHeaderKey(k: string): string {
  return k.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase())
}

/** grpc-gateway v1.16's isPermanentHTTPHeader. */
const PERMANENT = new Set([
  'Accept', 'Accept-Charset', 'Accept-Language', 'Accept-Ranges', 'Authorization', 'Cache-Control', 'Content-Type',
  'Cookie', 'Date', 'Expect', 'From', 'Host', 'If-Match', 'If-Modified-Since', 'If-None-Match', 'If-Schedule-Tag-Match',
  'If-Unmodified-Since', 'Max-Forwards', 'Origin', 'Pragma', 'Referer', 'User-Agent', 'Via', 'Warning',
])

const METADATA_HEADER_PREFIX = 'Grpc-Metadata-'

/** The gateway's mark on every call it makes (see the file comment): the key etcd's auth looks for. */
export const GATEWAY_MARK = 'grpcgateway-accept'

/** A call's metadata and deadline, or the status that refuses the request (a bad Grpc-Timeout). */
export type Annotated = { readonly metadata: Metadata; readonly deadline: Date | undefined } | { readonly error: GatewayStatus }

const TIMEOUT_UNITS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 }

/** grpc-go's timeoutDecode, in milliseconds; undefined when malformed. */
function timeoutDecode(s: string): number | undefined {
  const unit = TIMEOUT_UNITS[s.slice(-1)]
  const digits = s.slice(0, -1)
  if (s.length < 2 || unit === undefined || !/^[+-]?\d+$/.test(digits)) return undefined
  return Number(digits) * unit
}

function add(md: Metadata, key: string, value: string): void {
  try {
    if (key.endsWith('-bin')) md.add(key, Buffer.from(value, 'base64'))
    else md.add(key, value)
  } catch {
    // A name or value gRPC cannot carry is left out.
  }
}

/** The metadata and deadline of the call an HTTP request makes. */
export function annotate(req: GatewayRequest): Annotated {
  const md = new Metadata()
  let deadline: Date | undefined
  const raw = req.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = canonicalHeaderKey(raw[i] ?? '')
    const val = raw[i + 1] ?? ''
    // Go's server moves Host out of the header map.
    if (key === 'Host') continue
    if (key === 'Authorization') add(md, 'authorization', val)
    if (PERMANENT.has(key)) add(md, `grpcgateway-${key.toLowerCase()}`, val)
    else if (key.startsWith(METADATA_HEADER_PREFIX)) add(md, key.slice(METADATA_HEADER_PREFIX.length).toLowerCase(), val)
  }
  const tm = req.headers['grpc-timeout']
  if (typeof tm === 'string' && tm !== '') {
    const ms = timeoutDecode(tm)
    if (ms === undefined) return { error: { code: status.INVALID_ARGUMENT, message: `invalid grpc-timeout: ${tm}` } }
    if (ms !== 0) deadline = new Date(Date.now() + ms)
  }
  // Every gateway call carries the mark, with or without an Accept header, so that the server never takes
  // the gateway's own certificate for the caller.
  if (md.get(GATEWAY_MARK).length === 0) md.set(GATEWAY_MARK, '')
  const host = req.headers['x-forwarded-host'] ?? req.headers.host
  if (typeof host === 'string' && host !== '') md.add('x-forwarded-host', host)
  const ip = req.socket.remoteAddress
  if (ip !== undefined) {
    const fwd = req.headers['x-forwarded-for']
    md.add('x-forwarded-for', typeof fwd === 'string' && fwd !== '' ? `${fwd}, ${ip}` : ip)
  }
  return { metadata: md, deadline }
}
