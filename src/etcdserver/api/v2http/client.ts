// etcd's v2http/client.go (3.5.17) NewClientHandler: the client URL's HTTP API with --enable-v2. Go's
// ServeMux routes it (an unclean path is redirected, 301, to its clean form; an unknown one is 404), over
// the handlers of /v2/keys (the v2 store: reads, writes, long-poll and stream watches), /v2/members,
// /v2/machines, /v2/stats/{store,self,leader} and /v2/auth/..., beside /version, /metrics and /health, which
// the caller provides (embed/http.ts).
import type { RequestListener } from 'node:http'
import { utf8ToBstr } from '../../../pkg/bstr.js'
import { goJsonEncode } from '../../../pkg/go-json.js'
import { clean, join } from '../../../pkg/go-path.js'
import { parseGoBool, parseGoUint64 } from '../../../pkg/go-strconv.js'
import { escapePath, hexEscapeNonAscii, parseRequestUri, type Values } from '../../../pkg/go-url.js'
import { requestV2, type RequestV2, type ResponseV2 } from '../../v2-request.js'
import { STORE_KEYS_PREFIX, type V2Server } from '../../v2-server.js'
import { AuthPanic } from '../v2auth/auth.js'
import {
  EcodeIndexNaN, EcodeInvalidField, EcodeInvalidForm, EcodePrevValueRequired, EcodeRaftInternal, EcodeRefreshTTLRequired,
  EcodeRefreshValue, EcodeTTLNaN, EcodeUnauthorized, V2Error, requestError,
} from '../v2error/error.js'
import { eventJson, isCreated, type V2Event } from '../v2store/event.js'
import { NodeEncodeError } from '../v2store/node-extern.js'
import { StoreError } from '../v2store/store.js'
import type { Watcher } from '../v2store/watcher.js'
import {
  AUTH_PREFIX, baseRoles, baseUsers, enableDisable, handleRoles, handleUsers, hasKeyPrefixAccess, hasWriteRootAccess,
  writeNoAuth, type AuthContext,
} from './client-auth.js'
import { badRequest } from './bad-request.js'
import { GoRequest, GoResponse, httpError } from './go-http.js'
import { allowMethod, writeError, writeV2Error } from './http.js'
import { HTTPError, checkPeerUrls, memberJson } from './httptypes.js'
import { asError, errorMessage } from '../../../pkg/as-error.js'

const KEYS_PREFIX = '/v2/keys'
const MACHINES_PREFIX = '/v2/machines'
const MEMBERS_PREFIX = '/v2/members'
const STATS_PREFIX = '/v2/stats'

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

// /v2/keys

/** getUint64 / getBool: the first value of a field, when present. */
const first = (form: Values, key: string): string | undefined => form.get(key)?.[0]

/** parseKeyRequest: the v2 request a /v2/keys call asks for, or the V2Error refusing its form. */
async function parseKeyRequest(r: GoRequest, now: bigint): Promise<{ rr: RequestV2; noValueOnSuccess: boolean }> {
  const { values: form, error } = await r.parseForm()
  if (error !== undefined) throw requestError(EcodeInvalidForm, error)
  const p = join(STORE_KEYS_PREFIX, r.path.slice(KEYS_PREFIX.length))
  const uint = (key: string): bigint => {
    const v = first(form, key)
    if (v === undefined) return 0n
    const n = parseGoUint64(v)
    if (n === undefined) throw requestError(EcodeIndexNaN, `invalid value for "${key}"`)
    return n
  }
  const bool = (key: string, cause = `invalid value for "${key}"`): boolean => {
    const v = first(form, key)
    if (v === undefined) return false
    const b = parseGoBool(v)
    if (b === undefined) throw requestError(EcodeInvalidField, cause)
    return b
  }
  const prevIndex = uint('prevIndex')
  const since = uint('waitIndex')
  const recursive = bool('recursive')
  const sorted = bool('sorted')
  const wait = bool('wait')
  const dir = bool('dir')
  const quorum = bool('quorum')
  const stream = bool('stream')
  if (wait && r.method !== 'GET') throw requestError(EcodeInvalidField, '"wait" can only be used with GET requests')
  const prevValue = first(form, 'prevValue') ?? ''
  if (form.has('prevValue') && prevValue === '') throw requestError(EcodePrevValueRequired, '"prevValue" cannot be empty')
  const noValueOnSuccess = bool('noValueOnSuccess')
  let ttl: bigint | undefined
  const ttlText = first(form, 'ttl') ?? ''
  if (ttlText.length > 0) {
    ttl = parseGoUint64(ttlText)
    if (ttl === undefined) throw requestError(EcodeTTLNaN, 'invalid value for "ttl"')
  }
  const prevExist = form.has('prevExist') ? bool('prevExist', 'invalid value for prevExist') : undefined
  let refresh: boolean | undefined
  if (form.has('refresh')) {
    refresh = bool('refresh', 'invalid value for refresh')
    if (refresh) {
      if (form.has('value') && (first(form, 'value') ?? '') !== '') throw requestError(EcodeRefreshValue, 'A value was provided on a refresh')
      if (ttl === undefined) throw requestError(EcodeRefreshTTLRequired, 'No TTL value set')
    }
  }
  // time.Now().Add(time.Duration(ttl) * time.Second).UnixNano(), with Go's int64 wrap-around.
  const expiration = ttl === undefined ? 0n : BigInt.asIntN(64, now + BigInt.asIntN(64, BigInt.asIntN(64, ttl) * 1_000_000_000n))
  const rr = requestV2({
    method: r.method, path: p, val: first(form, 'value') ?? '', dir, prevValue, prevIndex, prevExist, wait, since,
    recursive, sorted, quorum, stream, refresh, expiration,
  })
  return { rr, noValueOnSuccess }
}

/** writeKeyError: a V2Error as itself, anything else as a Raft Internal Error naming it. */
function writeKeyError(w: GoResponse, err: unknown): void {
  if (err instanceof V2Error) {
    writeV2Error(w, err)
    return
  }
  // A StoreError's text holds byte strings already; other errors are plain text.
  const message = err instanceof StoreError ? err.message : utf8ToBstr(errorMessage(err))
  writeV2Error(w, new V2Error(EcodeRaftInternal, message, 0))
}

function writeKeyEvent(w: GoResponse, resp: ResponseV2, ev: V2Event, noValueOnSuccess: boolean): void {
  w.setHeader('Content-Type', 'application/json')
  w.setHeader('X-Etcd-Index', String(ev.etcdIndex))
  w.setHeader('X-Raft-Index', String(resp.index))
  w.setHeader('X-Raft-Term', String(resp.term))
  if (isCreated(ev)) w.writeHeader(201)
  const drop = noValueOnSuccess && (ev.action === 'set' || ev.action === 'compareAndSwap' || ev.action === 'create' || ev.action === 'update')
  let body: string
  try {
    body = goJsonEncode(eventJson(drop ? { ...ev, node: undefined, prevNode: undefined } : ev, STORE_KEYS_PREFIX))
  } catch (err) {
    // Go's encoder fails before writing anything: the status alone goes out.
    if (err instanceof NodeEncodeError) return
    throw err
  }
  w.write(body)
}

/**
 * handleKeyWatch: headers at once (X-Etcd-Index is the index the watch began at), then each event as a line
 * of JSON: one for a long poll, every one for a stream, until the client leaves.
 */
function handleKeyWatch(w: GoResponse, resp: ResponseV2, wa: Watcher, stream: boolean): Promise<void> {
  w.setHeader('Content-Type', 'application/json')
  w.setHeader('X-Etcd-Index', String(wa.startIndex))
  w.setHeader('X-Raft-Index', String(resp.index))
  w.setHeader('X-Raft-Term', String(resp.term))
  w.writeHeader(200)
  w.flush()
  return new Promise<void>((resolve) => {
    let ended = false
    const end = (): void => {
      if (ended) return
      ended = true
      wa.remove()
      w.raw.off('close', end)
      w.raw.off('drain', pump)
      resolve()
    }
    const pump = (): void => {
      while (!ended && !w.backedUp) {
        const ev = wa.take()
        if (ev === undefined) {
          if (wa.closed) end()
          return
        }
        w.write(goJsonEncode(eventJson(ev, STORE_KEYS_PREFIX)))
        if (!stream) {
          end()
          return
        }
      }
    }
    w.raw.on('close', end)
    w.raw.on('drain', pump)
    wa.onWake(pump)
    pump()
  })
}

async function serveKeys(v2: V2Server, r: GoRequest, w: GoResponse): Promise<void> {
  if (!allowMethod(w, r.method, 'HEAD', 'GET', 'PUT', 'POST', 'DELETE')) return
  w.setHeader('X-Etcd-Cluster-Id', v2.clusterIdString())
  let parsed: { rr: RequestV2; noValueOnSuccess: boolean }
  try {
    parsed = await parseKeyRequest(r, v2.now())
  } catch (err) {
    writeKeyError(w, err)
    return
  }
  const { rr, noValueOnSuccess } = parsed
  if (!(await hasKeyPrefixAccess(v2.auth, r, r.path.slice(KEYS_PREFIX.length), rr.recursive))) {
    writeV2Error(w, new V2Error(EcodeUnauthorized, 'Insufficient credentials', 0))
    return
  }
  let resp: ResponseV2
  try {
    resp = await v2.do(rr)
  } catch (err) {
    if (err instanceof V2Error && err.errorCause.startsWith(STORE_KEYS_PREFIX)) err.errorCause = err.errorCause.slice(STORE_KEYS_PREFIX.length)
    writeKeyError(w, err)
    return
  }
  if (resp.event !== undefined) writeKeyEvent(w, resp, resp.event, noValueOnSuccess)
  else if (resp.watcher !== undefined) await handleKeyWatch(w, resp, resp.watcher, rr.stream)
  else writeKeyError(w, new Error('received response with no Event/Watcher'))
}

// /v2/machines, /v2/members, /v2/stats

function serveMachines(v2: V2Server, r: GoRequest, w: GoResponse): void {
  if (!allowMethod(w, r.method, 'GET', 'HEAD')) return
  w.write(Buffer.from([...v2.server.member.clientUrls].sort().join(', '), 'utf8'))
}

function serveStats(r: GoRequest, w: GoResponse, body: () => string): void {
  if (!allowMethod(w, r.method, 'GET')) return
  w.setHeader('Content-Type', 'application/json')
  w.write(body())
}

/** This member as /v2/members shows it. */
function self(v2: V2Server): ReturnType<typeof memberJson> {
  const m = v2.server.member
  return memberJson({ id: v2.server.memberId.toString(16), name: utf8ToBstr(m.name), peerURLs: m.peerUrls.map(utf8ToBstr), clientURLs: m.clientUrls.map(utf8ToBstr) })
}

/** unmarshalRequest of a member request: JSON content type, then {"peerURLs": [...]} that NewURLs accepts. */
async function memberRequest(r: GoRequest, w: GoResponse): Promise<boolean> {
  let ctype = r.header('Content-Type')
  const semi = ctype.indexOf(';')
  if (semi !== -1) ctype = ctype.slice(0, semi).trim().toLowerCase()
  if (ctype !== 'application/json') {
    writeError(w, new HTTPError(415, `Bad Content-Type ${utf8ToBstr(ctype)}, accept application/json`))
    return false
  }
  const body = (await r.readBody()).toString('utf8')
  let v: unknown
  try {
    v = JSON.parse(body) as unknown
  } catch {
    // Go's texts for the two common cases; its wording for other syntax errors names the offending byte.
    const c = body.trim()[0]
    writeError(w, new HTTPError(400, c === undefined || c === '{' || c === '[' || c === '"' ? 'unexpected end of JSON input' : utf8ToBstr(`invalid character '${c}' looking for beginning of value`)))
    return false
  }
  const raw: unknown = typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.entries(v as Record<string, unknown>).find(([k]) => k.toLowerCase() === 'peerurls')?.[1] : undefined
  if (raw !== undefined && raw !== null && !(Array.isArray(raw) && raw.every((x: unknown) => typeof x === 'string'))) {
    writeError(w, new HTTPError(400, 'json: cannot unmarshal into Go struct field .peerURLs of type []string'))
    return false
  }
  const bad = checkPeerUrls(Array.isArray(raw) ? raw : [])
  if (bad !== undefined) {
    writeError(w, new HTTPError(400, utf8ToBstr(bad)))
    return false
  }
  return true
}

/** getID: the member ID at the end of the path (hexadecimal), or the refusal already written. */
function memberId(r: GoRequest, w: GoResponse): bigint | undefined {
  const idStr = r.path.slice(MEMBERS_PREFIX.length).replace(/^\//, '')
  if (idStr === '') {
    httpError(w, 'Method Not Allowed', 405)
    return undefined
  }
  if (!/^[0-9a-fA-F]+$/.test(idStr) || BigInt(`0x${idStr}`) >= 1n << 64n) {
    writeError(w, new HTTPError(404, `No such member: ${idStr}`))
    return undefined
  }
  return BigInt(`0x${idStr}`)
}

async function serveMembers(v2: V2Server, r: GoRequest, w: GoResponse, report: (err: unknown) => void): Promise<void> {
  if (!allowMethod(w, r.method, 'GET', 'POST', 'DELETE', 'PUT')) return
  if (!(await hasWriteRootAccess(v2.auth, r))) return writeNoAuth(w)
  w.setHeader('X-Etcd-Cluster-Id', v2.clusterIdString())
  // etcdlite is one member whose membership cannot change. Removing this member fails in etcd too (not
  // enough started members: a 500); an add or an update of this member, which etcd applies, fails alike.
  const refuse = (): void => writeError(w, new Error('etcdserver: etcdlite is a single-member server; cluster membership cannot change'), report)
  switch (r.method) {
    case 'GET': {
      const sub = r.path.slice(MEMBERS_PREFIX.length).replace(/^\//, '')
      if (sub === '') {
        w.setHeader('Content-Type', 'application/json')
        w.write(goJsonEncode({ members: [self(v2)] }))
      } else if (sub === 'leader') {
        w.setHeader('Content-Type', 'application/json')
        w.write(goJsonEncode(self(v2)))
      } else {
        writeError(w, new HTTPError(404, 'Not found'))
      }
      return
    }
    case 'POST':
      if (await memberRequest(r, w)) refuse()
      return
    case 'DELETE':
    case 'PUT': {
      const id = memberId(r, w)
      if (id === undefined || (r.method === 'PUT' && !(await memberRequest(r, w)))) return
      if (id === v2.server.memberId) return refuse()
      await v2.rejectedConfChange()
      writeError(w, new HTTPError(404, `No such member: ${id.toString(16)}`))
      return
    }
  }
}
