// The HTTP endpoints etcd serves beside gRPC (etcd 3.5 server/etcdserver/api/etcdhttp: metrics.go, version.go):
// /health, /metrics and /version on the client URL (same port as gRPC, see grpc/server.ts), and /metrics and
// /health alone on --listen-metrics-urls. /health follows the version etcdlite reports: 3.5's body
// ({"health":"true","reason":""}, ?exclude=ALARM, ?serializable=true) by default, 3.4's ({"health":"true"},
// ?exclude=ALARM, always a linearizable check) when it reports 3.4.x, as clients parse either. Both kinds of
// listener also serve etcd 3.5.11+'s /livez and /readyz and their per-check sub-paths (health-checks.ts).
// With the v2 API on (--enable-v2) the client URL is etcd's v2 handler instead (etcdserver/api/v2http):
// /v2/..., /version, /metrics and a /health that checks the v2 store, and no /livez or /readyz, as etcd 3.5.
// Every client URL response carries etcd's CORS headers, and OPTIONS is answered 200 (its accessController).
// The JSON gateway (src/gateway/), when given, serves /v3 and everything under /v3/ (after /v3beta/ becomes /v3/).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import { hostnameOf } from '../etcdserver/access-controller.js'
import { goQuote } from '../pkg/go-quote.js'
import { HTTP_PREFIX_PPROF } from '../pkg/debugutil/pprof-path.js'
import { majorMinor, serverMetrics } from '../etcdserver/metrics.js'
import type { AlarmType } from '../etcdserver/types/maintenance.js'
import { isEtcdError } from '../pkg/errors.js'
import { parseRequestUri } from '../pkg/go-url.js'
import { badRequest } from '../etcdserver/api/v2http/bad-request.js'
import { requestV2 } from '../etcdserver/v2-request.js'
import type { V2Server } from '../etcdserver/v2-server.js'
import { checksFor, runHealthChecks } from './health-checks.js'
import { errorMessage } from '../pkg/as-error.js'
import { clean } from '../pkg/go-path.js'
import { isWebSocketUpgrade } from '../gateway/websocket-proxy.js'
import type { UpgradeHandler } from '../grpc/server.js'

/** Which endpoints a listener serves: the client URL's, or a metrics URL's (no /version, as in etcd). */
export type HttpEndpoints = 'client' | 'metrics'

/** etcd's /health body (3.5): health "true"/"false", and why not. */
export interface Health {
  readonly health: 'true' | 'false'
  readonly reason: string
}

const TEXT = 'text/plain; charset=utf-8'

/** Go's http.Error: the message and a newline, as plain text that must not be sniffed. */
function httpError(res: ServerResponse, code: number, msg: string, headers: Record<string, string> = {}): void {
  res.writeHead(code, { ...headers, 'Content-Type': TEXT, 'X-Content-Type-Options': 'nosniff' })
  res.end(`${msg}\n`)
}

/** The types of the alarms raised on the server, in Status order. */
const raisedAlarms = (server: EtcdServer): readonly AlarmType[] => server.maintenance.alarmList().map((a) => a.alarm)

/**
 * etcd 3.5's checkV3Health for a single member: an alarm not excluded fails it ("ALARM NOSPACE"), there is
 * always a leader, then a one-key keys-only Range must succeed ("RANGE ERROR:<message>" otherwise). The
 * check carries no credentials: with auth on, the refusal of the Range (no user, or no permission) still
 * shows a working server, as etcd counts it.
 */
export function checkHealth(server: EtcdServer, excluded: ReadonlySet<string>, serializable: boolean): Health {
  const alarms = checkAlarms(server, excluded)
  if (alarms.health !== 'true') return alarms
  try {
    server.kvService.range({ key: new Uint8Array([0]), rangeEnd: new Uint8Array([0]), limit: 1, keysOnly: true, serializable })
  } catch (err) {
    if (!isEtcdError(err, 'USER_EMPTY') && !isEtcdError(err, 'PERMISSION_DENIED')) {
      return { health: 'false', reason: `RANGE ERROR:${errorMessage(err)}` }
    }
  }
  return { health: 'true', reason: '' }
}

/** etcd's checkAlarms: the first raised alarm not excluded fails the check. */
function checkAlarms(server: EtcdServer, excluded: ReadonlySet<string>): Health {
  for (const alarm of raisedAlarms(server)) {
    if (alarm === 'NONE' || excluded.has(alarm)) continue
    return { health: 'false', reason: alarm === 'NOSPACE' || alarm === 'CORRUPT' ? `ALARM ${alarm}` : 'ALARM UNKNOWN' }
  }
  return { health: 'true', reason: '' }
}

/** etcd 3.5's /health with the v2 API on: the alarms, then a quorum read of the v2 store (one raft entry). */
async function checkV2Health(server: EtcdServer, v2: V2Server, excluded: ReadonlySet<string>): Promise<Health> {
  const alarms = checkAlarms(server, excluded)
  if (alarms.health !== 'true') return alarms
  try {
    await v2.do(requestV2({ method: 'QGET', path: '' }))
  } catch (err) {
    return { health: 'false', reason: `QGET ERROR:${errorMessage(err)}` }
  }
  return { health: 'true', reason: '' }
}

/** etcd's answer to a plaintext request whose Host is not whitelisted (its errCVE20185702). */
function dnsRebindingRefusal(host: string): string {
  return `
etcd received your request, but the Host header was unrecognized.

To fix this, choose one of the following options:
- Enable TLS, then any HTTPS request will be allowed.
- Add the hostname you want to use to the whitelist in settings.
  - e.g. etcd --host-whitelist ${goQuote(host)}

This requirement has been added to help prevent "DNS Rebinding" attacks (CVE-2018-5702).
`
}

/** The message etcd answers (400) a gateway request whose client certificate names a user, with auth on. */
const GATEWAY_CN_REFUSED = 'CommonName of client sending a request against gateway will be ignored and not used as expected'

/** Whether a request path is the gateway's (Go's ServeMux sends /v3 and everything under /v3/ to it). */
const isGatewayPath = (url: string): boolean => url === '/v3' || url.startsWith('/v3/') || url.startsWith('/v3?')

/**
 * etcd's accessController for the client URL: /v3beta/ rewritten to /v3/ (etcd 3.4 and 3.5 alike; /v3alpha/
 * is not served); a plaintext request must name a whitelisted host; a gateway request over TLS with
 * --client-cert-auth and auth on is refused if its certificate has a common name (the gateway would not
 * use it); CORS headers for allowed origins (for all when "*" is allowed); OPTIONS answered at once; then
 * /v3 and /v3/... to the gateway and everything else to `handler`.
 */
function withAccessController(server: EtcdServer, handler: RequestListener, gateway: RequestListener | undefined): RequestListener {
  const ac = server.accessController
  return (req, res) => {
    try {
      // Go's server answers a request target it cannot parse before any handler runs.
      parseRequestUri(req.url ?? '/')
    } catch {
      badRequest(res)
      return
    }
    if (req.url?.startsWith('/v3beta/') === true) req.url = `/v3/${req.url.slice('/v3beta/'.length)}`
    const toGateway = gateway !== undefined && isGatewayPath(req.url ?? '/')
    if (!(req.socket as Partial<TLSSocket>).encrypted) {
      // Plaintext requests must name a whitelisted host: a DNS-rebound page cannot reach the server.
      const host = hostnameOf(req.headers.host ?? '')
      if (!ac.isHostWhitelisted(host)) {
        httpError(res, 421, dnsRebindingRefusal(host))
        return
      }
    } else if (toGateway && req.url !== '/v3' && server.authStore.enabled && peerCommonName(req) !== undefined) {
      httpError(res, 400, GATEWAY_CN_REFUSED)
      return
    }
    const origin = ac.originAllowed('*') ? '*' : req.headers.origin
    if (origin !== undefined && ac.originAllowed(origin)) {
      res.setHeader('Access-Control-Allow-Methods', 'POST, GET, OPTIONS, PUT, DELETE')
      res.setHeader('Access-Control-Allow-Origin', origin)
      res.setHeader('Access-Control-Allow-Headers', 'accept, content-type, authorization')
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(200, { 'Content-Length': '0' })
      res.end()
      return
    }
    if (toGateway) gateway(req, res)
    else handler(req, res)
  }
}

/**
 * The client port's HTTP/1.1 upgrades: a WebSocket upgrade of a gateway path that the access controller
 * lets through goes to the gateway's WebSocket proxy (`gatewayUpgrade`), as etcd's wsproxy sits on its /v3/
 * mux; any other upgrade, or a refused one, is served as a plain request, whose handler answers it (a refusal
 * with the access controller's answer).
 */
export function gatewayUpgradeHandler(server: EtcdServer, gatewayUpgrade: (req: IncomingMessage, socket: Socket, head: Buffer) => void): UpgradeHandler {
  const ac = server.accessController
  return (req, socket, head) => {
    if (!isWebSocketUpgrade(req)) return false
    try {
      parseRequestUri(req.url ?? '/')
    } catch {
      return false
    }
    const url = req.url?.startsWith('/v3beta/') === true ? `/v3/${req.url.slice('/v3beta/'.length)}` : (req.url ?? '/')
    // Go's ServeMux redirects /v3 and paths that are not clean before any handler sees them.
    const path = new URL(url, 'http://localhost').pathname
    const cleaned = clean(path) + (path.endsWith('/') && path !== '/' ? '/' : '')
    if (!path.startsWith('/v3/') || cleaned !== path) return false
    if (!(req.socket as Partial<TLSSocket>).encrypted) {
      if (!ac.isHostWhitelisted(hostnameOf(req.headers.host ?? ''))) return false
    } else if (server.authStore.enabled && peerCommonName(req) !== undefined) {
      return false
    }
    req.url = url
    gatewayUpgrade(req, socket, head)
    return true
  }
}

/**
 * The common name of the verified client certificate of a TLS connection, if any. The TLS listener verifies
 * client certificates (and marks the socket authorized) only with --client-cert-auth.
 */
function peerCommonName(req: IncomingMessage): string | undefined {
  const socket = req.socket as Partial<TLSSocket>
  if (socket.encrypted !== true || socket.authorized !== true || socket.getPeerCertificate === undefined) return undefined
  const cn: unknown = socket.getPeerCertificate().subject?.CN
  const first = Array.isArray(cn) ? (cn[0] as unknown) : cn
  return typeof first === 'string' && first !== '' ? first : undefined
}

/**
 * The request handler for one kind of listener. GET /health answers 200 with the JSON body, or 503 with the
 * body and a newline (Go's http.Error); other methods get 405. /metrics is the Prometheus text format for any
 * method (promhttp). /version (client URL only, GET only) is {"etcdserver":"3.5.17","etcdcluster":"3.5.0"}.
 * /livez, /readyz and their sub-paths answer as etcd's newHealthHandler: GET only (405 with Allow: GET
 * otherwise); 503 with every check's line and Go's http.Error newline when one fails, verbose or not; else 200
 * "ok\n", after the "[+]name ok" lines when the query has `verbose` (any value). Anything else is Go's
 * "404 page not found".
 */
export function httpHandler(server: EtcdServer, endpoints: HttpEndpoints, opts: { readonly pprof?: boolean; readonly gateway?: RequestListener } = {}): RequestListener {
  const metrics = serverMetrics(server)
  // 3.4 writes the body without "reason" and has no serializable check.
  const v34 = (): boolean => majorMinor(metrics.etcdVersion()) === '3.4'
  const answerHealth = (res: ServerResponse, h: Health): void => {
    metrics.healthChecked(h.health === 'true')
    const body = JSON.stringify(v34() ? { health: h.health } : h)
    if (h.health !== 'true') {
      httpError(res, 503, body)
      return
    }
    res.writeHead(200, { 'Content-Type': TEXT })
    res.end(body)
  }
  const health = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    if (req.method !== 'GET') {
      httpError(res, 405, 'Method Not Allowed', { Allow: 'GET' })
      return
    }
    const excluded = new Set(url.searchParams.getAll('exclude').filter((a) => a !== ''))
    const v2 = endpoints === 'client' ? server.v2 : undefined
    if (v2 !== undefined) {
      void checkV2Health(server, v2, excluded).then((h) => answerHealth(res, h))
      return
    }
    answerHealth(res, checkHealth(server, excluded, !v34() && url.searchParams.get('serializable') === 'true'))
  }
  const version = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'GET') {
      httpError(res, 405, 'Method Not Allowed', { Allow: 'GET' })
      return
    }
    const v = metrics.etcdVersion()
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify({ etcdserver: v, etcdcluster: `${majorMinor(v)}.0` }))
  }
  const namedChecks = (req: IncomingMessage, res: ServerResponse, url: URL, sel: NonNullable<ReturnType<typeof checksFor>>): void => {
    if (req.method !== 'GET') {
      httpError(res, 405, 'Method Not Allowed', { Allow: 'GET' })
      return
    }
    const h = runHealthChecks(server, sel.type, sel.names)
    for (const [name, ok] of h.results) metrics.namedCheckRun(sel.type, name, ok)
    if (!h.ok) {
      httpError(res, 503, h.reason)
      return
    }
    res.writeHead(200, { 'Content-Type': TEXT, 'X-Content-Type-Options': 'nosniff' })
    res.end(`${url.searchParams.has('verbose') ? h.reason : ''}ok\n`)
  }
  const prometheus = (res: ServerResponse): void => {
    metrics.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': metrics.contentType })
        res.end(text)
      },
      (err: unknown) => httpError(res, 500, `An error has occurred while serving metrics:\n\n${errorMessage(err)}`),
    )
  }
  const requestUrl = (req: IncomingMessage): URL => new URL(req.url ?? '/', 'http://localhost')
  // /debug/pprof/ before everything else, as etcd registers it on the client URLs' mux (pkg/debugutil/pprof.ts).
  const withPprof = (h: RequestListener): RequestListener => opts.pprof !== true ? h : (req, res) => {
    const url = requestUrl(req)
    if (url.pathname !== HTTP_PREFIX_PPROF && !url.pathname.startsWith(`${HTTP_PREFIX_PPROF}/`)) {
      h(req, res)
      return
    }
    import('../pkg/debugutil/pprof.js').then((m) => m.servePprof(req, res, url)).catch((err: unknown) => {
      if (!res.headersSent) httpError(res, 500, errorMessage(err))
    })
  }
  const newV2Handler = server.v2?.clientHandler
  if (endpoints === 'client' && server.v2 !== undefined && newV2Handler !== undefined) {
    return withAccessController(server, withPprof(newV2Handler(server.v2, {
      version: (req, res) => version(req, res),
      metrics: (_req, res) => prometheus(res),
      health: (req, res) => health(req, res, requestUrl(req)),
    })), opts.gateway)
  }
  const handler: RequestListener = (req, res) => {
    const url = requestUrl(req)
    switch (url.pathname) {
      case '/health':
        health(req, res, url)
        return
      case '/metrics':
        prometheus(res)
        return
      case '/version':
        if (endpoints === 'client') {
          version(req, res)
          return
        }
        break
      default: {
        const sel = checksFor(url.pathname, url)
        if (sel !== undefined) {
          namedChecks(req, res, url, sel)
          return
        }
        break
      }
    }
    httpError(res, 404, '404 page not found')
  }
  return endpoints === 'client' ? withAccessController(server, withPprof(handler), opts.gateway) : handler
}

/** A plain HTTP listener (etcd's --listen-metrics-urls). */
export class HttpListener {
  readonly host: string
  readonly port: number
  private readonly server: Server
  private closing: Promise<void> | undefined

  private constructor(server: Server, host: string, port: number) {
    this.server = server
    this.host = host
    this.port = port
  }

  /** Listen on host:port (port 0 picks a free one) and serve `handler`. */
  static listen(handler: RequestListener, host: string, port: number): Promise<HttpListener> {
    const server = createServer(handler)
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen({ host, port }, () => {
        server.off('error', reject)
        resolve(new HttpListener(server, host, (server.address() as AddressInfo).port))
      })
    })
  }

  /** Stop listening; requests in flight finish (up to graceMs), idle connections close at once. Idempotent. */
  close(graceMs = 5000): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.server.closeAllConnections(), graceMs)
      timer.unref()
      this.server.close(() => {
        clearTimeout(timer)
        resolve()
      })
    })
    return this.closing
  }
}
