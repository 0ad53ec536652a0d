// The lean unary path: the hot unary methods (the KV service's) served on the same HTTP/2 server as every
// other call, by a call object that does for a unary method what grpc-js's server call, its one interceptor
// (message-limit.ts) and its unary driver do, with the handler, deserializer and serializer grpc-js itself
// registered (so etcd's unmarshalling, the codecs and the metrics of unmarshal.ts, kv.ts and metrics.ts are
// the same functions). grpc-js's per-call layers (an interceptor chain, a promise per message, a status
// object per stage) cost a Range about a sixth of the server's CPU; this path spends a few allocations.
//
// Byte for byte the same on the wire: the same response headers, in the same order, with the same options
// (waitForTrailers; trailers-only for a status without a message), the same trailers and grpc-message
// text, the same message framing, the same answers to a missing, a second, an oversized or an undecodable
// request message, and the same reaction to a cancelled stream. A call this path does not mirror goes to
// grpc-js untouched, decided from its headers alone before any byte of its body is read: a deadline
// (grpc-timeout), a compressed request (a grpc-encoding other than identity), a content type grpc-js
// refuses, or grpc-js's tracing switched on (GRPC_TRACE), whose log lines only grpc-js writes.
import type { EventEmitter } from 'node:events'
import { EventEmitter as Emitter } from 'node:events'
import { constants as h2, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2'
import { TLSSocket } from 'node:tls'
import {
  Metadata, status, type sendUnaryData, type ServerErrorResponse, type ServerUnaryCall,
} from '@grpc/grpc-js'
import type { AuthContext } from '@grpc/grpc-js/build/src/auth-context.js'
import type { PerRequestMetricRecorder } from '@grpc/grpc-js/build/src/orca.js'
import { serverErrorToStatus, type ServerStatusResponse } from '@grpc/grpc-js/build/src/server-call.js'
import { StreamDecoder } from '@grpc/grpc-js/build/src/stream-decoder.js'
import * as orca from '@grpc/grpc-js/build/src/orca.js'
import { messageLimitStatus } from './message-limit.js'

/** A unary method as grpc-js registered it (its Server's handlers map). */
interface RegisteredUnary {
  readonly func: (call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => void
  readonly serialize: (value: unknown) => Buffer
  readonly deserialize: (bytes: Buffer) => unknown
  readonly type: 'unary'
  readonly path: string
}

/** A status on its way out: grpc-js's PartialStatusObject. */
type OutStatus = Parameters<typeof messageLimitStatus>[0]

/** grpc-js's error details switch (its environment module reads the same variable once, at load). */
const SEND_ERROR_DETAILS = (process.env['GRPC_NODE_DEBUG_SEND_ERROR_DETAILS'] ?? 'false') === 'true'

/**
 * grpc-js's response headers, in its order (the HPACK bytes follow the order): the base ones on every
 * answer, the encoding ones too on an answer with a message.
 */
const BASE_HEADERS = {
  [h2.HTTP2_HEADER_STATUS]: h2.HTTP_STATUS_OK,
  [h2.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc+proto',
} as const
const RESPONSE_HEADERS = {
  ...BASE_HEADERS,
  'grpc-accept-encoding': 'identity,deflate,gzip',
  'grpc-encoding': 'identity',
} as const
const RESPONSE_OPTIONS = { waitForTrailers: true } as const
const TRAILERS_ONLY_OPTIONS = { endStream: true } as const

/** The request headers grpc-js takes out of the metadata it gives a handler. */
const TRANSPORT_HEADERS = ['grpc-timeout', 'grpc-encoding', 'grpc-accept-encoding', h2.HTTP2_HEADER_ACCEPT_ENCODING, h2.HTTP2_HEADER_TE, h2.HTTP2_HEADER_CONTENT_TYPE]

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/**
 * One unary call: grpc-js's BaseServerInterceptingCall, messageLimitInterceptor and handleUnary folded into
 * one object, which is also the call the handler sees (ServerUnaryCallImpl's surface).
 */
class LeanUnaryCall extends Emitter implements ServerUnaryCall<unknown, unknown> {
  cancelled = false
  request: unknown = undefined
  readonly metadata: Metadata
  private readonly decoder: StreamDecoder
  private haveRequest = false
  /** The handler ran, or the call failed before: later request bytes and the half-close are ignored. */
  private settled = false
  private metadataSent = false
  private wantTrailers = false
  private cancelNotified = false
  private recorder: PerRequestMetricRecorder | undefined

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly headers: IncomingHttpHeaders,
    private readonly handler: RegisteredUnary,
    private readonly limits: { readonly maxReceive: number; readonly maxSend: number },
  ) {
    super()
    this.decoder = new StreamDecoder(limits.maxReceive)
    const metadata = Metadata.fromHttp2Headers(headers)
    for (const h of TRANSPORT_HEADERS) metadata.remove(h)
    this.metadata = metadata
    stream.once('close', () => this.notifyOnCancel())
    stream.on('data', (data: Buffer) => this.onData(data))
    stream.on('end', () => this.onEnd())
  }

  private onData(data: Buffer): void {
    if (this.checkCancelled() || this.settled) return
    let messages: Buffer[]
    try {
      messages = this.decoder.write(data)
    } catch (err) {
      this.settled = true
      this.sendStatus({ code: status.RESOURCE_EXHAUSTED, details: errorMessage(err) })
      return
    }
    for (const framed of messages) {
      // A compressed flag with the identity encoding is read as is, as grpc-js reads it.
      let message: unknown
      try {
        message = this.handler.deserialize(framed.subarray(5))
      } catch (err) {
        this.settled = true
        this.sendStatus({ code: status.INTERNAL, details: SEND_ERROR_DETAILS ? `Error deserializing request: ${errorMessage(err)}` : 'Error deserializing request' })
        return
      }
      if (this.haveRequest) {
        this.settled = true
        this.sendStatus({ code: status.UNIMPLEMENTED, details: `Received a second request message for server streaming method ${this.handler.path}` })
        return
      }
      this.haveRequest = true
      this.request = message
    }
  }

  private onEnd(): void {
    if (this.settled) return
    this.settled = true
    if (!this.haveRequest) {
      this.sendStatus({ code: status.UNIMPLEMENTED, details: `Received no request message for server streaming method ${this.handler.path}` })
      return
    }
    try {
      this.handler.func(this, this.respond)
    } catch (err) {
      this.sendStatus({ code: status.UNKNOWN, details: SEND_ERROR_DETAILS ? `Server method handler threw error ${errorMessage(err)}` : 'Unknown error' })
    }
  }

  /** handleUnary's callback. */
  private readonly respond = (err: ServerErrorResponse | ServerStatusResponse | null | undefined, value?: unknown, trailer?: Metadata): void => {
    if (err) {
      this.sendStatus(serverErrorToStatus(err, trailer))
      return
    }
    this.sendMessageAndStatus(value, trailer)
  }

  /** The stream closed (or was destroyed) before the call ended: the call is cancelled. */
  private checkCancelled(): boolean {
    if (!this.cancelled && (this.stream.destroyed || this.stream.closed)) this.notifyOnCancel()
    return this.cancelled
  }

  private notifyOnCancel(): void {
    if (this.cancelNotified) return
    this.cancelNotified = true
    this.cancelled = true
    // grpc-js tells a unary call it was cancelled once its status is out too, on the next tick.
    process.nextTick(() => this.emit('cancelled', 'cancelled'))
    this.stream.resume()
  }

  /** The response message, then an OK status (grpc-js's sendMessage and its callback's sendStatus). */
  private sendMessageAndStatus(value: unknown, trailer: Metadata | undefined): void {
    if (this.checkCancelled()) return
    let message: Buffer
    try {
      message = this.handler.serialize(value)
    } catch (err) {
      this.sendStatus({ code: status.INTERNAL, details: SEND_ERROR_DETAILS ? `Error serializing response: ${errorMessage(err)}` : 'Error serializing response' })
      return
    }
    const framed = Buffer.allocUnsafe(message.byteLength + 5)
    framed[0] = 0
    framed.writeUInt32BE(message.byteLength, 1)
    message.copy(framed, 5)
    if (this.limits.maxSend !== -1 && framed.length - 5 > this.limits.maxSend) {
      this.sendStatus({ code: status.RESOURCE_EXHAUSTED, details: `Sent message larger than max (${framed.length} vs. ${this.limits.maxSend})` })
      return
    }
    this.maybeSendMetadata()
    // grpc-js writes the message, and ends the stream from the write's callback; ending with the message
    // puts the same frames on the wire (a DATA frame, then the trailers once nghttp2 asks for them), and a
    // write to a live stream does not fail.
    this.wantTrailers = true
    const trailers = trailer === undefined ? undefined : trailer.clone().toHttp2Headers()
    this.stream.once('wantTrailers', () => {
      this.stream.sendTrailers({ 'grpc-status': status.OK, 'grpc-message': 'OK', ...trailers })
      this.notifyOnCancel()
    })
    this.stream.end(framed)
  }

  private maybeSendMetadata(): void {
    if (this.metadataSent) return
    this.metadataSent = true
    this.stream.respond({ ...RESPONSE_HEADERS }, RESPONSE_OPTIONS)
  }

  /** grpc-js's sendStatus behind messageLimitInterceptor. */
  private sendStatus(raw: OutStatus): void {
    const s = messageLimitStatus(raw, true)
    if (this.checkCancelled()) return
    const md = s.metadata ? s.metadata.clone().toHttp2Headers() : undefined
    const details = s.details ?? ''
    if (this.metadataSent) {
      if (this.wantTrailers) {
        this.notifyOnCancel()
        return
      }
      this.wantTrailers = true
      this.stream.once('wantTrailers', () => {
        this.stream.sendTrailers({ 'grpc-status': s.code, 'grpc-message': encodeURI(details), ...md })
        this.notifyOnCancel()
      })
      this.stream.end()
      return
    }
    // Trailers-only.
    this.stream.respond({ 'grpc-status': s.code, 'grpc-message': encodeURI(details), ...BASE_HEADERS, ...md }, TRAILERS_ONLY_OPTIONS)
    this.notifyOnCancel()
  }

  /** The client's address, as grpc-js's call reports it; this and what follows are the ServerUnaryCall API. */
  getPeer(): string {
    const socket = this.stream.session?.socket
    if (socket?.remoteAddress) return socket.remotePort ? `${socket.remoteAddress}:${socket.remotePort}` : socket.remoteAddress
    return 'unknown'
  }

  sendMetadata(responseMetadata: Metadata): void {
    if (this.checkCancelled() || this.metadataSent) return
    this.metadataSent = true
    this.stream.respond({ ...RESPONSE_HEADERS, ...responseMetadata.toHttp2Headers() }, RESPONSE_OPTIONS)
  }

  getDeadline(): number {
    return Infinity
  }

  getPath(): string {
    return this.handler.path
  }

  getHost(): string {
    return this.headers[':authority'] ?? this.headers.host ?? ''
  }

  getAuthContext(): AuthContext {
    const socket = this.stream.session?.socket
    if (!(socket instanceof TLSSocket) || !socket.authorized) return {}
    const peer = socket.getPeerCertificate()
    return { transportSecurityType: 'ssl', ...(peer.raw ? { sslPeerCertificate: peer } : {}) }
  }

  getMetricsRecorder(): PerRequestMetricRecorder {
    this.recorder ??= new orca.PerRequestMetricRecorder()
    return this.recorder
  }
}

export interface LeanUnaryOptions {
  /** The unary methods to serve (full paths, "/etcdserverpb.KV/Range"); each must be registered unary. */
  readonly paths: readonly string[]
  /** grpc.max_receive_message_length and grpc.max_send_message_length as the grpc-js server was given them. */
  readonly maxReceiveMessageLength: number
  readonly maxSendMessageLength: number
}

/** The grpc-js server internals the lean path uses: its registered handlers and its idle-timeout bookkeeping. */
interface GrpcServerInternals {
  readonly handlers: Map<string, { readonly type: string }>
  onStreamOpened(stream: ServerHttp2Stream): void
}

function internals(server: object): GrpcServerInternals {
  const handlers: unknown = Reflect.get(server, 'handlers')
  const opened: unknown = Reflect.get(server, 'onStreamOpened')
  if (!(handlers instanceof Map) || typeof opened !== 'function') {
    throw new Error('etcdlite: grpc-js keeps no handlers map or onStreamOpened: the lean unary path needs updating')
  }
  return { handlers: handlers as GrpcServerInternals['handlers'], onStreamOpened: (s) => void Reflect.apply(opened, server, [s]) }
}

/** Whether grpc-js's handling of a call with these headers is what LeanUnaryCall mirrors. */
function mirrored(headers: IncomingHttpHeaders): boolean {
  const contentType = headers[h2.HTTP2_HEADER_CONTENT_TYPE]
  if (typeof contentType !== 'string' || !contentType.startsWith('application/grpc')) return false
  if (headers['grpc-timeout'] !== undefined) return false
  const encoding = headers['grpc-encoding']
  return encoding === undefined || encoding === 'identity'
}

/**
 * Put the lean path in front of grpc-js on `http2` (the node:http2 server grpc-js serves; http2-front.ts):
 * grpc-js's 'stream' listeners are taken off and called for every stream the lean path does not take.
 * Must run after every service was added (the handlers are looked up then) and before any connection.
 */
export function installLeanUnary(server: object, http2: EventEmitter, opts: LeanUnaryOptions): void {
  if (process.env['GRPC_TRACE'] !== undefined && process.env['GRPC_TRACE'] !== '') return
  const grpcJs = internals(server)
  const lean = new Map<string, RegisteredUnary>()
  for (const path of opts.paths) {
    const h = grpcJs.handlers.get(path)
    if (h === undefined || h.type !== 'unary') throw new Error(`etcdlite: ${path} is not a registered unary method`)
    lean.set(path, h as RegisteredUnary)
  }
  const limits = { maxReceive: opts.maxReceiveMessageLength, maxSend: opts.maxSendMessageLength }
  const delegates = http2.rawListeners('stream')
  if (delegates.length === 0) throw new Error('etcdlite: grpc-js serves no streams on this http2 server: the lean unary path needs updating')
  http2.removeAllListeners('stream')
  http2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) => {
    const path = headers[h2.HTTP2_HEADER_PATH]
    const handler = typeof path === 'string' ? lean.get(path) : undefined
    if (handler === undefined || !mirrored(headers)) {
      for (const d of delegates) Reflect.apply(d, http2, [stream, headers, ...rest])
      return
    }
    // As grpc-js: an error event always comes with a close event, which cancels the call.
    stream.once('error', () => undefined)
    grpcJs.onStreamOpened(stream)
    new LeanUnaryCall(stream, headers, handler, limits)
  })
}
