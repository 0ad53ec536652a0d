// The etcdlite command itself: flag parsing, exit codes, signals, limits and where data goes. Limits are
// checked against the real etcd with the same flags when it is installed.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnEtcdlite, type CliProcess } from '../helpers/cli-process.js'
import { rawClient, type RawClient } from '../helpers/grpc-client.js'
import { ETCDLITE_BIN, haveEtcd, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'
import { dirState } from '../helpers/dir-state.js'
import { openEtcd } from '../../src/embed/etcd.js'
import { DataDirError } from '../../src/backend/data-dir.js'

const b = (s: string): Buffer => Buffer.from(s)

/** Run the CLI to completion (for flags that must make it exit at once), in `cwd`. */
function runCli(args: readonly string[], cwd?: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [ETCDLITE_BIN, ...args], { encoding: 'utf8', timeout: 15_000, ...(cwd !== undefined ? { cwd } : {}) })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** The error of etcd's "failed to start etcd" log line, which ends a start that cannot go on (exit 1). */
function startError(stderr: string): string {
  for (const line of stderr.split('\n')) {
    try {
      const e = JSON.parse(line) as { msg?: unknown; error?: unknown }
      if (e.msg === 'failed to start etcd' && typeof e.error === 'string') return e.error
    } catch {
      continue
    }
  }
  return `(no "failed to start etcd" line in:\n${stderr})`
}

async function withClient<T>(endpoint: string, f: (c: RawClient) => Promise<T>): Promise<T> {
  const c = rawClient(endpoint)
  try {
    return await f(c)
  } finally {
    c.close()
  }
}

const valueOf = async (c: RawClient, key: string): Promise<string | undefined> => {
  const res = await c.kv.Range({ key: b(key) })
  const kv = (res['kvs'] as Record<string, unknown>[])[0]
  return kv === undefined ? undefined : (kv['value'] as Buffer).toString()
}

/** A call's failure as {code, details}, or 'ok'. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    await p
    return 'ok'
  } catch (e) {
    const err = e as { code?: number; details?: string }
    return { code: err.code, details: err.details }
  }
}

describe('etcdlite CLI: flags', () => {
  const bad = [
    { name: 'an unknown flag', args: ['--no-such-flag'], stderr: /flag provided but not defined: -no-such-flag/ },
    { name: 'a non-numeric --max-txn-ops', args: ['--max-txn-ops', 'abc'], stderr: /invalid value "abc" for flag -max-txn-ops: parse error/ },
    { name: 'a negative --max-request-bytes', args: ['--max-request-bytes', '-5'], stderr: /invalid value "-5" for flag -max-request-bytes: parse error/ },
    { name: 'a --listen-client-urls that is not a URL', args: ['--listen-client-urls', 'notaurl'], stderr: /invalid value "notaurl" for flag -listen-client-urls: URL scheme must be http, https, unix, or unixs: notaurl/ },
    { name: 'a --listen-client-urls without a port', args: ['--listen-client-urls', 'http://127.0.0.1'], stderr: /invalid value "http:\/\/127.0.0.1" for flag -listen-client-urls: URL address does not have the form "host:port"/ },
    { name: 'a flag missing its value', args: ['--data-dir'], stderr: /^flag needs an argument: -data-dir\n/ },
    { name: 'a bad boolean', args: ['--memory=maybe'], stderr: /invalid boolean value "maybe" for -memory: parse error/ },
    { name: 'a positional argument', args: ['serve'], stderr: /'serve' is not a valid flag/ },
    { name: 'a --experimental-watch-progress-notify-interval without a unit', args: ['--experimental-watch-progress-notify-interval', '5'], stderr: /invalid value "5" for flag -experimental-watch-progress-notify-interval: parse error/ },
  ]
  for (const c of bad) {
    it(`${c.name}: exits non-zero with a clear error and does not start`, async () => {
      // Should the flag be accepted by mistake, the server must not touch port 2379 or the test's cwd.
      const safe = [
        ...(c.args.some((a) => /^--(memory|data-dir)/.test(a)) ? [] : ['--memory']),
        ...(c.args.some((a) => a.startsWith('--listen-client-urls')) ? [] : ['--listen-client-urls', 'http://127.0.0.1:0']),
      ]
      const cwd = await tempDir('etcdlite-cwd-')
      try {
        const r = runCli([...safe, ...c.args], cwd.path)
        assert.notEqual(r.code, null, 'it must exit by itself')
        assert.notEqual(r.code, 0, `exit code; stderr: ${r.stderr}`)
        assert.match(r.stderr, c.stderr)
        assert.doesNotMatch(r.stdout + r.stderr, /ready to serve client requests/)
        assert.deepEqual(await readdir(cwd.path), [], 'nothing created')
      } finally {
        await cwd.remove()
      }
    })
  }

  it('--help prints the flags and exits 0', () => {
    const r = runCli(['--help'])
    assert.equal(r.code, 0, r.stderr)
    for (const flag of ['--data-dir', '--listen-client-urls', '--max-txn-ops', '--max-request-bytes', '--memory', '--experimental-watch-progress-notify-interval']) assert.match(r.stdout, new RegExp(flag))
  })

  it("--version prints etcd's lines (with the etcd version it reports) and etcdlite's, and exits 0", () => {
    const r = runCli(['--version', '--etcd-version', '3.4.23'])
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /^etcd Version: 3\.4\.23\nGit SHA: .+\nGo Version: .+\nGo OS\/Arch: \w+\/\w+\netcdlite Version: \d+\.\d+\.\d+\n$/)
  })

  it('--help prints the usage to stderr and every flag to stdout, marking those without effect and etcdlite\'s own', () => {
    const r = runCli(['-h'])
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stderr, /^Usage:\n\n {2}etcd \[flags\]/)
    assert.match(r.stdout, /--wal-dir ''\n {4}.*\[no effect in etcdlite\]/)
    assert.match(r.stdout, /--memory 'false'\n {4}.*\[etcdlite only\]/)
  })
})

describe('etcdlite CLI: signals', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} ends by that signal (as etcd) and the data is there after a restart`, async () => {
      const dir = await tempDir('etcdlite-cli-')
      let s: ServerProcess | undefined
      try {
        s = await startEtcdliteProcess({ dataDir: dir.path })
        await withClient(s.endpoint, async (c) => {
          await c.kv.Put({ key: b('sig'), value: b(signal) })
          await c.kv.Txn({ success: [{ request_put: { key: b('sig/txn'), value: b('t') } }] })
        })
        assert.equal(await s.stop(signal), signal, `how it ended after ${signal}`)
        s = await startEtcdliteProcess({ dataDir: dir.path })
        await withClient(s.endpoint, async (c) => {
          assert.equal(await valueOf(c, 'sig'), signal)
          assert.equal(await valueOf(c, 'sig/txn'), 't')
          const res = await c.kv.Range({ key: b('sig') })
          assert.equal((res['header'] as Record<string, unknown>)['revision'], '3')
        })
        assert.equal(await s.stop('SIGTERM'), 'SIGTERM')
      } finally {
        await s?.dispose()
        await dir.remove()
      }
    })
  }
})

interface LimitCase {
  readonly name: string
  readonly call: (c: RawClient) => Promise<unknown>
  readonly want: unknown
}

const LIMITS: readonly { readonly flags: readonly string[]; readonly cases: readonly LimitCase[] }[] = [
  {
    flags: ['--max-txn-ops', '2'],
    cases: [
      {
        name: 'a txn with 3 ops fails with etcd\'s message',
        call: (c) => c.kv.Txn({ success: ['x', 'y', 'z'].map((k) => ({ request_put: { key: b(k), value: b('v') } })) }),
        want: { code: 3, details: 'etcdserver: too many operations in txn request' },
      },
      {
        name: 'a txn with 3 compares fails too',
        call: (c) => c.kv.Txn({ compare: ['x', 'y', 'z'].map((k) => ({ key: b(k), target: 'VERSION', result: 'EQUAL', version: '0' })) }),
        want: { code: 3, details: 'etcdserver: too many operations in txn request' },
      },
      {
        name: 'a txn with 2 ops succeeds',
        call: (c) => c.kv.Txn({ success: ['x', 'y'].map((k) => ({ request_put: { key: b(k), value: b('v') } })) }),
        want: 'ok',
      },
    ],
  },
  {
    flags: ['--max-request-bytes', '1024'],
    cases: [
      {
        name: 'a 2 KiB put fails with "request is too large"',
        call: (c) => c.kv.Put({ key: b('big'), value: Buffer.alloc(2048, 0x61) }),
        want: { code: 3, details: 'etcdserver: request is too large' },
      },
      {
        name: 'a 2 KiB txn fails with "request is too large"',
        call: (c) => c.kv.Txn({ success: [{ request_put: { key: b('big'), value: Buffer.alloc(2048, 0x61) } }] }),
        want: { code: 3, details: 'etcdserver: request is too large' },
      },
      {
        name: 'a 512 B put succeeds',
        call: (c) => c.kv.Put({ key: b('small'), value: Buffer.alloc(512, 0x61) }),
        want: 'ok',
      },
    ],
  },
]

for (const group of LIMITS) {
  describe(`etcdlite CLI: ${group.flags.join(' ')} behaves as etcd with the same flags`, () => {
    let ours: ServerProcess | undefined
    let ref: ServerProcess | undefined
    before(async () => {
      ours = await startEtcdliteProcess({ memory: true, args: group.flags })
      if (haveEtcd()) ref = await startReferenceEtcd(group.flags)
    })
    after(async () => {
      await ours?.dispose()
      await ref?.dispose()
    })
    for (const c of group.cases) {
      it(c.name, async () => {
        if (ours === undefined) throw new Error('etcdlite did not start')
        const got = await withClient(ours.endpoint, (cl) => outcome(c.call(cl)))
        assert.deepStrictEqual(got, c.want)
        if (ref !== undefined) {
          const want = await withClient(ref.endpoint, (cl) => outcome(c.call(cl)))
          assert.deepStrictEqual(got, want, 'same answer as etcd with the same flags')
        }
      })
    }
  })
}

describe('etcdlite CLI: where data lives', () => {
  /** Run `f` in a fresh cwd; every CLI it starts there is killed and the cwd removed afterwards. */
  async function inTempCwd(f: (start: (args: readonly string[]) => Promise<CliProcess>, cwd: string) => Promise<void>): Promise<void> {
    const cwd = await tempDir('etcdlite-cwd-')
    const started: CliProcess[] = []
    try {
      await f(async (args) => {
        const p = await spawnEtcdlite(args, { cwd: cwd.path })
        started.push(p)
        return p
      }, cwd.path)
    } finally {
      await Promise.all(started.map((p) => p.stop('SIGKILL')))
      await cwd.remove()
    }
  }

  it('--memory leaves nothing on disk', () =>
    inTempCwd(async (start, cwd) => {
      const s = await start(['--memory'])
      await withClient(s.endpoint, (c) => c.kv.Put({ key: b('k'), value: b('v') }))
      assert.equal(await s.stop('SIGTERM'), 'SIGTERM')
      assert.deepEqual(await readdir(cwd), [])
    }))

  it('the default data dir is default.etcdlite in the working directory, and it persists', () =>
    inTempCwd(async (start, cwd) => {
      const first = await start([])
      await withClient(first.endpoint, (c) => c.kv.Put({ key: b('k'), value: b('persisted') }))
      assert.equal(await first.stop('SIGTERM'), 'SIGTERM')
      assert.deepEqual(await readdir(cwd), ['default.etcdlite'])
      const second = await start([])
      assert.equal(await withClient(second.endpoint, (c) => valueOf(c, 'k')), 'persisted')
      assert.equal(await second.stop('SIGINT'), 'SIGINT')
    }))

  it('--name changes the default data dir to <name>.etcdlite', () =>
    inTempCwd(async (start, cwd) => {
      const s = await start(['--name', 'node1'])
      assert.equal(await s.stop('SIGTERM'), 'SIGTERM')
      assert.ok(existsSync(join(cwd, 'node1.etcdlite')), 'node1.etcdlite')
    }))
})

describe('etcdlite CLI: data dirs it refuses', () => {
  const args = (dataDir: string): string[] => ['--data-dir', dataDir, '--listen-client-urls', 'http://127.0.0.1:0']

  it("a real etcd's data dir: exits 1 saying so, and writes nothing into it", { skip: !haveEtcd() && 'etcd not installed' }, async () => {
    const ref = await startReferenceEtcd()
    try {
      await ref.stop('SIGTERM')
      const dir = ref.dataDir as string
      const before = await dirState(dir)
      const r = runCli(args(dir))
      assert.equal(r.code, 1, r.stderr)
      assert.match(startError(r.stderr), new RegExp(`^cannot open data dir ${dir}: is a real etcd's data dir \\(found member/snap and member/wal\\)`))
      assert.deepEqual(await dirState(dir), before)
    } finally {
      await ref.dispose()
    }
  })

  it('a directory holding other files: exits 1 naming them, and writes nothing into it', async () => {
    const dir = await tempDir()
    try {
      await writeFile(join(dir.path, 'notes.txt'), 'mine')
      const before = await dirState(dir.path)
      const r = runCli(args(dir.path))
      assert.equal(r.code, 1, r.stderr)
      assert.match(startError(r.stderr), /^cannot open data dir .*: is neither empty nor an etcdlite data dir \(found notes\.txt\)/)
      assert.deepEqual(await dirState(dir.path), before)
    } finally {
      await dir.remove()
    }
  })

  it('a data dir another etcdlite serves: the CLI and openEtcd say it is in use and by which process', async () => {
    const dir = await tempDir()
    const first = await startEtcdliteProcess({ dataDir: dir.path })
    try {
      const pid = first.proc.pid as number
      const log = await readFile(join(dir.path, 'LOG'))
      const r = runCli(args(dir.path))
      assert.equal(r.code, 1, r.stderr)
      assert.match(startError(r.stderr), new RegExp(`^cannot open data dir ${dir.path}: is in use by process ${pid} \\(\\S*node \\S*etcdlite\\.js .*--data-dir ${dir.path}`))
      await assert.rejects(openEtcd({ dataDir: dir.path }), (err: unknown) => {
        assert.ok(err instanceof DataDirError)
        assert.equal(err.problem, 'in-use')
        assert.equal(err.pid, pid)
        return true
      })
      assert.deepEqual(await readFile(join(dir.path, 'LOG')), log, "the first server's LOG is not rotated")
      assert.ok(!existsSync(join(dir.path, 'LOG.old')))
      await withClient(first.endpoint, (c) => c.kv.Put({ key: b('k'), value: b('still served') }))
    } finally {
      await first.stop('SIGKILL')
      await dir.remove()
    }
  })
})

describe('etcdlite CLI: --auto-tls with --memory', () => {
  it('serves TLS with a certificate kept in a temporary directory, nothing in the working directory, and removed at exit', async () => {
    const cwd = await tempDir('etcdlite-cli-')
    const autoTlsDirs = async (): Promise<string[]> => (await readdir(tmpdir())).filter((n) => n.startsWith('etcdlite-auto-tls-'))
    const before = await autoTlsDirs()
    let s: CliProcess | undefined
    try {
      s = await spawnEtcdlite(['--memory', '--auto-tls', '--advertise-client-urls', 'https://127.0.0.1:0'], { cwd: cwd.path, scheme: 'https' })
      const during = (await autoTlsDirs()).filter((n) => !before.includes(n))
      assert.equal(during.length, 1, 'one temporary certificate directory while serving')
      assert.deepEqual((await readdir(join(tmpdir(), during[0] as string, 'fixtures', 'client'))).sort(), ['cert.pem', 'key.pem'])
      const r = spawnSync('etcdctl', ['--endpoints', `https://${s.endpoint}`, '--insecure-transport=false', '--insecure-skip-tls-verify', 'put', 'k', 'v'], { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } })
      if (r.error === undefined) assert.equal(r.stdout.trim(), 'OK', r.stderr)
      assert.equal(await s.stop('SIGTERM'), 'SIGTERM')
      assert.deepEqual(await readdir(cwd.path), [], 'nothing written in the working directory')
      assert.ok(!existsSync(join(tmpdir(), during[0] as string)), 'the certificate directory is removed at exit')
    } finally {
      if (s?.exit() === undefined) await s?.stop('SIGKILL')
      await cwd.remove()
    }
  })
})
