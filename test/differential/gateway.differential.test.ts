// The JSON gateway, request by request against the real etcd 3.4.23's (same fresh state on both): every
// route, the encoding of every kind of field, bad bodies and their Go errors, unknown paths and methods,
// the streams (watch, keep-alive, snapshot, observe), auth by token. Compared: the status code, the
// content type, and the body with what identifies a cluster, a member or an election (ids, raft term, the
// store's size and hash, tokens) blanked. Where etcd 3.5 answers otherwise than 3.4 (the key order of an
// error body), the 3.4 answer is brought to 3.5's form first (see to35).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { gatewayRequest, type GatewayAnswer, type GatewayRequest } from '../helpers/gateway-http.js'
import { etcdServing, haveEtcd, referenceEtcdArgs } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'

const skip = haveEtcd() ? false : 'the reference `etcd` binary is not on PATH'

const b64 = (s: string): string => Buffer.from(s).toString('base64')

/** A port free right now (etcd's gateway dials its listener's literal address, so port 0 will not do). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const a = s.address()
      s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0))
    })
  })
}

/** Keys whose values differ between any two clusters (or runs), blanked before comparing. */
const BLANK = new Set(['cluster_id', 'member_id', 'raft_term', 'token', 'leader', 'raftIndex', 'raftTerm', 'raftAppliedIndex',
  'dbSize', 'dbSizeInUse', 'hash', 'version', 'remaining_bytes', 'blob', 'peerURLs', 'clientURLs', 'name', 'memberID', 'ID', 'isLearner'])

/** A member's or a status's fields are blanked; a lease ID is kept (the tests choose them). */
function blank(v: unknown, path: string): unknown {
  if (Array.isArray(v)) return v.map((x) => blank(x, path))
  if (typeof v !== 'object' || v === null) return v
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const lease = k === 'ID' && path.includes('lease')
    const kv = k === 'version' && path.includes('kv')
    // etcd 3.4's snapshot carries no header (3.5's first chunk does); the server's, not the gateway's.
    if (k === 'header' && path.includes('snapshot')) continue
    out[k] = BLANK.has(k) && !lease && !kv && (typeof x !== 'object' || Array.isArray(x)) ? '<x>' : blank(x, lease || kv ? path : `${path}/${k}`)
  }
  return out
}

/** 3.4's unary error body ({"error","message","code"}) in 3.5's key order ({"error","code","message"}). */
function to35(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v
  const o = v as Record<string, unknown>
  const keys = Object.keys(o)
  if (keys.join() !== 'error,message,code') return v
  return { error: o['error'], code: o['code'], message: o['message'] }
}

/** The answer as compared: status, content type, each body line parsed (or kept as text), blanked. */
function normalize(a: GatewayAnswer, path: string): unknown {
  const lines = a.body.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1)
  return {
    status: a.status,
    contentType: a.headers['content-type'],
    grpcMetadata: a.headers['grpc-metadata-content-type'],
    body: lines.map((l) => {
      try {
        return blank(to35(JSON.parse(l)), path)
      } catch {
        return l
      }
    }),
  }
}

interface Step {
  readonly name: string
  /** A route etcd 3.5 serves and 3.4 does not (its protos lacked the annotation): etcdlite must answer 200. */
  readonly only35?: true
  readonly req: (s: ServerState) => GatewayRequest
  /** Remember something from the answer (the auth token). */
  readonly keep?: (s: ServerState, a: GatewayAnswer) => void
}

interface ServerState {
  readonly endpoint: string
  token: string
}

const post = (path: string, body: unknown, extra: Partial<GatewayRequest> = {}): (s: ServerState) => GatewayRequest =>
  () => ({ path, body: typeof body === 'string' ? body : JSON.stringify(body), ...extra })

const steps: readonly Step[] = [
  { name: 'empty range: header only', req: post('/v3/kv/range', { key: b64('a') }) },
  { name: 'put', req: post('/v3/kv/put', { key: b64('a'), value: b64('1') }) },
  { name: 'put with prev_kv (lowerCamel names)', req: post('/v3/kv/put', { key: b64('a'), value: b64('<&>'), prevKv: true }) },
  { name: 'put b', req: post('/v3/kv/put', { key: b64('b'), value: b64('2') }) },
  { name: 'range prefix, sorted by name, limit as number', req: post('/v3/kv/range', { key: b64('a'), range_end: b64('c'), sort_order: 'DESCEND', sort_target: 'MOD', limit: 1 }) },
  { name: 'range with enums as numbers, quoted int64', req: post('/v3/kv/range', { key: b64('a'), range_end: b64('c'), sort_order: 1, limit: '5', revision: '0' }) },
  { name: 'range count_only', req: post('/v3/kv/range', { key: b64('a'), range_end: b64('z'), count_only: true }) },
  { name: 'range keys_only via /v3beta', req: post('/v3beta/kv/range', { key: b64('a'), keys_only: true }) },
  { name: '/v3alpha is not served', req: post('/v3alpha/kv/range', { key: b64('a') }) },
  { name: 'txn success', req: post('/v3/kv/txn', { compare: [{ key: b64('a'), target: 'VERSION', result: 'EQUAL', version: 2 }], success: [{ request_range: { key: b64('a') } }, { requestPut: { key: b64('c'), value: b64('3') } }] }) },
  { name: 'txn failure: no succeeded', req: post('/v3/kv/txn', { compare: [{ key: b64('a'), target: 'VALUE', result: 'EQUAL', value: b64('nope') }], failure: [{ request_delete_range: { key: b64('c'), prev_kv: true } }] }) },
  { name: 'txn with a oneof set to its zero value', req: post('/v3/kv/txn', { compare: [{ key: b64('zz'), target: 'MOD', mod_revision: '0' }] }) },
  { name: 'deleterange', req: post('/v3/kv/deleterange', { key: b64('b'), prev_kv: true }) },
  { name: 'compaction', req: post('/v3/kv/compaction', { revision: 2, physical: true }) },
  { name: 'range at a compacted revision', req: post('/v3/kv/range', { key: b64('a'), revision: 1 }) },
  { name: 'range of a future revision', req: post('/v3/kv/range', { key: b64('a'), revision: 100 }) },
  { name: 'put without a key', req: post('/v3/kv/put', { value: b64('x') }) },
  { name: 'empty body: empty request', req: post('/v3/kv/range', '') },
  { name: 'null body', req: post('/v3/kv/range', 'null') },
  { name: 'trailing garbage after the first value is ignored', req: post('/v3/kv/range', `{"key":"${b64('a')}"} xyz`) },
  { name: 'unknown fields are ignored', req: post('/v3/kv/range', { key: b64('a'), bogus: [1, { x: 2 }] }) },
  { name: 'bad JSON: bad character', req: post('/v3/kv/range', '{"key" x') },
  { name: 'bad JSON: after key:value', req: post('/v3/kv/range', '{"key":"YQ=="x') },
  { name: 'bad JSON: cut off', req: post('/v3/kv/range', '{"key":"YQ==') },
  { name: 'bad JSON: beginning of value', req: post('/v3/kv/range', 'x') },
  { name: 'bad JSON: trailing comma', req: post('/v3/kv/range', '{"key":"YQ==",}') },
  { name: 'bad JSON: literal', req: post('/v3/kv/range', '{"keys_only":trxe}') },
  { name: 'bad JSON: number', req: post('/v3/kv/range', '{"limit":-x}') },
  { name: 'bad JSON: string escape', req: post('/v3/kv/range', '{"key":"\\q"}') },
  { name: 'body not an object', req: post('/v3/kv/range', '[1]') },
  { name: 'bytes as a number', req: post('/v3/kv/range', { key: 5 }) },
  { name: 'bad base64', req: post('/v3/kv/range', { key: 'YQ=' }) },
  { name: 'base64 with bad padding', req: post('/v3/kv/range', { key: 'Y===' }) },
  { name: 'int64 as a float', req: post('/v3/kv/range', { key: b64('a'), limit: 1.5 }) },
  { name: 'int64 as a quoted word', req: post('/v3/kv/range', { key: b64('a'), limit: 'abc' }) },
  { name: 'int64 as a bool', req: post('/v3/kv/range', { key: b64('a'), limit: true }) },
  { name: 'int64 overflow', req: post('/v3/kv/range', '{"key":"YQ==","limit":9223372036854775808}') },
  { name: 'bool as a string', req: post('/v3/kv/range', { key: b64('a'), keys_only: 'true' }) },
  { name: 'unknown enum name', req: post('/v3/kv/range', { key: b64('a'), sort_order: 'X' }) },
  { name: 'message as a string', req: post('/v3/kv/txn', { compare: 'x' }) },
  { name: 'repeated as an object', req: post('/v3/kv/txn', { compare: { key: 'YQ==' } }) },
  { name: 'string as a number', req: post('/v3/auth/user/add', { name: 5 }) },
  { name: 'unknown path', req: post('/v3/kv/nothing', {}) },
  { name: 'trailing slash', req: post('/v3/kv/range/', {}) },
  { name: 'GET on a route', req: () => ({ path: '/v3/kv/range', method: 'GET' }) },
  { name: 'lease grant', req: post('/v3/lease/grant', { TTL: 60, ID: 1000 }) },
  { name: 'lease grant, existing ID', req: post('/v3/lease/grant', { TTL: 60, ID: 1000 }) },
  { name: 'lease timetolive with keys', req: post('/v3/lease/timetolive', { ID: 1000, keys: true }) },
  { name: 'lease timetolive, kv alias', req: post('/v3/kv/lease/timetolive', { ID: 1000 }) },
  { name: 'lease leases', req: post('/v3/lease/leases', {}) },
  { name: 'lease leases, kv alias', req: post('/v3/kv/lease/leases', {}) },
  { name: 'lease keepalive, two requests in one body', req: post('/v3/lease/keepalive', '{"ID":1000}{"ID":"1000"}') },
  { name: 'lease keepalive, empty body', req: post('/v3/lease/keepalive', '') },
  { name: 'lease keepalive, bad first request', req: post('/v3/lease/keepalive', '{"ID":x}') },
  { name: 'lease keepalive, unknown lease', req: post('/v3/lease/keepalive', '{"ID":5}') },
  { name: 'put with the lease', req: post('/v3/kv/put', { key: b64('l'), value: b64('v'), lease: 1000 }) },
  { name: 'lease revoke, kv alias', req: post('/v3/kv/lease/revoke', { ID: 1000 }) },
  { name: 'lease revoke, gone', req: post('/v3/lease/revoke', { ID: 1000 }) },
  { name: 'watch: created, cancel, events', req: post('/v3/watch', `{"create_request":{"key":"${b64('a')}","start_revision":1}}`, { lines: 1 }) },
  { name: 'watch: two watches, one with prev_kv', req: post('/v3/watch', `{"create_request":{"key":"${b64('a')}"}} {"create_request":{"key":"${b64('a')}","start_revision":3,"prev_kv":true}}`, { lines: 3 }) },
  { name: 'watch: create and cancel', req: post('/v3/watch', `{"create_request":{"key":"${b64('zz')}"}} {"cancel_request":{"watch_id":0}}`, { lines: 2 }) },
  { name: 'watch: a bad later request half-closes (the watch stays)', req: post('/v3/watch', `{"create_request":{"key":"${b64('a')}","start_revision":3}} {"create_request":x}`, { lines: 2 }) },
  { name: 'watch: bad first request', req: post('/v3/watch', '{"create_request":{"key":5}}') },
  { name: 'watch: filters by name, progress notify', req: post('/v3/watch', `{"create_request":{"key":"${b64('a')}","start_revision":3,"filters":["NODELETE"],"progress_notify":true}}`, { lines: 2 }) },
  { name: 'member list', req: post('/v3/cluster/member/list', {}) },
  { name: 'maintenance status', req: post('/v3/maintenance/status', {}) },
  { name: 'maintenance alarm get', req: post('/v3/maintenance/alarm', { action: 'GET' }) },
  { name: 'maintenance hashkv (3.5 only)', only35: true, req: post('/v3/maintenance/hashkv', { revision: 0 }) },
  { name: 'maintenance hash', req: post('/v3/maintenance/hash', {}) },
  { name: 'maintenance defragment', req: post('/v3/maintenance/defragment', {}) },
  { name: 'maintenance transfer-leadership to itself', req: post('/v3/maintenance/transfer-leadership', { targetID: 1 }) },
  { name: 'maintenance snapshot (first chunk)', req: post('/v3/maintenance/snapshot', {}, { lines: 1 }) },
  { name: 'lock', req: post('/v3/lease/grant', { TTL: 60, ID: 2000 }) },
  { name: 'lock: acquire', req: post('/v3/lock/lock', { name: b64('L'), lease: 2000 }) },
  { name: 'lock: unlock a missing key', req: post('/v3/lock/unlock', { key: b64('nope') }) },
  { name: 'election: campaign', req: post('/v3/election/campaign', { name: b64('E'), lease: 2000, value: b64('v1') }) },
  { name: 'election: leader', req: post('/v3/election/leader', { name: b64('E') }) },
  { name: 'election: leader of nothing', req: post('/v3/election/leader', { name: b64('none') }) },
  { name: 'election: observe', req: post('/v3/election/observe', { name: b64('E') }, { lines: 1 }) },
  { name: 'election: proclaim without a leader key', req: post('/v3/election/proclaim', { value: b64('v2') }) },
  { name: 'election: resign without a leader key', req: post('/v3/election/resign', {}) },
  { name: 'auth: status (3.5 only)', only35: true, req: post('/v3/auth/status', {}) },
  { name: 'auth: add root', req: post('/v3/auth/user/add', { name: 'root', password: 'pw' }) },
  { name: 'auth: add root again', req: post('/v3/auth/user/add', { name: 'root', password: 'pw' }) },
  { name: 'auth: grant root', req: post('/v3/auth/user/grant', { user: 'root', role: 'root' }) },
  { name: 'auth: add role', req: post('/v3/auth/role/add', { name: 'r' }) },
  { name: 'auth: grant permission', req: post('/v3/auth/role/grant', { name: 'r', perm: { permType: 'READWRITE', key: b64('a'), range_end: b64('b') } }) },
  { name: 'auth: role get', req: post('/v3/auth/role/get', { role: 'r' }) },
  { name: 'auth: role list', req: post('/v3/auth/role/list', {}) },
  { name: 'auth: user get', req: post('/v3/auth/user/get', { name: 'root' }) },
  { name: 'auth: user list', req: post('/v3/auth/user/list', {}) },
  { name: 'auth: enable', req: post('/v3/auth/enable', {}) },
  { name: 'auth: range without a token', req: post('/v3/kv/range', { key: b64('a') }) },
  { name: 'auth: bad password', req: post('/v3/auth/authenticate', { name: 'root', password: 'no' }) },
  {
    name: 'auth: authenticate',
    req: post('/v3/auth/authenticate', { name: 'root', password: 'pw' }),
    keep: (s, a) => {
      s.token = (JSON.parse(a.body) as { token: string }).token
    },
  },
  { name: 'auth: range with the token', req: (s) => ({ path: '/v3/kv/range', body: JSON.stringify({ key: b64('a') }), headers: { Authorization: s.token } }) },
  { name: 'auth: range with a bad token', req: () => ({ path: '/v3/kv/range', body: JSON.stringify({ key: b64('a') }), headers: { Authorization: 'bogus' } }) },
  { name: 'auth: watch without a token (created, then cancelled)', req: post('/v3/watch', `{"create_request":{"key":"${b64('a')}"}}`, { lines: 1 }) },
  { name: 'auth: keepalive without a token', req: post('/v3/lease/keepalive', '{"ID":2000}') },
  { name: 'auth: snapshot without a token', req: post('/v3/maintenance/snapshot', {}) },
  { name: 'auth: watch with the token', req: (s) => ({ path: '/v3/watch', body: `{"create_request":{"key":"${b64('a')}"}}`, headers: { Authorization: s.token }, lines: 1 }) },
  { name: 'auth: disable', req: (s) => ({ path: '/v3/auth/disable', body: '{}', headers: { Authorization: s.token } }) },
  { name: 'auth: delete role', req: post('/v3/auth/role/delete', { role: 'r' }) },
  { name: 'auth: change password of a missing user', req: post('/v3/auth/user/changepw', { name: 'nobody', password: 'x' }) },
  { name: 'auth: revoke a role not granted', req: post('/v3/auth/user/revoke', { name: 'root', role: 'r' }) },
  { name: 'auth: revoke permission of a missing role', req: post('/v3/auth/role/revoke', { role: 'r', key: b64('a') }) },
  { name: 'auth: delete user', req: post('/v3/auth/user/delete', { name: 'root' }) },
  { name: 'member promote of a missing member', req: post('/v3/cluster/member/promote', { ID: 12345 }) },
  { name: 'member remove of a missing member', req: post('/v3/cluster/member/remove', { ID: 12345 }) },
  { name: 'member update of a missing member', req: post('/v3/cluster/member/update', { ID: 12345, peerURLs: ['http://127.0.0.1:1'] }) },
  { name: 'bad grpc-timeout', req: () => ({ path: '/v3/kv/range', body: '{}', headers: { 'Grpc-Timeout': 'x' } }) },
]

/**
 * Cases where etcdlite follows a fix later etcd releases made to their gRPC services (see docs/DEVIATIONS.md),
 * so it answers otherwise than 3.4.23: what it answers instead.
 */
const FIXED_LATER: Readonly<Record<string, { readonly why: string; readonly status: number; readonly body: string }>> = {
  'auth: keepalive without a token': {
    why: 'LeaseKeepAlive needs a user once auth is on (CVE-2026-33413; 3.4.23 renews for anyone)',
    status: 400,
    body: '{"error":{"grpc_code":3,"http_code":400,"message":"etcdserver: user name is empty","http_status":"Bad Request"}}',
  },
  'auth: snapshot without a token': {
    why: 'a maintenance refusal is mapped to its gRPC status (etcd 3.6; 3.4 and 3.5 send UNKNOWN "auth: user name is empty")',
    status: 400,
    body: '{"error":{"grpc_code":3,"http_code":400,"message":"etcdserver: user name is empty","http_status":"Bad Request"}}',
  },
}

describe('JSON gateway vs etcd 3.4.23', { skip }, () => {
  let etcd: Etcd
  let lite: ServerState
  let ref: ServerState
  let stopRef: () => Promise<void> = () => Promise.resolve()

  before(async () => {
    etcd = await openEtcd({ memory: true })
    const l = await etcd.listen({ port: 0 })
    lite = { endpoint: l.endpoint, token: '' }
    const dir = await tempDir('etcd-gw-')
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const proc = spawn('etcd', referenceEtcdArgs(dir.path, ['--enable-grpc-gateway=true', '--listen-client-urls', url, '--advertise-client-urls', url]), { stdio: ['ignore', 'ignore', 'pipe'] })
    stopRef = async () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGKILL')
        await new Promise((r) => proc.once('exit', r))
      }
      await dir.remove()
    }
    ref = { endpoint: await etcdServing(proc, 20_000), token: '' }
  })

  after(async () => {
    await etcd.close()
    await stopRef()
  })

  for (const step of steps) {
    it(step.name, async () => {
      const want = await gatewayRequest(ref.endpoint, step.req(ref))
      const got = await gatewayRequest(lite.endpoint, step.req(lite))
      const fixed = FIXED_LATER[step.name]
      if (fixed !== undefined) {
        assert.deepEqual({ status: got.status, body: got.body }, { status: fixed.status, body: fixed.body }, fixed.why)
        return
      }
      step.keep?.(ref, want)
      step.keep?.(lite, got)
      const path = step.req(lite).path
      if (step.only35 === true) {
        assert.equal(want.status, 404)
        assert.equal(got.status, 200, got.body)
        assert.match(got.body, /^\{"header":\{"cluster_id":"\d+","member_id":"\d+","revision":"\d+","raft_term":"\d+"\}/)
        return
      }
      assert.deepEqual(normalize(got, path), normalize(want, path))
    })
  }
})
