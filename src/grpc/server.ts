// GrpcServer: the client port. It serves gRPC (the services of services.ts, every call counted by
// grpc/metrics.ts) and HTTP/1.1 on one port as etcd does (cmux), routing each connection by its first bytes,
// optionally behind TLS (server-tls.ts), and shuts down gracefully.
import { lookup } from 'node:dns/promises'
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server as HttpServer } from 'node:http'
import { createServer as createNetServer, isIP, type AddressInfo, type Server as NetServer, type Socket } from 'node:net'
import type * as grpc from '@grpc/grpc-js'
import { serverMetrics } from '../etcdserver/metrics.js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import { GRPC_OVERHEAD_BYTES } from '../etcdserver/server-options.js'
import type { TlsListener } from '../pkg/transport/tls-listener.js'
import type { HealthService } from './health.js'
import { Http2Front } from './http2-front.js'
import { DEFAULT_KEEPALIVE_MIN_TIME_MS } from './keepalive-enforcement.js'
import { messageLimitInterceptor } from './message-limit.js'
import { grpcMetricsFor } from './metrics.js'
import { tlsListener, type TlsServerOptions } from './server-tls.js'
import { addEtcdServices, InstrumentedServer } from './services.js'
import type { ErrorReporter } from './status.js'
import { DEFAULT_MAX_CONCURRENT_STREAMS } from './stream-limit.js'
import { WatchCalls } from './watch.js'

export { GRPC_OVERHEAD_BYTES }

/** What a listener serves: gRPC and HTTP/1.x, or one of them (a connection of the other kind is closed). */
export type Traffic = 'grpc+http' | 'grpc' | 'http'

/** Takes an upgrade request's connection (true), or leaves it to be served as a plain request (false). */
export type UpgradeHandler = (req: IncomingMessage, socket: Socket, head: Buffer) => boolean

export interface GrpcServerOptions {
  readonly maxRequestBytes: number
  readonly report: ErrorReporter
  /**
   * Serves HTTP/1.x requests that arrive on the gRPC port (etcd serves /health, /metrics and /version there;
   * embed/http.ts has the handler). Default: every path answers 404, as Go's mux does for unknown paths.
   */
  readonly http?: RequestListener
  /**
   * Takes an HTTP/1.1 upgrade request (the JSON gateway's WebSocket) and returns true, or returns false and
   * the request is served by `http` as if it asked for no upgrade, as Go's server serves it. Default: none
   * taken.
   */
  readonly upgrade?: UpgradeHandler
  /** Serve TLS on every listener (etcd's https:// client URLs); see TlsServerOptions. Default: plaintext. */
  readonly tls?: TlsServerOptions
  /** With `tls`, take plaintext connections on the same listeners too (a first byte other than a TLS handshake's). */
  readonly alsoInsecure?: boolean
  /** Keep-alive pings to clients (etcd's grpc.KeepaliveParams), only when both values are positive, as in etcd. */
  readonly keepAlive?: { readonly intervalMs: number; readonly timeoutMs: number }
  /** The keep-alive enforcement policy's MinTime (keepalive-enforcement.ts). Default: etcd's 5 s. */
  readonly keepAliveMinTimeMs?: number
  /** Default 'grpc+http'. */
  readonly traffic?: Traffic
  /**
   * SETTINGS_MAX_CONCURRENT_STREAMS of every connection, and the streams beyond it refused as etcd refuses
   * them (etcd's --max-concurrent-streams; grpc/stream-limit.ts). Default 2^32-1, etcd's.
   */
  readonly maxConcurrentStreams?: number
}

/** The KV service's methods: the unary calls clients make most, served by the lean path (lean-unary.ts). */
const LEAN_UNARY_PATHS = ['Range', 'Put', 'DeleteRange', 'Txn', 'Compact'].map((m) => `/etcdserverpb.KV/${m}`)

/** The content type of a TLS handshake record: the first byte a TLS client sends. */
const TLS_HANDSHAKE_RECORD = 0x16

/** The start of the HTTP/2 client preface: a connection that starts with it is gRPC, anything else HTTP/1.x. */
const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')

const notFound: RequestListener = (_req, res) => {
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' })
  res.end('404 page not found\n')
}


export interface GrpcEndpoint {
  readonly host: string
  readonly port: number
}

export class GrpcServer {
  private readonly server: grpc.Server
  private readonly watchCalls = new WatchCalls()
  private readonly health: HealthService
  /** Hands HTTP/2 connections to grpc-js (grpc/http2-front.ts). */
  private readonly h2front: Http2Front
  private readonly http: HttpServer
  private readonly report: ErrorReporter
  /** TLS: the options, and the listener that terminates TLS before routing, made by the first bind() (undefined: plaintext). */
  private readonly tls: TlsServerOptions | undefined
  private tlsFront: TlsListener | undefined
  private readonly alsoInsecure: boolean
  private readonly traffic: Traffic
  /** Bound listeners, every connection they accepted, and those not yet routed to gRPC or HTTP. */
  private readonly nets: NetServer[] = []
  private readonly sockets = new Set<Socket>()
  private readonly unrouted = new Set<Socket>()
  /** HTTP/1 connections and how many requests each has in flight (node:http tracks none: it never listens). */
  private readonly httpConns = new Map<Socket, number>()
  private stopping: Promise<void> | undefined

  constructor(etcd: EtcdServer, opts: GrpcServerOptions) {
    this.report = opts.report
    const maxConcurrentStreams = opts.maxConcurrentStreams ?? DEFAULT_MAX_CONCURRENT_STREAMS
    const native = opts.tls?.clientCertAuth === true
    const ka = opts.keepAlive
    const maxReceiveMessageLength = opts.maxRequestBytes + GRPC_OVERHEAD_BYTES
    const maxSendMessageLength = 2 ** 31 - 1
    this.server = new InstrumentedServer(grpcMetricsFor(serverMetrics(etcd)), {
      'grpc.max_receive_message_length': maxReceiveMessageLength,
      'grpc.max_send_message_length': maxSendMessageLength,
      // The HTTP/2 front advertises and enforces the limit itself; connections handed over natively get nghttp2's.
      'grpc.max_concurrent_streams': native ? maxConcurrentStreams : DEFAULT_MAX_CONCURRENT_STREAMS,
      // channelz bookkeeping costs ~8% of a put's CPU in grpc-js and nothing here reads it.
      'grpc.enable_channelz': 0,
      ...(ka !== undefined && ka.intervalMs > 0 && ka.timeoutMs > 0 ? { 'grpc.keepalive_time_ms': ka.intervalMs, 'grpc.keepalive_timeout_ms': ka.timeoutMs } : {}),
      interceptors: [messageLimitInterceptor],
    })
    this.health = addEtcdServices(this.server, etcd, { report: opts.report, clientCertAuth: native }, this.watchCalls)

    // TLS: grpc-js gets the decrypted TLSSocket, so its injector stays insecure.
    this.tls = opts.tls
    this.alsoInsecure = opts.alsoInsecure === true
    this.h2front = new Http2Front(this.server, {
      native,
      maxConcurrentStreams,
      secure: opts.tls !== undefined,
      keepAliveMinTimeMs: opts.keepAliveMinTimeMs ?? DEFAULT_KEEPALIVE_MIN_TIME_MS,
      // messageLimitInterceptor is the server's only interceptor: the lean path applies it itself.
      leanUnary: { paths: LEAN_UNARY_PATHS, maxReceiveMessageLength, maxSendMessageLength },
    })
    this.traffic = opts.traffic ?? 'grpc+http'
    const handle = opts.http ?? notFound
    this.http = createHttpServer((req, res) => {
      const s = req.socket
      this.httpConns.set(s, (this.httpConns.get(s) ?? 0) + 1)
      if (this.stopping !== undefined) res.setHeader('Connection', 'close')
      res.once('close', () => {
        const n = (this.httpConns.get(s) ?? 1) - 1
        this.httpConns.set(s, n)
        if (n === 0 && this.stopping !== undefined) s.end()
      })
      handle(req, res)
    })
    const upgrade = opts.upgrade
    if (upgrade !== undefined) {
      this.http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
        if (!upgrade(req, socket, head)) this.serveWithoutUpgrade(req, socket, head)
      })
    }
  }

  /**
   * Serve an upgrade request no one takes as a plain request: its head, written again without the upgrade
   * (node:http hands a request with an Upgrade header to 'upgrade' listeners only), goes back in front of
   * what the socket still holds, and the HTTP server reads the connection afresh.
   */
  private serveWithoutUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}`]
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] as string
      let value = req.rawHeaders[i + 1] as string
      const lower = name.toLowerCase()
      if (lower === 'upgrade') continue
      if (lower === 'connection') {
        value = value.split(',').map((t) => t.trim()).filter((t) => t !== '' && t.toLowerCase() !== 'upgrade').join(', ')
        if (value === '') continue
      }
      lines.push(`${name}: ${value}`)
    }
    socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]))
    this.http.emit('connection', socket)
  }

  /**
   * Listen on host:port (port 0 picks a free port) and return the bound endpoint. A name is served on every
   * address it resolves to (as grpc-js does), on the port the first one got. Each connection carries gRPC
   * (HTTP/2 with prior knowledge) or HTTP/1.x, told apart by its first bytes, like etcd's cmux.
   */
  async bind(host: string, port: number): Promise<GrpcEndpoint> {
    if (this.stopping !== undefined) throw new Error('etcdlite: bind() after shutdown()')
    if (this.tls !== undefined) this.tlsFront ??= await tlsListener(this.tls, (socket) => this.route(socket))
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
    const addresses = isIP(bare) !== 0 ? [bare] : (await lookup(bare, { all: true })).map((a) => a.address)
    let bound = port
    for (const [i, address] of addresses.entries()) {
      try {
        bound = await this.listenOne(address, i === 0 ? port : bound)
      } catch (err) {
        if (i === 0) throw err
        // Only the first address must bind (grpc-js: "bound to some of the resolved addresses").
      }
    }
    return { host, port: bound }
  }

  private listenOne(address: string, port: number): Promise<number> {
    // Half-open as node:http's own server: a client that half-closes after its request still gets the
    // answer. route() turns it off for the connections it gives to HTTP/2.
    const net = createNetServer({ noDelay: true, allowHalfOpen: true }, (socket) => {
      if (this.tlsFront === undefined) this.route(socket)
      else if (!this.alsoInsecure) this.tlsFront.accept(socket)
      else this.sniffTls(socket, this.tlsFront)
    })
    return new Promise((resolve, reject) => {
      net.once('error', reject)
      net.listen({ host: address, port }, () => {
        net.off('error', reject)
        net.on('error', this.report)
        this.nets.push(net)
        resolve((net.address() as AddressInfo).port)
      })
    })
  }

  /**
   * Count a connection as open and not yet routed until it closes; false (and destroyed) once shutting down.
   * A connection may pass here twice (sniffed, then routed): the sets hold it once.
   */
  private track(socket: Socket): boolean {
    if (!this.sockets.has(socket)) {
      this.sockets.add(socket)
      socket.once('close', () => {
        this.sockets.delete(socket)
        this.unrouted.delete(socket)
        this.httpConns.delete(socket)
      })
    }
    if (this.stopping !== undefined) {
      socket.destroy()
      return false
    }
    this.unrouted.add(socket)
    return true
  }

  /**
   * A port that serves TLS and plaintext (etcd's cmux on a host:port with both http:// and https:// URLs):
   * a connection whose first byte starts a TLS handshake record goes to TLS, any other to route(). The bytes
   * read are put back; node:tls takes a socket's buffered bytes as received.
   */
  private sniffTls(socket: Socket, front: TlsListener): void {
    // Tracked as unrouted meanwhile, so that shutdown() destroys a connection that never sends a byte.
    if (!this.track(socket)) return
    const drop = (): void => {
      socket.destroy()
    }
    socket.on('error', drop)
    socket.once('data', (chunk: Buffer) => {
      socket.pause()
      socket.off('error', drop)
      this.unrouted.delete(socket)
      socket.unshift(chunk)
      if (chunk[0] === TLS_HANDSHAKE_RECORD) front.accept(socket)
      else this.route(socket)
    })
  }

  /**
   * Read the first bytes of a connection (one read, in practice) and hand the socket, with those bytes put
   * back, to grpc-js through the HTTP/2 front (an HTTP/2 preface) or to the HTTP/1 server (anything else).
   */
  private route(socket: Socket): void {
    if (!this.track(socket)) return
    let head: Buffer | undefined
    const drop = (): void => {
      socket.destroy()
    }
    const onReadable = (): void => {
      for (let c = socket.read() as Buffer | null; c !== null; c = socket.read() as Buffer | null) {
        head = head === undefined ? c : Buffer.concat([head, c])
      }
      if (head === undefined) return
      const n = Math.min(head.length, H2_PREFACE.length)
      const h2 = head.compare(H2_PREFACE, 0, n, 0, n) === 0
      if (h2 && head.length < H2_PREFACE.length) return
      socket.off('readable', onReadable)
      socket.off('error', drop)
      socket.off('end', drop)
      this.unrouted.delete(socket)
      socket.unshift(head)
      // As etcd's listeners for one kind: cmux closes what no matcher takes, grpc-go what lacks the preface.
      if (this.traffic !== 'grpc+http' && h2 !== (this.traffic === 'grpc')) {
        socket.destroy()
        return
      }
      if (h2) {
        // Not half-open for HTTP/2 (the net server is, for node:http's sake): node:http2 closes a session
        // only when its socket closes, and only a socket that is not half-open ends its own side, and so
        // closes, once the client's FIN arrives (also a FIN that came with the bytes read above). A
        // half-open one would sit in CLOSE-WAIT with its session and descriptor until shutdown.
        socket.allowHalfOpen = false
        this.h2front.accept(socket)
      } else {
        this.httpConns.set(socket, 0)
        this.http.emit('connection', socket)
      }
    }
    socket.on('readable', onReadable)
    // Reset or closed before saying anything: nothing to serve.
    socket.on('error', drop)
    socket.on('end', drop)
  }

  /**
   * Stop accepting connections and calls, let calls and HTTP requests in flight finish (up to graceMs), then
   * force the rest closed. Resolves once every connection is closed. Watch and health Watch streams, which
   * never end on their own, are ended at once.
   */
  shutdown(graceMs = 5000): Promise<void> {
    this.watchCalls.endAll()
    this.health.shutdown()
    this.stopping ??= new Promise<void>((resolve) => {
      const closed = Promise.all([
        new Promise<void>((r) => this.server.tryShutdown(() => r())),
        ...this.nets.map((net) => new Promise<void>((r) => net.close(() => r()))),
      ])
      // Idle HTTP/1 keep-alive connections close now, busy ones after their response.
      this.http.close()
      for (const [s, inFlight] of this.httpConns) if (inFlight === 0) s.destroy()
      for (const s of this.unrouted) s.destroy()
      this.tlsFront?.close()
      const timer = setTimeout(() => {
        this.server.forceShutdown()
        this.http.closeAllConnections()
        for (const s of this.sockets) s.destroy()
      }, graceMs)
      // Left ref'd: the process must live until the close is done. What it waits for (HTTP/2 sessions
      // draining, sockets closing) need not hold the event loop open by itself, and the etcdlite command
      // would otherwise exit mid-close, before the store is committed, checkpointed and closed.
      void closed.then(() => {
        clearTimeout(timer)
        resolve()
      })
    })
    return this.stopping
  }
}
