// etcd's own e2e tests of the v2 API (tests/e2e/ctl_v2_test.go and v2_curl_test.go, 3.4.23), run with the
// real etcdctl (ETCDCTL_API=2) and curl against etcdlite with the v2 API on, and against the real etcd
// with --enable-v2 when it is installed: set, mk, get (and --quorum), ls, rm, watch, users and roles,
// auth enable, a user named by the client certificate's chain (TestCtlV2AuthWithCommonName), and the curl
// tests over plain HTTP and TLS, with TestV2CurlIssue5182's basic-auth checks. Each expects what etcd's
// test expects to find in the output.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { createPki, type CertFiles, type Pki } from '../helpers/certs.js'
import { haveEtcd, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { startReferenceEtcdTls } from '../helpers/tls-processes.js'
import { clusterVersionDecided } from '../helpers/v2-http.js'

const haveCtl = spawnSync('etcdctl', ['--version'], { stdio: 'ignore', env: { ...process.env, ETCDCTL_API: '2' } }).status === 0
const haveCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0

interface Run {
  readonly code: number | null
  /** stdout and stderr together, as etcd's tests read them. */
  readonly output: string
}

function run(cmd: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { env: { ...process.env, ETCDCTL_API: '2' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    p.stdout.on('data', (d: Buffer) => (output += d.toString()))
    p.stderr.on('data', (d: Buffer) => (output += d.toString()))
    p.on('error', reject)
    p.on('close', (code) => resolve({ code, output }))
  })
}

/** A server under test: its client URL, and the TLS flags etcdctl and curl need for it. */
interface Target {
  readonly url: string
  /** etcdctl's TLS flags, and --no-sync for the reference etcd, which advertises the unusable 127.0.0.1:0. */
  readonly ctlFlags: readonly string[]
  readonly curlTls: readonly string[]
  close(): Promise<void>
}

async function expectOutput(r: Promise<Run>, want: string): Promise<void> {
  const { output } = await r
  assert.ok(output.includes(want), `expected ${JSON.stringify(want)} in:\n${output}`)
}

const ctl = (t: Target, ...args: string[]): Promise<Run> => run('etcdctl', ['--endpoints', t.url, ...t.ctlFlags, ...args])

/** etcd's cURLPrefixArgs: a value that is not JSON goes as value=...; -L follows redirects. */
function curl(t: Target, method: 'GET' | 'PUT', path: string, value?: string, user?: string): Promise<Run> {
  const data = value === undefined ? [] : ['-X', method, '-d', value.startsWith('{') ? value : `value=${value}`]
  return run('curl', ['-s', ...t.curlTls, '-L', ...(user === undefined ? [] : ['-u', user]), `${t.url}${path}`, ...data])
}

async function liteTarget(tls?: { readonly pki: Pki; readonly client: CertFiles; readonly clientCertAuth: boolean }): Promise<Target> {
  const etcd: Etcd = await openEtcd({ memory: true, enableV2: true })
  const l = await etcd.listen({
    port: 0,
    ...(tls === undefined ? {} : { tls: { cert: tls.pki.server.cert, key: tls.pki.server.key, trustedCa: tls.pki.ca, clientCertAuth: tls.clientCertAuth } }),
  })
  return {
    url: `${tls === undefined ? 'http' : 'https'}://${l.endpoint}`,
    ...tlsFlags(tls),
    close: () => etcd.close(),
  }
}

async function refTarget(tls?: { readonly pki: Pki; readonly client: CertFiles; readonly clientCertAuth: boolean }): Promise<Target> {
  const p: ServerProcess = tls === undefined
    ? await startReferenceEtcd(['--enable-v2'])
    : await startReferenceEtcdTls({ certFile: tls.pki.server.certFile, keyFile: tls.pki.server.keyFile, trustedCaFile: tls.pki.caFile, clientCertAuth: tls.clientCertAuth }, ['--enable-v2'])
  if (tls === undefined) await clusterVersionDecided(p.endpoint)
  const flags = tlsFlags(tls)
  return { url: `${tls === undefined ? 'http' : 'https'}://${p.endpoint}`, ...flags, ctlFlags: [...flags.ctlFlags, '--no-sync'], close: () => p.dispose() }
}

function tlsFlags(tls?: { readonly pki: Pki; readonly client: CertFiles }): Pick<Target, 'ctlFlags' | 'curlTls'> {
  if (tls === undefined) return { ctlFlags: [], curlTls: [] }
  return {
    ctlFlags: ['--ca-file', tls.pki.caFile, '--cert-file', tls.client.certFile, '--key-file', tls.client.keyFile],
    curlTls: ['--cacert', tls.pki.caFile, '--cert', tls.client.certFile, '--key', tls.client.keyFile],
  }
}

const servers: readonly { readonly name: string; readonly available: boolean; readonly start: typeof liteTarget }[] = [
  { name: 'etcdlite', available: true, start: liteTarget },
  { name: 'etcd', available: haveEtcd(), start: refTarget },
]

for (const server of servers) {
  describe(`etcd's v2 e2e tests against ${server.name}`, { skip: (!haveCtl && 'no etcdctl') || (!server.available && 'no etcd binary') }, () => {
    let pki: Pki
    let client: CertFiles
    before(async () => {
      pki = await createPki()
      client = await pki.client('etcdlite test client')
    })
    after(() => pki.remove())

    /** A fresh server for one test (plain, or TLS with the test client's certificate). */
    async function withTarget(f: (t: Target) => Promise<void>, tls?: { readonly clientCertAuth: boolean }): Promise<void> {
      const t = await server.start(tls === undefined ? undefined : { pki, client, clientCertAuth: tls.clientCertAuth })
      try {
        await f(t)
      } finally {
        await t.close()
      }
    }

    for (const [variant, tls] of [['', undefined], [' over TLS', { clientCertAuth: false }]] as const) {
      it(`TestCtlV2Set${variant}: set, then get (and get --quorum)`, () =>
        withTarget(async (t) => {
          await expectOutput(ctl(t, 'set', 'foo', 'bar'), 'bar')
          await expectOutput(ctl(t, 'get', 'foo'), 'bar')
          await expectOutput(ctl(t, 'get', 'foo', '--quorum'), 'bar')
        }, tls))

      it(`TestCtlV2Mk${variant}: mk twice, then get`, () =>
        withTarget(async (t) => {
          await expectOutput(ctl(t, 'mk', 'foo', 'bar'), 'bar')
          await expectOutput(ctl(t, 'mk', 'foo', 'bar'), 'Error:  105: Key already exists')
          await expectOutput(ctl(t, 'get', 'foo'), 'bar')
        }, tls))

      it(`TestCtlV2Ls${variant} and TestCtlV2Rm${variant}`, () =>
        withTarget(async (t) => {
          await expectOutput(ctl(t, 'set', 'foo', 'bar'), 'bar')
          await expectOutput(ctl(t, 'ls'), 'foo')
          await expectOutput(ctl(t, 'rm', 'foo'), 'PrevNode.Value: bar')
          await expectOutput(ctl(t, 'rm', 'foo'), 'Error:  100: Key not found')
        }, tls))
    }

    it('TestCtlV2Watch: a watch from index 1 sees a later set', () =>
      withTarget(async (t) => {
        const watching = run('etcdctl', ['--endpoints', t.url, ...t.ctlFlags, 'watch', '--after-index=1', 'foo'])
        await expectOutput(ctl(t, 'set', 'foo', 'bar'), 'bar')
        // The watch ends by itself once it has printed the event.
        const w = await watching
        assert.ok(w.output.includes('bar'), w.output)
      }))

    it('TestCtlV2GetRoleUser: role add, user add, grant, get, and a duplicate grant refused', () =>
      withTarget(async (t) => {
        await expectOutput(ctl(t, 'role', 'add', 'foo'), 'foo')
        await expectOutput(ctl(t, 'user', 'add', 'username:password'), 'User username created')
        await expectOutput(ctl(t, 'user', 'grant', '--roles', 'foo', 'username'), 'User username updated')
        await expectOutput(ctl(t, 'user', 'get', 'username'), 'User: username')
        await expectOutput(ctl(t, 'user', 'grant', '--roles', 'foo', 'username'), 'duplicate')
      }))

    for (const username of ['username', 'root']) {
      it(`TestCtlV2UserList${username === 'root' ? 'Root' : 'Username'}: user add, user list`, () =>
        withTarget(async (t) => {
          await expectOutput(ctl(t, 'user', 'add', `${username}:password`), `User ${username} created`)
          await expectOutput(ctl(t, 'user', 'list'), username)
        }))
    }

    it('TestCtlV2RoleList: role add, role list', () =>
      withTarget(async (t) => {
        await expectOutput(ctl(t, 'role', 'add', 'foo'), 'foo')
        await expectOutput(ctl(t, 'role', 'list'), 'foo')
      }))

    it("TestCtlV2AuthWithCommonName: with --client-cert-auth, the CA's common name in the chain is the user", () =>
      withTarget(async (t) => {
        await expectOutput(ctl(t, 'role', 'add', 'testrole'), 'testrole')
        await expectOutput(ctl(t, 'role', 'grant', '--rw', '--path=/foo', 'testrole'), 'testrole')
        await expectOutput(ctl(t, 'user', 'add', 'root:123'), 'User root created')
        await expectOutput(ctl(t, 'user', 'add', 'etcdlite test CA:123'), 'User etcdlite test CA created')
        await expectOutput(ctl(t, 'user', 'grant', '--roles', 'testrole', 'etcdlite test CA'), 'User etcdlite test CA updated')
        await expectOutput(ctl(t, 'auth', 'enable'), 'Authentication Enabled')
        await expectOutput(ctl(t, 'set', 'foo', 'bar'), 'bar')
        // The role covers /foo only: the certificate's user may not write elsewhere.
        await expectOutput(ctl(t, 'set', 'other', 'bar'), 'Insufficient credentials')
      }, { clientCertAuth: true }))

    for (const [variant, tls] of [['NoTLS', undefined], ['ClientTLS', { clientCertAuth: false }], ['ClientTLS with --client-cert-auth', { clientCertAuth: true }]] as const) {
      it(`TestV2Curl${variant}: curl PUT and GET /v2/keys/foo`, { skip: !haveCurl && 'no curl' }, () =>
        withTarget(async (t) => {
          await expectOutput(curl(t, 'PUT', '/v2/keys/foo', 'bar'), '{"action":"set","node":{"key":"/foo","value":"bar","')
          await expectOutput(curl(t, 'GET', '/v2/keys/foo'), '{"action":"get","node":{"key":"/foo","value":"bar","')
        }, tls))
    }

    it('TestV2CurlIssue5182: users and roles by curl, then basic auth on a key read', { skip: !haveCurl && 'no curl' }, () =>
      withTarget(async (t) => {
        await expectOutput(curl(t, 'PUT', '/v2/keys/foo', 'bar'), '{"action":"set","node":{"key":"/foo","value":"bar","')
        await expectOutput(curl(t, 'PUT', '/v2/auth/users/foo', '{"user":"foo", "password":"pass"}'), '{"user":"foo","roles":null}')
        await expectOutput(curl(t, 'PUT', '/v2/auth/roles/foo', '{"role":"foo", "permissions": {"kv": {"read": ["/foo/*"]}}}'), '{"role":"foo","permissions":{"kv":{"read":["/foo/*"],"write":null}}')
        await expectOutput(curl(t, 'PUT', '/v2/auth/users/foo', '{"user": "foo", "grant": ["foo"]}'), '{"user":"foo","roles":["foo"]}')
        await expectOutput(ctl(t, 'user', 'add', 'root:a'), 'User root created')
        await expectOutput(ctl(t, 'auth', 'enable'), 'Authentication Enabled')
        await expectOutput(curl(t, 'GET', '/v2/keys/foo/', undefined, 'root:a'), 'bar')
        await expectOutput(curl(t, 'GET', '/v2/keys/foo/', undefined, 'foo:pass'), 'bar')
        await expectOutput(curl(t, 'GET', '/v2/keys/foo/', undefined, 'foo:'), 'The request requires user authentication')
      }))
  })
}
