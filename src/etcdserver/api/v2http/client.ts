// etcd's v2http/client.go (3.5.17) NewClientHandler: the client URL's HTTP API with --enable-v2. Go's
// ServeMux routes it (an unclean path is redirected, 301, to its clean form; an unknown one is 404), over
// the handlers of /v2/keys (client-keys.ts: the v2 store's reads, writes, long-poll and stream watches),
// /v2/members, /v2/machines and /v2/stats/{store,self,leader} (client-cluster.ts) and /v2/auth/...
// (client-auth.ts), beside /version, /metrics and /health, which the caller provides (embed/http.ts).
import type { RequestListener } from 'node:http'
import { asError } from '../../../pkg/as-error.js'
import { clean } from '../../../pkg/go-path.js'
import { escapePath, hexEscapeNonAscii, parseRequestUri } from '../../../pkg/go-url.js'
import type { V2Server } from '../../v2-server.js'
import { AuthPanic } from '../v2auth/errors.js'
import { AUTH_PREFIX, baseRoles, baseUsers, enableDisable, handleRoles, handleUsers, type AuthContext } from './client-auth.js'
import { MACHINES_PREFIX, MEMBERS_PREFIX, STATS_PREFIX, serveMachines, serveMembers, serveStats } from './client-cluster.js'
import { KEYS_PREFIX, serveKeys } from './client-keys.js'
import { badRequest } from './bad-request.js'
import { GoRequest, GoResponse, httpError } from './go-http.js'
import { writeError } from './http.js'

/** A handler of the mux. */
export type GoHandler = (r: GoRequest, w: GoResponse) => void | Promise<void>

/** What NewClientHandler serves beside the v2 API: etcdhttp's /version, /metrics and the v2 /health. */
export interface BasicHandlers {
  readonly version: RequestListener
  readonly metrics: RequestListener
  readonly health: RequestListener
}

/** Go's cleanPath: rooted, cleaned, keeping a trailing slash. */
function cleanPath(p: string): string {
  if (p === '') return '/'
  const rooted = p.startsWith('/') ? p : `/${p}`
  let np = clean(rooted)
  if (rooted.endsWith('/') && np !== '/') np += '/'
  return np
}

/** http.NotFound. */
const notFound: GoHandler = (_r, w) => httpError(w, '404 page not found', 404)

/** http.Redirect with 301 to a clean path (the query kept). */
function redirect(r: GoRequest, w: GoResponse, path: string): void {
  const url = escapePath(path) + (r.rawQuery === '' ? '' : `?${r.rawQuery}`)
  w.setHeader('Location', hexEscapeNonAscii(url))
  if (r.method === 'GET' || r.method === 'HEAD') w.setHeader('Content-Type', 'text/html; charset=utf-8')
  w.writeHeader(301)
  if (r.method === 'GET') {
    const html = url.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' })[c] ?? c)
    w.write(`<a href="${html}">Moved Permanently</a>.\n\n`)
  }
}

/** The handler of the client URL with the v2 API on. */
export function newClientHandler(v2: V2Server, basic: BasicHandlers): RequestListener {
  const auth: AuthContext = {
    sec: v2.auth,
    get clusterId(): string {
      return v2.clusterIdString()
    },
  }
  const report = (err: unknown): void => v2.report(err)
  const exact = new Map<string, GoHandler>([
    [KEYS_PREFIX, (r, w) => serveKeys(v2, r, w)],
    [`${STATS_PREFIX}/store`, (r, w) => serveStats(r, w, () => v2.store.jsonStats())],
    [`${STATS_PREFIX}/self`, (r, w) => serveStats(r, w, () => v2.serverStats.selfJson(v2.now()))],
    [`${STATS_PREFIX}/leader`, (r, w) => serveStats(r, w, () => v2.serverStats.leaderJson())],
    [MEMBERS_PREFIX, (r, w) => serveMembers(v2, r, w, report)],
    [MACHINES_PREFIX, (r, w) => serveMachines(v2, r, w)],
    [`${AUTH_PREFIX}/roles`, (r, w) => baseRoles(auth, r, w)],
    [`${AUTH_PREFIX}/users`, (r, w) => baseUsers(auth, r, w)],
    [`${AUTH_PREFIX}/enable`, (r, w) => enableDisable(auth, r, w)],
  ])
  const subtree: [string, GoHandler][] = [
    [`${KEYS_PREFIX}/`, (r, w) => serveKeys(v2, r, w)],
    [`${MEMBERS_PREFIX}/`, (r, w) => serveMembers(v2, r, w, report)],
    [`${AUTH_PREFIX}/roles/`, (r, w) => handleRoles(auth, r, w)],
    [`${AUTH_PREFIX}/users/`, (r, w) => handleUsers(auth, r, w)],
  ]
  const raw: Readonly<Record<string, RequestListener>> = { '/version': basic.version, '/metrics': basic.metrics, '/health': basic.health }

  const route = (path: string): GoHandler => {
    const h = exact.get(path)
    if (h !== undefined) return h
    for (const [prefix, sub] of subtree) if (path.startsWith(prefix)) return sub
    return notFound
  }

  return (req, res) => {
    let uri: ReturnType<typeof parseRequestUri>
    try {
      // node:http reads the request line as latin1: req.url is already a byte string.
      uri = parseRequestUri(req.url ?? '/')
    } catch {
      badRequest(res)
      return
    }
    const r = new GoRequest(req, uri.path, uri.rawQuery)
    const w = new GoResponse(res, r.method)
    const path = cleanPath(uri.path)
    if (path !== uri.path) {
      redirect(r, w, path)
      w.finish()
      return
    }
    const listener = raw[path]
    if (listener !== undefined) {
      listener(req, res)
      return
    }
    let done: void | Promise<void>
    try {
      done = route(path)(r, w)
    } catch (err) {
      done = Promise.reject(asError(err))
    }
    Promise.resolve(done).then(
      () => w.finish(),
      (err: unknown) => {
        if (err instanceof AuthPanic) {
          // etcd's handler panics here; Go's server logs it and drops the connection unanswered.
          report(err)
          res.destroy()
          return
        }
        writeError(w, err, report)
        w.finish()
      },
    )
  }
}
