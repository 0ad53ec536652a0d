// etcdctl (3.4, ETCDCTL_API=3) over TLS against the real etcd and the etcdlite CLI, both started with the
// same TLS flags and the same throwaway certificates (test/helpers/certs.ts). Each step runs on both
// servers; exit code, stdout and stderr must match. Normalized away: the endpoint (each server has its own
// port), `took = …` of endpoint health, and in etcdctl's warning log lines the timestamp and target. A
// refused connection fails after the command timeout with a retry warning whose wording depends on timing
// (which connection attempt the deadline cut), so for those only the exit code, stdout and etcdctl's final
// `Error:` line are compared. Then the flag errors: etcdlite refuses what etcd refuses, with its message.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createPki, type CertFiles, type Pki } from '../helpers/certs.js'
import { etcdctl, ETCDCTL_ENV, type CtlResult } from '../helpers/etcdctl.js'
import { ETCDLITE_BIN, haveEtcd, haveEtcdctl, type ServerProcess } from '../helpers/processes.js'
import { startEtcdliteTls, startReferenceEtcdTls, type ServerTlsFlags } from '../helpers/tls-processes.js'

const haveOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0
const skip = !haveEtcdctl() ? 'etcdctl is not on PATH' : !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : !haveOpenssl ? 'openssl is not on PATH' : false

/** Client certificates by common name; `stranger` (CN root) is signed by another CA. */
type Cert = 'root' | 'alice' | 'mallory' | 'stranger'

interface Step {
  readonly name: string
  readonly args: readonly string[]
  /** The client certificate etcdctl presents (--cert/--key). Default: none. */
  readonly cert?: Cert
  /** The CA etcdctl trusts: ours (default), another one, or none at all: a plaintext client. */
  readonly ca?: 'ours' | 'other' | 'plaintext'
  /** The server refuses the connection: compare only exit code, stdout and the final Error line. */
  readonly refused?: boolean
  /** Run until stdout matches, then stop etcdctl (watch runs until killed); or until it exits by itself. */
  readonly until?: RegExp
  /** Compare only this part of stdout. */
  readonly pick?: (stdout: string) => string
}

interface Scenario {
  readonly name: string
  readonly flags: (pki: Pki) => ServerTlsFlags
  readonly steps: readonly Step[]
}

const refusedTimeouts = ['--dial-timeout=500ms', '--command-timeout=500ms']
const setupAuth: readonly Step[] = [
  { name: 'user add root', cert: 'root', args: ['user', 'add', 'root:rootpw'] },
  { name: 'role add root', cert: 'root', args: ['role', 'add', 'root'] },
  { name: 'grant root to root', cert: 'root', args: ['user', 'grant-role', 'root', 'root'] },
]

const scenarios: readonly Scenario[] = [
  {
    name: 'https with --cert-file and --key-file',
    flags: (p) => ({ certFile: p.server.certFile, keyFile: p.server.keyFile }),
    steps: [
      { name: 'put with --cacert', args: ['put', 'foo', 'bar'] },
      { name: 'get', args: ['get', 'foo'] },
      { name: 'watch replays history over TLS', args: ['watch', '--rev=1', 'foo'], until: /bar\n/ },
      { name: 'endpoint health', args: ['endpoint', 'health'] },
      // The scheme only: the reference advertises its flag's literal port 0, etcdlite the bound port.
      { name: 'member list advertises https', args: ['member', 'list'], pick: (out) => /^(\w+):\/\//.exec(out.split(', ')[4] ?? '')?.[1] ?? out },
      { name: 'a client certificate nobody asked for is fine', cert: 'alice', args: ['get', 'foo'] },
      { name: 'a plaintext client is refused', ca: 'plaintext', args: ['get', 'foo'], refused: true },
      { name: 'a client trusting another CA is refused', ca: 'other', args: ['get', 'foo'], refused: true },
    ],
  },
  {
    name: '--client-cert-auth with --trusted-ca-file',
    flags: (p) => ({ certFile: p.server.certFile, keyFile: p.server.keyFile, trustedCaFile: p.caFile, clientCertAuth: true }),
    steps: [
      { name: 'put with a client certificate', cert: 'alice', args: ['put', 'foo', 'bar'] },
      { name: 'get with a client certificate', cert: 'alice', args: ['get', 'foo'] },
      { name: 'watch with a client certificate', cert: 'alice', args: ['watch', '--rev=1', 'foo'], until: /bar\n/ },
      { name: 'endpoint health with a client certificate', cert: 'alice', args: ['endpoint', 'health'] },
      { name: 'no client certificate: refused', args: ['get', 'foo'], refused: true },
      { name: 'a certificate from another CA: refused', cert: 'stranger', args: ['get', 'foo'], refused: true },
      { name: 'endpoint health without a client certificate: unhealthy', args: ['endpoint', 'health'], refused: true },
      { name: 'a plaintext client is refused', ca: 'plaintext', args: ['get', 'foo'], refused: true },
    ],
  },
  {
    // etcd's AuthInfoFromTLS: with auth on, a call that sends no token acts as its certificate's CN.
    name: '--client-cert-auth with auth enabled: the certificate CN is the user',
    flags: (p) => ({ certFile: p.server.certFile, keyFile: p.server.keyFile, trustedCaFile: p.caFile, clientCertAuth: true }),
    steps: [
      ...setupAuth,
      { name: 'user add alice --no-password', cert: 'root', args: ['user', 'add', 'alice', '--no-password'] },
      { name: 'role add rw-a', cert: 'root', args: ['role', 'add', 'rw-a'] },
      { name: 'rw-a may read and write prefix a', cert: 'root', args: ['role', 'grant-permission', 'rw-a', '--prefix=true', 'readwrite', 'a'] },
      { name: 'grant rw-a to alice', cert: 'root', args: ['user', 'grant-role', 'alice', 'rw-a'] },
      { name: 'auth enable', cert: 'root', args: ['auth', 'enable'] },
      { name: 'CN alice writes inside her prefix', cert: 'alice', args: ['put', 'a1', 'v1'] },
      { name: 'CN alice reads inside her prefix', cert: 'alice', args: ['get', 'a1'] },
      { name: 'CN alice may not write outside it', cert: 'alice', args: ['put', 'b1', 'v'] },
      { name: 'CN alice may not administer auth', cert: 'alice', args: ['user', 'list'] },
      { name: 'CN alice may not watch outside her prefix', cert: 'alice', args: ['watch', '--rev=1', 'b1'], until: /PUT/ },
      { name: 'CN alice watches inside her prefix', cert: 'alice', args: ['watch', '--rev=1', 'a1'], until: /v1\n/ },
      { name: 'a token wins over the CN (--user root with CN alice)', cert: 'alice', args: ['--user', 'root:rootpw', 'put', 'b1', 'v'] },
      { name: 'a wrong password fails even with a valid CN', cert: 'alice', args: ['--user', 'root:wrong', 'get', 'a1'] },
      { name: 'CN root has the root role', cert: 'root', args: ['user', 'list'] },
      { name: 'CN root reads anything', cert: 'root', args: ['get', 'b1'] },
      { name: 'CN mallory (no such user) is denied', cert: 'mallory', args: ['get', 'a1'] },
      { name: 'CN root from another CA is refused', cert: 'stranger', args: ['get', 'a1'], refused: true },
    ],
  },
  {
    // etcd 3.4's TLSInfo.ServerConfig: a trusted CA alone requires client certificates; only
    // --client-cert-auth makes the CN a user.
    name: '--trusted-ca-file without --client-cert-auth',
    flags: (p) => ({ certFile: p.server.certFile, keyFile: p.server.keyFile, trustedCaFile: p.caFile }),
    steps: [
      { name: 'no client certificate: refused', args: ['get', 'foo'], refused: true },
      ...setupAuth,
      { name: 'auth enable', cert: 'root', args: ['auth', 'enable'] },
      { name: 'CN root is not a user: user name is empty', cert: 'root', args: ['put', 'foo', 'bar'] },
      { name: '--user root works', cert: 'root', args: ['--user', 'root:rootpw', 'put', 'foo', 'bar'] },
    ],
  },
]

/** Run etcdctl; with `until`, stop it once its stdout matches (or take its exit if it ends first). */
function ctl(endpoint: string, args: readonly string[], until: RegExp | undefined): Promise<CtlResult> {
  if (until === undefined) return etcdctl(endpoint, args)
  return new Promise((resolve, reject) => {
    const p = spawn('etcdctl', [`--endpoints=${endpoint}`, '--dial-timeout=3s', ...args], { env: ETCDCTL_ENV, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let killed = false
    const timer = setTimeout(() => p.kill('SIGKILL'), 10_000)
    p.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
      if (until.test(stdout) && stdout !== '' && !killed) {
        killed = true
        p.kill('SIGTERM')
      }
    })
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('error', reject)
    p.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code: killed ? null : code, stdout, stderr })
    })
  })
}

function normalize(r: CtlResult, endpoint: string, step: Step): unknown {
  const ep = (s: string): string => s.split(endpoint).join('<endpoint>').replace(/took = [^\s]+/g, 'took = <t>')
  const stdout = step.pick === undefined ? ep(r.stdout) : ep(step.pick(r.stdout))
  const lines = ep(r.stderr).split('\n').filter((l) => l !== '')
  if (step.refused === true) return { code: r.code, stdout, error: lines.filter((l) => l.startsWith('Error:')) }
  const stderr = lines.map((l) => {
    if (!l.startsWith('{"level"')) return l
    const o = JSON.parse(l) as Record<string, unknown>
    return { level: o['level'], msg: o['msg'], attempt: o['attempt'], error: o['error'] }
  })
  return { code: r.code, stdout, stderr }
}

describe('etcdctl over TLS: etcdlite answers as etcd does', { skip }, () => {
  let pki: Pki
  let otherPki: Pki
  const certs = {} as Record<Cert, CertFiles>

  before(async () => {
    ;[pki, otherPki] = await Promise.all([createPki(), createPki()])
    const [root, alice, mallory, stranger] = await Promise.all([pki.client('root'), pki.client('alice'), pki.client('mallory'), otherPki.client('root')])
    Object.assign(certs, { root, alice, mallory, stranger })
  })
  after(async () => {
    await Promise.all([pki.remove(), otherPki.remove()])
  })

  const tlsArgs = (s: Step): string[] => {
    if (s.ca === 'plaintext') return []
    const c = s.cert === undefined ? [] : ['--cert', certs[s.cert].certFile, '--key', certs[s.cert].keyFile]
    return ['--cacert', s.ca === 'other' ? otherPki.caFile : pki.caFile, ...c]
  }

  for (const sc of scenarios) {
    describe(sc.name, () => {
      let servers: readonly ServerProcess[] = []
      before(async () => {
        const flags = sc.flags(pki)
        const started = await Promise.allSettled([startReferenceEtcdTls(flags, ['--bcrypt-cost', '4']), startEtcdliteTls(flags, ['--bcrypt-cost', '4'])])
        servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
        for (const s of started) if (s.status === 'rejected') throw s.reason
      })
      after(async () => {
        await Promise.all(servers.map((s) => s.dispose()))
      })

      for (const step of sc.steps) {
        it(step.name, async () => {
          const args = [...tlsArgs(step), ...(step.refused === true ? refusedTimeouts : []), ...step.args]
          const [ref, lite] = await Promise.all(servers.map(async (s) => normalize(await ctl(s.endpoint, args, step.until), s.endpoint, step)))
          assert.deepEqual(lite, ref)
          if (step.refused === true) assert.notEqual((ref as { code: number | null }).code, 0, 'the reference accepted a client it should refuse')
        })
      }
    })
  }
})

describe('TLS flag errors: etcdlite refuses what etcd refuses, with its message', { skip }, () => {
  let pki: Pki
  before(async () => {
    pki = await createPki()
  })
  after(() => pki.remove())

  const https = 'https://127.0.0.1:0'
  const cases: ReadonlyArray<{ name: string; args: (p: Pki) => string[]; want: string }> = [
    { name: 'https without --cert-file and --key-file', args: () => [], want: `TLS key/cert (--cert-file, --key-file) must be provided for client url ${https} with HTTPS scheme` },
    { name: 'https with --cert-file only', args: (p) => ['--cert-file', p.server.certFile], want: 'KeyFile and CertFile must both be present[key: , cert: <cert>]' },
    { name: 'https with --key-file only', args: (p) => ['--key-file', p.server.keyFile], want: 'KeyFile and CertFile must both be present[key: <key>, cert: ]' },
    { name: 'a --cert-file that does not exist', args: (p) => ['--cert-file', '/nonexistent/cert.pem', '--key-file', p.server.keyFile], want: 'open /nonexistent/cert.pem: no such file or directory' },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const want = c.want.replace('<cert>', pki.server.certFile).replace('<key>', pki.server.keyFile)
      const peer = 'http://127.0.0.1:0'
      const common = ['--listen-client-urls', https, '--advertise-client-urls', https, ...c.args(pki)]
      const [ref, lite] = await Promise.all([
        run('etcd', ['--data-dir', `${pki.dir}/etcd-${c.name.replace(/\W+/g, '-')}`, '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `default=${peer}`, '--logger', 'zap', ...common]),
        run(process.execPath, [ETCDLITE_BIN, '--memory', ...common]),
      ])
      assert.notEqual(ref.code, 0)
      assert.match(ref.stderr, new RegExp(`"error":"${escape(want)}"`))
      assert.notEqual(lite.code, 0)
      // A flag error before start-up, or, as etcd, the error of the start that failed.
      assert.match(lite.stderr, new RegExp(`etcdlite: ${escape(want)}\n|"error":"${escape(want)}"`))
    })
  }
})

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Run a server that must fail at startup (killed after 20 s if it does not). */
function run(cmd: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    const timer = setTimeout(() => p.kill('SIGKILL'), 20_000)
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('error', reject)
    p.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })
}
