// curl (the Debian binary) runs etcd's documented JSON gateway examples (the "Why gRPC gateway" page of the
// etcd 3.5 docs: put and range, a prefix range, a streamed watch, transactions on CREATE and VERSION, and
// auth set-up, authenticate and a put with the token) against the real etcd and against etcdlite, each a
// fresh server, plus what a curl user meets when getting it wrong (GET, a bad path, bad JSON, no token).
// Every response — status, content type and body — must be the same on both. Compared with the cluster
// and member IDs, raft term and auth token masked: they differ between any two servers.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createInterface } from 'node:readline'
import { isDeepStrictEqual } from 'node:util'
import { haveEtcd, startEtcdliteProcess, type ServerProcess } from '../helpers/processes.js'
import { startGatewayEtcd } from '../helpers/gateway-etcd.js'

const haveCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0
const skip = !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : !haveCurl ? 'curl is not on PATH' : false

interface Request {
  readonly name: string
  readonly path: string
  /** The -d body (curl then POSTs); none for a plain GET. */
  readonly body?: string
  readonly method?: string
  /** Sends `Authorization: <token>`, the token of the last authenticate step unless `token` is given. */
  readonly withToken?: boolean
  readonly token?: string
}

interface Answer {
  readonly name: string
  readonly status: string
  readonly contentType: string
  readonly body: unknown
}

/** A simple-token auth token: 16 letters, a dot, a counter. */
const TOKEN = /^[A-Za-z]{16}\.\d+$/

/** A JSON body with what differs between servers masked; other bodies as text. */
function normalize(text: string): unknown {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return text
  }
  return JSON.parse(JSON.stringify(body, (k, v: unknown) => {
    if (k === 'cluster_id' || k === 'member_id' || k === 'raft_term') return typeof v === 'string' ? '<masked>' : v
    if (k === 'token' && typeof v === 'string' && TOKEN.test(v)) return '<token>'
    return v
  })) as unknown
}

/** The auth token an authenticate response carries, if `text` is one. */
function tokenIn(text: string): { token?: string } {
  try {
    const token = (JSON.parse(text) as { token?: unknown }).token
    return typeof token === 'string' ? { token } : {}
  } catch {
    return {}
  }
}

function run(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn('curl', ['-sS', '--max-time', '10', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('error', reject)
    p.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`curl ${args.join(' ')} exited with ${String(code)}: ${stderr}`))))
  })
}

/** One request as the docs write it (`curl -L URL -X POST -d BODY`), status and content type appended by -w. */
async function request(endpoint: string, r: Request, token: string): Promise<Answer & { token?: string }> {
  const args = ['-L', `http://${endpoint}${r.path}`, '-w', '\n%{http_code} %{content_type}']
  if (r.method !== undefined) args.push('-X', r.method)
  if (r.body !== undefined) args.push('-X', r.method ?? 'POST', '-d', r.body)
  if (r.withToken === true) args.push('-H', `Authorization: ${r.token ?? token}`)
  const out = await run(args)
  const cut = out.lastIndexOf('\n')
  const trailer = out.slice(cut + 1)
  const space = trailer.indexOf(' ')
  const [status, contentType] = [trailer.slice(0, space), trailer.slice(space + 1)]
  const text = out.slice(0, cut)
  return { name: r.name, status, contentType, body: normalize(text), ...tokenIn(text) }
}

const BEFORE_WATCH: readonly Request[] = [
  { name: 'put foo', path: '/v3/kv/put', body: '{"key": "Zm9v", "value": "YmFy"}' },
  { name: 'range foo', path: '/v3/kv/range', body: '{"key": "Zm9v"}' },
  { name: 'range prefix foo', path: '/v3/kv/range', body: '{"key": "Zm9v", "range_end": "Zm9w"}' },
]

const AFTER_WATCH: readonly Request[] = [
  { name: 'txn target CREATE', path: '/v3/kv/txn', body: '{"compare":[{"target":"CREATE","key":"Zm9v","createRevision":"2"}],"success":[{"requestPut":{"key":"Zm9v","value":"YmFy"}}]}' },
  // The VERSION example expects foo at version 4 with value "baz".
  { name: 'put foo baz', path: '/v3/kv/put', body: '{"key": "Zm9v", "value": "YmF6"}' },
  { name: 'txn target VERSION', path: '/v3/kv/txn', body: '{"compare":[{"version":"4","result":"EQUAL","target":"VERSION","key":"Zm9v"}],"success":[{"requestRange":{"key":"Zm9v"}}]}' },
  { name: 'v3beta range', path: '/v3beta/kv/range', body: '{"key": "Zm9v"}' },
  { name: 'v3alpha range', path: '/v3alpha/kv/range', body: '{"key": "Zm9v"}' },
  { name: 'GET a POST-only path', path: '/v3/kv/range' },
  { name: 'unknown gateway path', path: '/v3/kv/nothing', body: '{}' },
  { name: 'malformed JSON', path: '/v3/kv/range', body: '{bad' },
  { name: 'unknown field ignored', path: '/v3/kv/range', body: '{"key": "Zm9v", "unknown_field": 1}' },
  { name: 'create root user', path: '/v3/auth/user/add', body: '{"name": "root", "password": "pass"}' },
  { name: 'create root role', path: '/v3/auth/role/add', body: '{"name": "root"}' },
  { name: 'grant root role', path: '/v3/auth/user/grant', body: '{"user": "root", "role": "root"}' },
  { name: 'enable auth', path: '/v3/auth/enable', body: '{}' },
  { name: 'authenticate', path: '/v3/auth/authenticate', body: '{"name": "root", "password": "pass"}' },
  { name: 'put with the token', path: '/v3/kv/put', body: '{"key": "Zm9v", "value": "YmFy"}', withToken: true },
  { name: 'range with the token', path: '/v3/kv/range', body: '{"key": "Zm9v"}', withToken: true },
  { name: 'put with a token that is not one', path: '/v3/kv/put', body: '{"key": "Zm9v", "value": "YmFy"}', withToken: true, token: 'nottoken.1' },
  { name: 'put without a token', path: '/v3/kv/put', body: '{"key": "Zm9v", "value": "YmFy"}' },
  { name: 'authenticate with a wrong password', path: '/v3/auth/authenticate', body: '{"name": "root", "password": "wrong"}' },
]

/**
 * The documented watch: `curl -N .../v3/watch -X POST -d '{"create_request": {"key":"Zm9v"} }'` in the
 * background prints the created response; a put then streams the event; the watcher is then stopped.
 */
async function watchExample(endpoint: string): Promise<unknown[]> {
  const p = spawn('curl', ['-sS', '-N', `http://${endpoint}/v3/watch`, '-X', 'POST', '-d', '{"create_request": {"key":"Zm9v"} }'], { stdio: ['ignore', 'pipe', 'pipe'] })
  const timer = setTimeout(() => p.kill('SIGKILL'), 20_000)
  try {
    const lines = createInterface({ input: p.stdout })[Symbol.asyncIterator]()
    const next = async (): Promise<unknown> => {
      const r = await lines.next()
      if (r.done === true) throw new Error('the watch stream ended early')
      return normalize(r.value)
    }
    const created = await next()
    await request(endpoint, { name: 'put foo', path: '/v3/kv/put', body: '{"key": "Zm9v", "value": "YmFy"}' }, '')
    return [created, await next()]
  } finally {
    clearTimeout(timer)
    p.kill('SIGTERM')
  }
}

async function transcript(endpoint: string): Promise<unknown[]> {
  const out: unknown[] = []
  let token = ''
  for (const r of BEFORE_WATCH) out.push(await request(endpoint, r, token))
  out.push({ name: 'watch foo, then put foo', lines: await watchExample(endpoint) })
  for (const r of AFTER_WATCH) {
    const { token: t, ...answer } = await request(endpoint, r, token)
    if (t !== undefined) token = t
    out.push(answer)
  }
  return out
}

describe("curl runs etcd's documented gateway examples", { skip }, () => {
  let ref: ServerProcess
  let lite: ServerProcess
  let expected: unknown[] = []

  // etcdlite reports the oracle's version (it reports 3.5.17 unless told), as status and /version show it.
  before(async () => {
    ;[ref, lite] = await Promise.all([startGatewayEtcd(), startEtcdliteProcess({ memory: true, args: ['--etcd-version', '3.4.23'] })])
  })
  after(async () => {
    await Promise.all([ref?.dispose(), lite?.dispose()])
  })

  it('against the real etcd, the answers the docs show', async () => {
    expected = await transcript(ref.endpoint)
    const at = (name: string): unknown => expected.find((a) => (a as { name?: string }).name === name)
    assert.deepEqual(at('range foo'), {
      name: 'range foo', status: '200', contentType: 'application/json',
      body: { header: { cluster_id: '<masked>', member_id: '<masked>', revision: '2', raft_term: '<masked>' }, kvs: [{ key: 'Zm9v', create_revision: '2', mod_revision: '2', version: '1', value: 'YmFy' }], count: '1' },
    })
    assert.equal((at('txn target VERSION') as { body: { succeeded?: boolean } }).body.succeeded, true)
    assert.equal((at('put with the token') as { status: string }).status, '200')
  })

  it('etcdlite answers every request as etcd does', async () => {
    assert.ok(expected.length > 0, 'the reference transcript is missing')
    const actual = await transcript(lite.endpoint)
    const name = (a: unknown): string => (a as { name?: string } | undefined)?.name ?? '?'
    const differ = expected.filter((e, i) => !isDeepStrictEqual(actual[i], e)).map(name)
    // Every differing request is named at once; the diff shows them in full.
    assert.deepEqual(actual, expected, `requests answered differently: ${differ.join('; ')}`)
  })
})
