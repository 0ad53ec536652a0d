// The etcdlite command started as harnesses start etcd: etcd's e2e suite's flag set, the environment, a
// config file, and the failures etcd reports with their exit codes. Each is compared with the real etcd
// (3.4.23 here) when it is installed; the member and cluster IDs must be etcd's.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { spawnEtcdlite, type CliProcess } from '../helpers/cli-process.js'
import { rawClient } from '../helpers/grpc-client.js'
import { etcdctl } from '../helpers/etcdctl.js'
import { ETCDLITE_BIN, etcdServing, haveEtcd, haveEtcdctl } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'

/** The advertised peer URL of the check: never bound (etcdlite has no peer listener; etcd listens elsewhere). */
const PEER = 'http://localhost:20001'
/** What etcd 3.4.23 reports for --initial-advertise-peer-urls PEER --initial-cluster-token new. */
const WANT = { member_id: '14578408409545168728', cluster_id: '238453183653593855' }

/** The header IDs of a Range against `endpoint`. */
async function ids(endpoint: string): Promise<{ member_id: unknown; cluster_id: unknown }> {
  const c = rawClient(endpoint)
  try {
    const res = await c.kv.Range({ key: Buffer.from('k') })
    const h = res['header'] as Record<string, unknown>
    return { member_id: h['member_id'], cluster_id: h['cluster_id'] }
  } finally {
    c.close()
  }
}

/** Run a command to its end (it must exit by itself). */
function run(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000, env, ...(cwd === undefined ? {} : { cwd }) })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const etcdlite = (args: readonly string[], env?: NodeJS.ProcessEnv, cwd?: string): ReturnType<typeof run> => run(process.execPath, [ETCDLITE_BIN, ...args], env, cwd)

/** Start the real etcd with `args` and a client listener on port 0; resolves with its client address. */
async function startEtcd(args: readonly string[], dir: string): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const proc = spawn('etcd', [
    '--data-dir', join(dir, 'etcd'), '--listen-client-urls', 'http://127.0.0.1:0', '--advertise-client-urls', 'http://127.0.0.1:0',
    '--listen-peer-urls', 'http://127.0.0.1:0', '--enable-grpc-gateway=false', '--logger', 'zap', ...args,
  ], { stdio: ['ignore', 'ignore', 'pipe'] })
  const endpoint = await etcdServing(proc, 20_000)
  return {
    endpoint,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
      if (proc.exitCode === null && proc.signalCode === null) await new Promise((r) => proc.once('exit', r))
    },
  }
}

describe("etcd's e2e flag set", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let ours: CliProcess | undefined
  before(async () => {
    dir = await tempDir('etcdlite-e2e-flags-')
  })
  after(async () => {
    await ours?.stop('SIGKILL')
    await dir.remove()
  })

  it('serves, with the member and cluster IDs etcd computes', async () => {
    ours = await spawnEtcdlite([
      '--name', 'testname0', '--listen-client-urls', 'http://localhost:0', '--advertise-client-urls', 'http://localhost:0',
      '--listen-peer-urls', PEER, '--initial-advertise-peer-urls', PEER, '--initial-cluster-token', 'new', '--data-dir', join(dir.path, 'data'),
      '--snapshot-count', '100000', '--enable-v2', '--experimental-initial-corrupt-check', '--strict-reconfig-check=false', '--initial-cluster', `testname0=${PEER}`,
    ])
    assert.deepEqual(await ids(ours.endpoint), WANT)
    if (haveEtcdctl()) {
      const r = await etcdctl(ours.endpoint, ['member', 'list', '-w', 'json'])
      assert.equal(r.code, 0, r.stderr)
      // etcdctl prints the uint64 IDs as JSON numbers: read them as text, past a double's precision.
      const list = JSON.parse(r.stdout.replace(/"ID":(\d+)/g, '"ID":"$1"')) as { members: { ID: string; name: string; peerURLs: string[] }[] }
      assert.deepEqual(list.members.map((x) => [x.ID, x.name, x.peerURLs]), [[WANT.member_id, 'testname0', [PEER]]])
    }
  })

  it('the real etcd started with the same cluster flags reports the same IDs', { skip: !haveEtcd() && 'etcd not installed' }, async () => {
    const ref = await startEtcd(['--name', 'testname0', '--initial-advertise-peer-urls', PEER, '--initial-cluster', `testname0=${PEER}`, '--initial-cluster-token', 'new'], dir.path)
    try {
      assert.deepEqual(await ids(ref.endpoint), await ids(ours?.endpoint ?? ''))
    } finally {
      await ref.stop()
    }
  })

  it('a restart keeps the stored IDs, whatever the cluster flags say now', async () => {
    assert.equal(await ours?.stop('SIGTERM'), 'SIGTERM')
    ours = await spawnEtcdlite(['--name', 'other', '--initial-advertise-peer-urls', 'http://127.0.0.1:9', '--initial-cluster', 'x=http://10.0.0.1:1,y=http://10.0.0.2:1', '--initial-cluster-token', 'changed', '--data-dir', join(dir.path, 'data')])
    assert.deepEqual(await ids(ours.endpoint), WANT)
  })
})

describe('the environment and --config-file', () => {
  it('ETCD_* variables set flags; the command line wins only where the variable is unset', async () => {
    const env = { ...process.env, ETCD_INITIAL_ADVERTISE_PEER_URLS: PEER, ETCD_INITIAL_CLUSTER_TOKEN: 'new', ETCD_NAME: 'testname0', ETCD_INITIAL_CLUSTER: `testname0=${PEER}` }
    const p = await spawnCli(['--memory'], env)
    try {
      assert.deepEqual(await ids(p.endpoint), WANT)
    } finally {
      await p.stop('SIGKILL')
    }
  })

  it('a config file is read instead of the flags and the environment (etcd reads it the same)', async () => {
    const dir = await tempDir('etcdlite-config-file-')
    try {
      const file = join(dir.path, 'etcd.conf.yml')
      await writeFile(file, [
        "name: 'testname0'",
        `data-dir: ${join(dir.path, 'data')}`,
        'listen-client-urls: http://127.0.0.1:0',
        'advertise-client-urls: http://127.0.0.1:0',
        'listen-peer-urls: http://127.0.0.1:0',
        `initial-advertise-peer-urls: ${PEER}`,
        `initial-cluster: testname0=${PEER}`,
        "initial-cluster-token: 'new'",
        'enable-grpc-gateway: false',
        'logger: zap',
        'log-level: info',
        'log-outputs: [stderr]',
        'client-transport-security:',
        '  client-cert-auth: false',
        '',
      ].join('\n'))
      const p = await spawnCli(['--config-file', file, '--name', 'ignored', '--initial-cluster-token', 'ignored'], { ...process.env, ETCD_NAME: 'ignored-too' })
      try {
        assert.deepEqual(await ids(p.endpoint), WANT)
        assert.match(p.stderr(), /"msg":"loaded server configuration, other configuration command line flags and environment variables will be ignored if provided"/)
      } finally {
        await p.stop('SIGKILL')
      }
      if (haveEtcd()) {
        const proc = spawn('etcd', ['--config-file', file], { stdio: ['ignore', 'ignore', 'pipe'] })
        try {
          assert.deepEqual(await ids(await etcdServing(proc, 20_000)), WANT, 'the real etcd reads the file the same')
        } finally {
          proc.kill('SIGKILL')
        }
      }
    } finally {
      await dir.remove()
    }
  })
})

describe('failures, as etcd reports them', () => {
  const cases: ReadonlyArray<{ name: string; args: readonly string[]; env?: Record<string, string>; bare?: true; code: number; stderr: RegExp }> = [
    { name: 'an unknown flag: Go\'s message and the usage, exit 2', args: ['--no-such-flag'], bare: true, code: 2, stderr: /^flag provided but not defined: -no-such-flag\nUsage:\n\n {2}etcd \[flags\]/ },
    { name: 'a bad value: exit 2', args: ['--max-txn-ops', 'x'], bare: true, code: 2, stderr: /^invalid value "x" for flag -max-txn-ops: parse error\nUsage:/ },
    { name: 'a positional argument: exit 1', args: ['serve'], bare: true, code: 1, stderr: /'serve' is not a valid flag/ },
    { name: 'an invalid configuration: exit 1', args: ['--heartbeat-interval', '300'], code: 1, stderr: /--election-timeout\[1000ms\] should be at least as 5 times as --heartbeat-interval\[300ms\]/ },
    { name: 'a variable a flag shadows: exit 1', args: ['--name', 'a'], env: { ETCD_NAME: 'b' }, code: 1, stderr: /conflicting environment variable ("ETCD_NAME" )?is shadowed by corresponding command-line flag/ },
    {
      name: 'a member whose name is not in the initial cluster: exit 1',
      args: ['--name', 'x', '--initial-cluster', 'y=http://127.0.0.1:2380', '--initial-advertise-peer-urls', 'http://127.0.0.1:2380'],
      code: 1,
      stderr: /couldn't find local name \\?"x\\?" in the initial cluster configuration/,
    },
    {
      name: 'advertised peer URLs the initial cluster does not have: exit 1',
      args: ['--name', 'x', '--initial-cluster', 'x=http://127.0.0.1:2390', '--initial-advertise-peer-urls', 'http://127.0.0.1:2391'],
      code: 1,
      stderr: /--initial-cluster has x=http:\/\/127\.0\.0\.1:2390 but missing from --initial-advertise-peer-urls=http:\/\/127\.0\.0\.1:2391/,
    },
    {
      name: 'an https:// client URL without a certificate: exit 1',
      args: ['--listen-client-urls', 'https://127.0.0.1:0', '--advertise-client-urls', 'https://127.0.0.1:0'],
      code: 1,
      stderr: /TLS key\/cert \(--cert-file, --key-file\) must be provided for client url https:\/\/127\.0\.0\.1:0 with HTTPS scheme/,
    },
    {
      name: '--initial-cluster-state existing on a new data dir (no one to join): exit 1',
      args: ['--name', 'x', '--initial-cluster', 'x=http://127.0.0.1:2390', '--initial-advertise-peer-urls', 'http://127.0.0.1:2390', '--initial-cluster-state', 'existing'],
      code: 1,
      stderr: /cannot fetch cluster info from peer urls: could not retrieve cluster information from the given URLs/,
    },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const dir = await tempDir('etcdlite-fail-')
      try {
        // Client and peer listeners on port 0, so that a start by mistake takes no one's port.
        const common = ['--data-dir', join(dir.path, 'data'), '--listen-client-urls', 'http://127.0.0.1:0', '--advertise-client-urls', 'http://127.0.0.1:0', '--listen-peer-urls', 'http://127.0.0.1:0']
        const env = { ...process.env, ...c.env }
        const args = c.bare === true ? c.args : [...common, ...c.args]
        const r = etcdlite(args, env, dir.path)
        assert.equal(r.code, c.code, r.stderr)
        assert.match(r.stderr, c.stderr)
        if (haveEtcd()) {
          // etcd 3.4 logs with capnslog unless told otherwise; 3.5 always with zap.
          const ref = run('etcd', c.bare === true ? args : ['--logger', 'zap', ...args], env, dir.path)
          assert.equal(ref.code, c.code, `etcd's exit code; its stderr:\n${ref.stderr}`)
          assert.match(ref.stderr, c.stderr, "etcd's message")
        }
      } finally {
        await dir.remove()
      }
    })
  }

  it("etcd's proxy sub-commands are refused, saying so", () => {
    for (const cmd of ['gateway', 'grpc-proxy']) {
      const r = etcdlite([cmd, 'start'])
      assert.equal(r.code, 1)
      assert.equal(r.stderr, `etcdlite does not implement 'etcd ${cmd}' (one of etcd's proxies); it runs as a member only\n`)
    }
  })

  it('an etcdlite that serves one member refuses a larger initial cluster, saying so', () => {
    const r = etcdlite(['--memory', '--listen-client-urls', 'http://127.0.0.1:0', '--name', 'a', '--initial-advertise-peer-urls', 'http://127.0.0.1:2390', '--initial-cluster', 'a=http://127.0.0.1:2390,b=http://127.0.0.1:2391'])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /"level":"fatal".*etcdlite serves a single member, but the initial cluster names 2 members \(a, b\)/)
  })
})

/** The CLI on port 0 with `args` and `env`. */
function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliProcess> {
  return spawnEtcdlite(args, { env })
}
