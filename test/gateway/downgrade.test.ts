// POST /v3/maintenance/downgrade with curl, as etcd 3.5's gateway serves it (grpc-gateway v1 over the
// Maintenance.Downgrade call): the answers of etcd 3.5.17's downgradeValidate, downgradeEnable and
// downgradeCancel for a one-member cluster at version 3.5, in the gateway's JSON (error, code, message;
// HTTP status from the gRPC code), except that ENABLE and CANCEL answer as etcd 3.6 does where 3.5 times
// out. etcd 3.4 has no such route, so there is no reference run: the expected answers are written out.
// Then a restart with the downgrade still enabled: etcd's fatal line and exit 1.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { startEtcdliteProcess, ETCDLITE_BIN, type ServerProcess } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'

const haveCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0


interface Step {
  readonly name: string
  readonly body: string
  /** HTTP status and body; the header's IDs and term are masked. */
  readonly status: number
  readonly want: unknown
}

const ok = (revision: string): unknown => ({ header: { cluster_id: '<masked>', member_id: '<masked>', revision, raft_term: '<masked>' }, version: '3.5.0' })
const err = (code: number, message: string): unknown => ({ error: message, code, message })
const WRONG_FORMAT = err(3, 'etcdserver: wrong downgrade target version format')
const INVALID_TARGET = err(3, 'etcdserver: invalid downgrade target version')
const IN_PROCESS = err(9, 'etcdserver: cluster has a downgrade job in progress')
const NO_INFLIGHT = err(9, 'etcdserver: no inflight downgrade job')

const STEPS: readonly Step[] = [
  { name: 'validate the previous minor', body: '{"action":"VALIDATE","version":"3.4"}', status: 200, want: ok('1') },
  { name: 'validate with the action left out', body: '{"version":"3.4.23"}', status: 200, want: ok('1') },
  { name: 'validate by number', body: '{"action":0,"version":"3.4.0"}', status: 200, want: ok('1') },
  { name: 'validate an empty body', body: '{}', status: 400, want: WRONG_FORMAT },
  { name: 'validate a wrong format', body: '{"version":"v3.4"}', status: 400, want: WRONG_FORMAT },
  { name: 'validate the same minor', body: '{"version":"3.5"}', status: 400, want: INVALID_TARGET },
  { name: 'validate two minors below', body: '{"version":"3.3.0"}', status: 400, want: INVALID_TARGET },
  { name: 'an action the enum lacks', body: '{"action":7,"version":"3.4"}', status: 500, want: err(2, 'etcdserver: unknown method') },
  {
    name: 'an action name the enum lacks',
    body: '{"action":"DOWNGRADE","version":"3.4"}',
    status: 400,
    want: err(3, 'unknown value "DOWNGRADE" for enum etcdserverpb.DowngradeRequest_DowngradeAction'),
  },
  { name: 'cancel with nothing enabled', body: '{"action":"CANCEL"}', status: 412, want: NO_INFLIGHT },
  { name: 'enable', body: '{"action":"ENABLE","version":"3.4"}', status: 200, want: ok('1') },
  { name: 'validate while enabled', body: '{"version":"3.4"}', status: 412, want: IN_PROCESS },
  { name: 'enable again', body: '{"action":"ENABLE","version":"3.4"}', status: 412, want: IN_PROCESS },
  { name: 'enable another target: the target is checked first', body: '{"action":"ENABLE","version":"3.6"}', status: 400, want: INVALID_TARGET },
  { name: 'cancel', body: '{"action":"CANCEL"}', status: 200, want: ok('1') },
  { name: 'validate after the cancel', body: '{"version":"3.4"}', status: 200, want: ok('1') },
  { name: 'enable a full version', body: '{"action":"ENABLE","version":"3.4.1"}', status: 200, want: ok('1') },
  { name: 'validate after that enable', body: '{"version":"3.4"}', status: 412, want: IN_PROCESS },
]

interface Answer {
  readonly status: number
  readonly body: unknown
}

/** curl -X POST -d BODY. */
function post(endpoint: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const args = ['-sS', '--max-time', '30', `http://${endpoint}/v3/maintenance/downgrade`, '-X', 'POST', '-d', body, '-w', '\n%{http_code}']
    const p = spawn('curl', args, { stdio: ['ignore', 'pipe', 'ignore'] })
    let out = ''
    p.stdout.on('data', (d: Buffer) => (out += d.toString()))
    p.on('error', reject)
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`curl exited with ${String(code)}`))
      const nl = out.lastIndexOf('\n')
      const text = out.slice(0, nl)
      const masked = JSON.parse(text, (k, v: unknown) => (k === 'cluster_id' || k === 'member_id' || k === 'raft_term' ? '<masked>' : v)) as unknown
      resolve({ status: Number(out.slice(nl + 1)), body: masked })
    })
  })
}

/** Run the etcdlite CLI to its end; resolves with its exit code and stderr. */
function runToExit(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [ETCDLITE_BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('error', reject)
    p.on('close', (code) => resolve({ code, stderr }))
  })
}

describe('POST /v3/maintenance/downgrade (etcd 3.5 semantics)', { skip: haveCurl ? false : 'curl is not on PATH' }, () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let server: ServerProcess | undefined

  before(async () => {
    dir = await tempDir('etcdlite-downgrade-')
    server = await startEtcdliteProcess({ dataDir: `${dir.path}/n` })
  })
  after(async () => {
    await server?.dispose()
    await dir.remove()
  })

  it('answers each request as etcd 3.5.17 does', async () => {
    const endpoint = server?.endpoint ?? assert.fail('no server')
    for (const s of STEPS) {
      const got = await post(endpoint, s.body)
      assert.deepEqual({ status: got.status, body: got.body }, { status: s.status, body: s.want }, s.name)
    }
  })

  it('a restart with the downgrade enabled fails as etcd fails it; one reporting the target version runs', async () => {
    const s = server ?? assert.fail('no server')
    await s.stop('SIGTERM')
    server = undefined
    const args = ['--data-dir', `${dir.path}/n`, '--listen-client-urls', 'http://127.0.0.1:0']
    const { code, stderr } = await runToExit(args)
    assert.equal(code, 1)
    const fatal = stderr.split('\n').filter((l) => l.includes('"level":"fatal"')).map((l) => JSON.parse(l) as Record<string, unknown>)
    assert.equal(fatal.length, 1, stderr)
    assert.deepEqual(
      { caller: fatal[0]?.['caller'], msg: fatal[0]?.['msg'], server: fatal[0]?.['current-server-version'], target: fatal[0]?.['target-cluster-version'] },
      { caller: 'membership/downgrade.go:59', msg: 'invalid downgrade; server version is not allowed to join when downgrade is enabled', server: '3.5.17', target: '3.4.0' },
    )
    server = await startEtcdliteProcess({ dataDir: `${dir.path}/n`, args: ['--etcd-version', '3.4.23'] })
    const got = await post(server.endpoint, '{"version":"3.3"}')
    assert.deepEqual(got.status, 412, 'the downgrade is still enabled')
  })
})
