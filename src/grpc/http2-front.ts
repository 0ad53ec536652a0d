// The HTTP/2 front: what sits between an accepted gRPC connection and grpc-js's http2 session. The
// client's bytes go through an Http2FrameFilter (grpc/http2-frame-filter.ts) before nghttp2 reads them, so
// that etcdctl's URL-shaped :authority is served, and a client's cancellations close streams through
// node:http2 instead of draining nghttp2's reset rate limit (which, once dry, sends GOAWAY and fails every
// call on the connection; etcd has no such limit). The server's bytes go to the socket as they are, seen on
// the way by a frame scanner when etcd's keep-alive enforcement policy applies (keepalive-enforcement.ts).
//
// Cost: node:http2 reads a net.Socket natively (no JavaScript per frame); a connection through the front
// is read by JavaScript, chunk by chunk, and written through node's JSStreamSocket. Node exposes neither
// nghttp2_option_set_no_http_messaging nor nghttp2_option_set_stream_reset_rate_limit, and nghttp2
// counts every RST_STREAM it receives, so only a connection whose frames are seen first can be spared;
// which connections will cancel is not known when they open.
//
// Protection against rapid-reset floods stays: a reset is taken over only for a stream node:http2 has
// already announced (HEADERS and RST_STREAM that arrive together reach nghttp2 as they are), and at most
// RESET_BURST at once, refilled at RESET_RATE_PER_SECOND, far above the rate of ordinary cancellations;
// beyond that, resets reach nghttp2 and its own limit closes the connection.
import type { EventEmitter } from 'node:events'
import type { ServerHttp2Session, ServerHttp2Stream } from 'node:http2'
import type { Socket } from 'node:net'
import { Duplex } from 'node:stream'
import * as grpc from '@grpc/grpc-js'
import { FrameType, Http2FrameFilter } from './http2-frame-filter.js'
import { Http2FrameScanner } from './http2-frame-scanner.js'
import { ENHANCE_YOUR_CALM, KeepaliveEnforcement, TOO_MANY_PINGS } from './keepalive-enforcement.js'
import { DEFAULT_MAX_CONCURRENT_STREAMS, SettingsRewriter, StreamLimit } from './stream-limit.js'
import { installLeanUnary, type LeanUnaryOptions } from './lean-unary.js'

/** Resets taken over at once on one connection (nghttp2's own burst). */
export const RESET_BURST = 1000
/** Resets taken over per second on one connection, sustained: 30 times nghttp2's 33. */
export const RESET_RATE_PER_SECOND = 1000

/** A token bucket of resets for one connection. */
class ResetBudget {
  private tokens = RESET_BURST
  private last = performance.now()

  take(): boolean {
    const now = performance.now()
    this.tokens = Math.min(RESET_BURST, this.tokens + ((now - this.last) * RESET_RATE_PER_SECOND) / 1000)
    this.last = now
    if (this.tokens < 1) return false
    this.tokens -= 1
    return true
  }
}

/**
 * The client's streams of one session as node:http2 announced them ('stream'), until they close. Takes a
 * client's RST_STREAM over when it can (see the file comment).
 */
class SessionStreams {
  private readonly open = new Map<number, ServerHttp2Stream>()
  /** The highest stream id announced: a lower one that is not open has closed (ids only grow). */
  private highest = 0
  private readonly budget = new ResetBudget()
  private session: ServerHttp2Session | undefined

  /** Streams open now (grpc-go's activeStreams, for the keep-alive policy). */
  get openCount(): number {
    return this.open.size
  }

  attach(session: ServerHttp2Session): void {
    this.session = session
    session.on('stream', (stream: ServerHttp2Stream) => {
      const id = stream.id
      if (id === undefined) return
      this.open.set(id, stream)
      if (id > this.highest) this.highest = id
      stream.once('close', () => this.open.delete(id))
    })
    session.once('close', () => this.open.clear())
  }

  /** A ResetHandler: close an announced stream through node:http2, or drop a reset for a closed one. */
  reset(streamId: number, code: number): boolean {
    const stream = this.open.get(streamId)
    // Not announced yet (or never): nghttp2 judges it. Closed: nghttp2 would only count it.
    if (stream === undefined) return streamId <= this.highest
    if (!this.budget.take()) return false
    this.open.delete(streamId)
    stream.close(code)
    return true
  }

  /** Send GOAWAY(ENHANCE_YOUR_CALM, "too_many_pings"), as grpc-go does before it closes the connection. */
  goAwayTooManyPings(): boolean {
    const session = this.session
    if (session === undefined || session.closed || session.destroyed) return false
    session.goaway(ENHANCE_YOUR_CALM, this.highest, Buffer.from(TOO_MANY_PINGS))
    return true
  }
}

/**
 * One connection as node:http2 sees it through the front: the socket's bytes filtered, writes straight to
 * the socket (but for the server's first SETTINGS frame when `settings` rewrites it; see stream-limit.ts).
 */
class FrontSocket extends Duplex {
  /** Set once the connection is to close after the server's next GOAWAY has been written. */
  private endAfterGoaway = false
  private goawayWritten = false

  constructor(
    private readonly socket: Socket,
    filter: Http2FrameFilter,
    private settings: SettingsRewriter | undefined,
    private readonly onServerFrame?: (type: number) => void,
  ) {
    super({ allowHalfOpen: true })
    socket.on('data', (chunk: Buffer) => {
      let parts: Buffer[]
      try {
        parts = filter.push(chunk)
      } catch (err) {
        // A fault in the filter costs this connection, not the process.
        this.destroy(err instanceof Error ? err : new Error(String(err)))
        return
      }
      let more = true
      for (const b of parts) more = this.push(b)
      if (!more) socket.pause()
    })
    socket.on('end', () => this.push(null))
    socket.on('error', (err) => this.destroy(err))
    socket.on('close', () => this.destroy())
  }

  override _read(): void {
    this.socket.resume()
  }

  /** Close the connection once a GOAWAY the server is about to send has been written. */
  closeAfterGoaway(): void {
    this.endAfterGoaway = true
    this.goawayWritten = false
  }

  /** Watch the server's frames as they leave: HEADERS, DATA and GOAWAY matter. */
  private readonly scanner = new Http2FrameScanner((type) => {
    if (type === FrameType.GOAWAY) this.goawayWritten = true
    this.onServerFrame?.(type)
  })

  /** After a write: end the connection if the GOAWAY it waited for has gone out. */
  private afterWrite(): void {
    if (!this.endAfterGoaway || !this.goawayWritten) return
    this.endAfterGoaway = false
    this.socket.end(() => this.socket.destroy())
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.settings !== undefined || this.onServerFrame !== undefined) {
      this._writev([{ chunk }], cb)
      return
    }
    this.socket.write(chunk, cb)
  }

  override _writev(chunks: { chunk: Buffer }[], cb: (err?: Error | null) => void): void {
    let out = chunks.map((c) => c.chunk)
    const rewriter = this.settings
    if (rewriter !== undefined) {
      out = out.flatMap((c) => rewriter.push(c))
      if (rewriter.done) this.settings = undefined
      if (out.length === 0) {
        cb()
        return
      }
    }
    if (this.onServerFrame !== undefined) for (const c of out) this.scanner.push(c)
    this.socket.cork()
    for (const [i, chunk] of out.entries()) this.socket.write(chunk, i === out.length - 1 ? cb : undefined)
    this.socket.uncork()
    this.afterWrite()
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.socket.end()
    cb()
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.socket.destroy()
    cb(err)
  }
}

/** grpc-js's injector and the node:http2 server it feeds, whose 'session' event names each connection's session. */
function injectorWithSessions(server: grpc.Server): { injector: grpc.ConnectionInjector; http2: EventEmitter } {
  // grpc-js 1.14 keeps each injector's http2 server in its private http2Servers map and offers no public
  // handle on it; the new entry is the injector's.
  const servers = (): Map<unknown, unknown> => {
    const m: unknown = Reflect.get(server, 'http2Servers')
    if (!(m instanceof Map)) throw new Error('etcdlite: grpc-js keeps no http2Servers map: the HTTP/2 front needs updating')
    return m
  }
  const before = new Set(servers().keys())
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure())
  const added = [...servers().keys()].filter((s) => !before.has(s))
  const http2 = added[0]
  if (added.length !== 1 || typeof http2 !== 'object' || http2 === null || !('on' in http2)) {
    throw new Error('etcdlite: cannot find the http2 server of the grpc-js injector: the HTTP/2 front needs updating')
  }
  return { injector, http2: http2 as EventEmitter }
}

export interface Http2FrontOptions {
  /**
   * Hand connections to grpc-js as they are (native reads, no filtering). For TLS with client certificate
   * auth: grpc-js reports a client's certificate only when the session's socket is the TLSSocket itself.
   */
  readonly native?: boolean
  /**
   * SETTINGS_MAX_CONCURRENT_STREAMS to advertise and enforce (etcd's --max-concurrent-streams; default
   * 2^32-1). Unless native, grpc-js's own limit must be 2^32-1: the front advertises this one instead.
   */
  readonly maxConcurrentStreams?: number
  /** The connections are TLS: streams beyond the limit are refused as net/http2 refuses them (stream-limit.ts). */
  readonly secure?: boolean
  /**
   * etcd's --grpc-keepalive-min-time: a client pinging more often is sent away (keepalive-enforcement.ts).
   * Not enforced on native connections, whose frames the front does not see.
   */
  readonly keepAliveMinTimeMs?: number
  /** Serve these unary methods by the lean path (lean-unary.ts), on every connection, native ones too. */
  readonly leanUnary?: LeanUnaryOptions
}

/** One connection through the front: the socket node:http2 is to read, and what must see its session. */
export interface FrontConnection {
  readonly socket: Duplex
  /** Give the connection the node:http2 session made from `socket` (node:http2 creates it synchronously). */
  attach(session: ServerHttp2Session): void
}

/**
 * Put `socket` behind the front: its bytes filtered, its resets taken over, etcd's keep-alive policy and
 * stream limit applied. Exported so that the bench can measure the front on its own, under canned answers.
 */
export function frontConnection(socket: Socket, opts: { readonly maxConcurrentStreams?: number; readonly keepAliveMinTimeMs?: number | undefined } = {}): FrontConnection {
  const streams = new SessionStreams()
  const maxStreams = opts.maxConcurrentStreams ?? DEFAULT_MAX_CONCURRENT_STREAMS
  const settings = maxStreams === DEFAULT_MAX_CONCURRENT_STREAMS ? undefined : new SettingsRewriter(maxStreams)
  const minTime = opts.keepAliveMinTimeMs
  const policy = minTime === undefined ? undefined : new KeepaliveEnforcement(minTime)
  const onPing = policy === undefined ? undefined : (): void => {
    if (policy.ping(streams.openCount) && streams.goAwayTooManyPings()) front.closeAfterGoaway()
  }
  const onServerFrame = policy === undefined ? undefined : (type: number): void => {
    if (type === FrameType.HEADERS || type === FrameType.DATA) policy.sent()
  }
  const filter = new Http2FrameFilter((id, code) => streams.reset(id, code), onPing)
  const front: FrontSocket = new FrontSocket(socket, filter, settings, onServerFrame)
  return { socket: front, attach: (session) => streams.attach(session) }
}

export class Http2Front {
  private readonly injector: grpc.ConnectionInjector
  /** Set while a connection is being injected: node:http2 creates its session synchronously. */
  private injecting: FrontConnection | undefined
  private readonly native: boolean
  private readonly maxConcurrentStreams: number
  private readonly keepAliveMinTimeMs: number | undefined

  constructor(server: grpc.Server, opts: Http2FrontOptions = {}) {
    this.keepAliveMinTimeMs = opts.keepAliveMinTimeMs
    const { injector, http2 } = injectorWithSessions(server)
    this.injector = injector
    this.native = opts.native === true
    this.maxConcurrentStreams = opts.maxConcurrentStreams ?? DEFAULT_MAX_CONCURRENT_STREAMS
    http2.on('session', (session: ServerHttp2Session) => this.injecting?.attach(session))
    // Before the stream limit, which must see (and may refuse) the lean path's streams as grpc-js's.
    if (opts.leanUnary !== undefined) installLeanUnary(server, http2, opts.leanUnary)
    // etcd's default limit is never reached: streams need no counting then.
    if (this.maxConcurrentStreams !== DEFAULT_MAX_CONCURRENT_STREAMS) new StreamLimit(this.maxConcurrentStreams, opts.secure === true).guard(http2)
  }

  /** Serve an HTTP/2 connection (its preface, if already read, put back on the socket). */
  accept(socket: Socket): void {
    if (this.native) {
      this.injector.injectConnection(socket)
      return
    }
    const connection = frontConnection(socket, { maxConcurrentStreams: this.maxConcurrentStreams, keepAliveMinTimeMs: this.keepAliveMinTimeMs })
    this.injecting = connection
    try {
      this.injector.injectConnection(connection.socket)
    } finally {
      this.injecting = undefined
    }
  }
}
