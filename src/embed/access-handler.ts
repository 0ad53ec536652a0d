// etcd's accessController (embed/serve.go) in front of the client URL's HTTP handlers and the gateway's
// WebSocket upgrades: the request target parsed as Go's server parses it, /v3beta/ as /v3/, the Host
// whitelist against DNS rebinding, the refusal of a gateway request whose client certificate names a user,
// and CORS.
import type { IncomingMessage, RequestListener } from 'node:http'
import type { Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { hostnameOf } from '../etcdserver/access-controller.js'
import { badRequest } from '../etcdserver/api/v2http/bad-request.js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import { isWebSocketUpgrade } from '../gateway/websocket-proxy.js'
import type { UpgradeHandler } from '../grpc/server.js'
import { goQuote } from '../pkg/go-quote.js'
import { clean } from '../pkg/go-path.js'
import { parseRequestUri } from '../pkg/go-url.js'
import { httpError } from './http-error.js'

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

/** /v3beta/ as an alias of /v3/ (etcd 3.4 and 3.5 alike; /v3alpha/ is not served). */
const withoutV3beta = (url: string): string => url.startsWith('/v3beta/') ? `/v3/${url.slice('/v3beta/'.length)}` : url

/** Whether a request path is the gateway's (Go's ServeMux sends /v3 and everything under /v3/ to it). */
const isGatewayPath = (url: string): boolean => url === '/v3' || url.startsWith('/v3/') || url.startsWith('/v3?')

/**
 * etcd's accessController for the client URL: /v3beta/ rewritten to /v3/ (etcd 3.4 and 3.5 alike; /v3alpha/
 * is not served); a plaintext request must name a whitelisted host; a gateway request over TLS with
 * --client-cert-auth and auth on is refused if its certificate has a common name (the gateway would not
 * use it); CORS headers for allowed origins (for all when "*" is allowed); OPTIONS answered at once; then
 * /v3 and /v3/... to the gateway and everything else to `handler`.
 */
export function withAccessController(server: EtcdServer, handler: RequestListener, gateway: RequestListener | undefined): RequestListener {
  const ac = server.accessController
  return (req, res) => {
    try {
      // Go's server answers a request target it cannot parse before any handler runs.
      parseRequestUri(req.url ?? '/')
    } catch {
      badRequest(res)
      return
    }
    if (req.url !== undefined) req.url = withoutV3beta(req.url)
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
    const url = withoutV3beta(req.url ?? '/')
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
