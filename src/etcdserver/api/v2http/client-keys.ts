// etcd's v2http/client.go keysHandler (3.5.17): /v2/keys parses its form into a v2 request as etcd's
// parseKeyRequest does (same checks, order and error codes), checks the caller's key access, runs the
// request, and answers with the event as JSON or holds the response open for a long-poll or stream watch.
import { utf8ToBstr } from '../../../pkg/bstr.js'
import { goJsonEncode } from '../../../pkg/go-json.js'
import { join } from '../../../pkg/go-path.js'
import { parseGoBool, parseGoUint64 } from '../../../pkg/go-strconv.js'
import type { Values } from '../../../pkg/go-url.js'
import { errorMessage } from '../../../pkg/as-error.js'
import { requestV2, type RequestV2, type ResponseV2 } from '../../v2-request.js'
import { STORE_KEYS_PREFIX, type V2Server } from '../../v2-server.js'
import {
  EcodeIndexNaN, EcodeInvalidField, EcodeInvalidForm, EcodePrevValueRequired, EcodeRaftInternal, EcodeRefreshTTLRequired,
  EcodeRefreshValue, EcodeTTLNaN, EcodeUnauthorized, V2Error, requestError,
} from '../v2error/error.js'
import { eventJson, isCreated, type V2Event } from '../v2store/event.js'
import { NodeEncodeError } from '../v2store/node-extern.js'
import { StoreError } from '../v2store/store.js'
import type { Watcher } from '../v2store/watcher.js'
import { hasKeyPrefixAccess } from './client-auth.js'
import type { GoRequest, GoResponse } from './go-http.js'
import { allowMethod, writeV2Error } from './http.js'

export const KEYS_PREFIX = '/v2/keys'

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

/** The /v2/keys handler (etcd's keysHandler.ServeHTTP). */
export async function serveKeys(v2: V2Server, r: GoRequest, w: GoResponse): Promise<void> {
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

