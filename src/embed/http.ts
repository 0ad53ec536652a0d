// The HTTP endpoints etcd serves beside gRPC (etcd 3.5 server/etcdserver/api/etcdhttp: metrics.go, version.go):
// /health, /metrics and /version on the client URL (same port as gRPC, see grpc/server.ts), and /metrics and
// /health alone on --listen-metrics-urls. /health follows the version etcdlite reports: 3.5's body
// ({"health":"true","reason":""}, ?exclude=ALARM, ?serializable=true) by default, 3.4's ({"health":"true"},
// ?exclude=ALARM, always a linearizable check) when it reports 3.4.x, as clients parse either (health.ts
// has the checks). Both kinds of listener also serve etcd 3.5.11+'s /livez and /readyz and their per-check
// sub-paths (health-checks.ts).
// With the v2 API on (--enable-v2) the client URL is etcd's v2 handler instead (etcdserver/api/v2http):
// /v2/..., /version, /metrics and a /health that checks the v2 store, and no /livez or /readyz, as etcd 3.5.
// Every client URL response carries etcd's CORS headers, and OPTIONS is answered 200 (its accessController,
// access-handler.ts).
// The JSON gateway (src/gateway/), when given, serves /v3 and everything under /v3/ (after /v3beta/ becomes /v3/).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import { majorMinor, serverMetrics } from '../etcdserver/metrics.js'
import { errorMessage } from '../pkg/as-error.js'
import { HTTP_PREFIX_PPROF } from '../pkg/debugutil/pprof-path.js'
import { withAccessController } from './access-handler.js'
import { checkHealth, checkV2Health, type Health } from './health.js'
import { checksFor, runHealthChecks } from './health-checks.js'
import { httpError, TEXT } from './http-error.js'

/** Which endpoints a listener serves: the client URL's, or a metrics URL's (no /version, as in etcd). */
export type HttpEndpoints = 'client' | 'metrics'

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
