// Everything an embedded etcdlite serves on the network, and its closing: the client listeners (gRPC, and
// on the same port the HTTP endpoints and the JSON gateway), the metrics listeners, and close(), which stops
// them before the server. One Listeners belongs to a server; every Etcd view of it shares it.
//
// What serves the network (the gRPC server and grpc-js, node:http, the HTTP handlers, the gateway's
// loader, TLS) loads with the first listener: a store used in-process never needs it, and loading it is a
// sizeable part of importing etcdlite. The modules load one after another, not all at once, as the CLI's
// start does, to stay within a low file-descriptor limit.
import type { ChannelCredentials } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import { majorMinor, serverMetrics } from '../etcdserver/metrics.js'
import type { GrpcServer } from '../grpc/server.js'
import type { Logger } from '../pkg/logger.js'
import type { DeferredGateway } from './deferred-gateway.js'
import type { ListenOptions } from './options.js'

/** A bound gRPC listener. */
export interface Listener {
  readonly host: string
  readonly port: number
  /** `host:port`, what etcd clients take as an endpoint. */
  readonly endpoint: string
}

export interface ListenersOptions {
  readonly logger: Logger
  /** etcd's --max-request-bytes, for the gRPC servers and the gateways. */
  readonly maxRequestBytes: number
  /** Client URLs were given (advertiseClientUrls): listen() does not add its own to MemberList. */
  readonly advertised: boolean
}

/** `host:port`, with an IPv6 host in brackets. */
const endpointOf = (host: string, port: number): string => host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`

/** The address a listener's own gateway dials: the loopback address for a wildcard host. */
function dialTarget(host: string, port: number): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (bare === '0.0.0.0' || bare === '') return `127.0.0.1:${port}`
  if (bare === '::') return `[::1]:${port}`
  return endpointOf(bare, port)
}

export class Listeners {
  private readonly server: EtcdServer
  private readonly opts: ListenersOptions
  private readonly grpcServers: GrpcServer[] = []
  private readonly gateways: DeferredGateway[] = []
  /** How a gateway reaches each listener that serves gRPC, in the order they were opened. */
  private readonly gatewayDials: Array<{ readonly target: string; readonly creds: ChannelCredentials }> = []
  /** close() of every listenMetrics() listener; close() awaits them. */
  private readonly metricsClosers: (() => Promise<void>)[] = []
  private closing: Promise<void> | undefined

  constructor(server: EtcdServer, opts: ListenersOptions) {
    this.server = server
    this.opts = opts
  }

  /** Etcd.listen() once its options are checked. */
  async listen(opts: ListenOptions): Promise<Listener> {
    this.refuseAfterClose('listen')
    const { clientUrlSchemes, gatewayCredentials, streamLimit, toTlsServerOptions } = await import('./listener-tls.js')
    const limit = streamLimit(opts.maxConcurrentStreams, opts.tls !== undefined)
    const maxStreams = limit === undefined ? {} : { maxConcurrentStreams: limit }
    const tls = opts.tls === undefined ? undefined : await toTlsServerOptions(opts.tls, this.opts.logger)
    const { GrpcServer } = await import('../grpc/server.js')
    const { httpHandler } = await import('./http.js')
    const { gatewayUpgradeHandler } = await import('./access-handler.js')
    const { DeferredGateway } = await import('./deferred-gateway.js')
    this.refuseAfterClose('listen')
    // The gateway loads by its first request. A gRPC-only listener serves none; an HTTP-only one dials a
    // listener that serves gRPC, as etcd's gateway does with --listen-client-http-urls.
    const traffic = opts.traffic ?? 'grpc+http'
    const gatewayDial = traffic === 'http' ? this.gatewayDials[0] : undefined
    if (traffic === 'http' && opts.grpcGateway !== false && gatewayDial === undefined) {
      throw new TypeError("etcdlite: listen({ traffic: 'http' }) serves the JSON gateway, which needs a listener serving gRPC opened first (or grpcGateway: false)")
    }
    const gateway = opts.grpcGateway === false || traffic === 'grpc' ? undefined : this.newGateway(DeferredGateway)
    const grpc = new GrpcServer(this.server, {
      maxRequestBytes: this.opts.maxRequestBytes,
      report: (err) => this.opts.logger.error('unexpected error serving a request', { error: err }),
      // The client port also answers /health, /metrics and /version over HTTP/1.1, as etcd's does, and
      // the JSON gateway under /v3/.
      http: httpHandler(this.server, 'client', { pprof: opts.pprof === true, ...(gateway === undefined ? {} : { gateway: gateway.serve }) }),
      // And WebSocket connections to the gateway's paths, as etcd's wsproxy serves them.
      ...(gateway === undefined ? {} : { upgrade: gatewayUpgradeHandler(this.server, gateway.upgrade) }),
      ...(tls === undefined ? {} : { tls, alsoInsecure: opts.alsoInsecure === true }),
      ...(opts.keepAlive === undefined ? {} : { keepAlive: opts.keepAlive }),
      ...(opts.keepAliveMinTimeMs === undefined ? {} : { keepAliveMinTimeMs: opts.keepAliveMinTimeMs }),
      ...(opts.traffic === undefined ? {} : { traffic: opts.traffic }),
      ...maxStreams,
    })
    this.grpcServers.push(grpc)
    const { host, port } = await grpc.bind(opts.host ?? '127.0.0.1', opts.port ?? 2379)
    if (traffic !== 'http') {
      this.gatewayDials.push({ target: dialTarget(host, port), creds: await gatewayCredentials(tls, opts.alsoInsecure === true) })
    }
    if (gateway !== undefined) {
      const dial = gatewayDial ?? this.gatewayDials[this.gatewayDials.length - 1]
      if (dial !== undefined) gateway.connect(dial.target, dial.creds)
      this.gateways.push(gateway)
    }
    const endpoint = endpointOf(host, port)
    // An HTTP-only listener is no gRPC endpoint to advertise.
    if (!this.opts.advertised && opts.traffic !== 'http') {
      const m = this.server.member
      this.server.member = { ...m, clientUrls: [...m.clientUrls, ...clientUrlSchemes(opts).map((s) => `${s}://${endpoint}`)] }
    }
    return { host, port, endpoint }
  }

  /** Etcd.listenMetrics() once its options are checked. */
  async listenMetrics(opts: ListenOptions): Promise<Listener> {
    this.refuseAfterClose('listenMetrics')
    const { httpHandler } = await import('./http.js')
    const { HttpListener } = await import('./http-listener.js')
    const l = await HttpListener.listen(httpHandler(this.server, 'metrics'), opts.host ?? '127.0.0.1', opts.port ?? 2381)
    if (this.closing !== undefined) {
      await l.close()
      this.refuseAfterClose('listenMetrics')
    }
    this.metricsClosers.push(() => l.close())
    return { host: l.host, port: l.port, endpoint: endpointOf(l.host, l.port) }
  }

  /** Stop serving (calls in flight finish), then close the server. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const stopped = Promise.all(this.grpcServers.map((s) => s.shutdown()))
      // The gateways' own connections to the listeners close with them.
      for (const g of this.gateways) g.close()
      await stopped
      await Promise.all(this.metricsClosers.map((c) => c()))
      await this.server.close()
    })()
    return this.closing
  }

  private refuseAfterClose(call: 'listen' | 'listenMetrics'): void {
    if (this.closing !== undefined) throw new Error(`etcdlite: ${call}() after close()`)
  }

  /** The JSON gateway of one listener, its module loaded by its first request. */
  private newGateway(Gateway: typeof DeferredGateway): DeferredGateway {
    const metrics = serverMetrics(this.server)
    return new Gateway({
      maxRequestBytes: this.opts.maxRequestBytes,
      reports34: () => majorMinor(metrics.etcdVersion()) === '3.4',
      report: (err) => this.opts.logger.error('cannot load the JSON gateway', { error: err }),
    })
  }
}
