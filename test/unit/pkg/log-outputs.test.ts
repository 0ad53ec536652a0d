// --logger and --log-outputs (src/pkg/log-outputs.ts, etcd's setupLogging): files appended, stdout or
// stderr, several at once, and etcd's errors for what it refuses (checked against the real etcd where
// etcd 3.4 words them as 3.5 does).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { JOURNAL_SOCKET, LoggingConfigError, setupLogging } from '../../../src/pkg/log-outputs.js'
import { haveEtcd } from '../../helpers/processes.js'
import { tempDir } from '../../helpers/tmp.js'

const LOG_OUTPUTS_JS = fileURLToPath(new URL('../../../src/pkg/log-outputs.js', import.meta.url))

/** Run setupLogging in a child for `outputs` and log one line: what reached stdout and stderr. */
function logInChild(outputs: readonly string[]): { stdout: string; stderr: string } {
  const script = `import { setupLogging } from ${JSON.stringify(LOG_OUTPUTS_JS)}
setupLogging({ logger: 'zap', logOutputs: ${JSON.stringify(outputs)}, logLevel: 'info' }).info('hello', { to: ${JSON.stringify(outputs.join(','))} })`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  return { stdout: r.stdout, stderr: r.stderr }
}

const HELLO = /^\{"level":"info","ts":"[^"]+","caller":"[^"]+","msg":"hello","to":"[^"]*"\}\n$/

describe('--log-outputs: where lines go', () => {
  const cases: ReadonlyArray<{ outputs: string[]; stdout: boolean; stderr: boolean }> = [
    { outputs: ['default'], stdout: false, stderr: true },
    { outputs: [], stdout: false, stderr: true },
    { outputs: ['stderr'], stdout: false, stderr: true },
    { outputs: ['stdout'], stdout: true, stderr: false },
    { outputs: ['stdout', 'stderr'], stdout: true, stderr: true },
  ]
  for (const c of cases) {
    it(`${JSON.stringify(c.outputs)}: ${c.stdout ? 'stdout' : ''}${c.stdout && c.stderr ? ' and ' : ''}${c.stderr ? 'stderr' : ''}`, () => {
      const r = logInChild(c.outputs)
      if (c.stdout) assert.match(r.stdout, HELLO)
      else assert.equal(r.stdout, '')
      if (c.stderr) assert.match(r.stderr, HELLO)
      else assert.equal(r.stderr, '')
    })
  }

  it('file paths: created, appended to, each getting every line; a file:// URL is a path too', async () => {
    const dir = await tempDir()
    try {
      const a = join(dir.path, 'a.log')
      const b = join(dir.path, 'b.log')
      await writeFile(a, 'before\n')
      const lg = setupLogging({ logger: 'zap', logOutputs: [a, `file://${b}`], logLevel: 'info' })
      lg.info('one')
      lg.debug('not at info')
      lg.warn('two', { n: 2 })
      const lines = (await readFile(a, 'utf8')).split('\n')
      assert.equal(lines[0], 'before')
      assert.deepEqual(lines.slice(1, -1).map((l) => (JSON.parse(l) as { msg: string }).msg), ['one', 'two'])
      assert.equal(await readFile(b, 'utf8'), lines.slice(1).join('\n'))
    } finally {
      await dir.remove()
    }
  })
})

describe('--logger and --log-outputs: what etcd refuses, in its words', () => {
  const cases: ReadonlyArray<{ name: string; logger?: string; outputs?: string[]; want: string; etcdSays?: boolean }> = [
    { name: 'capnslog, removed in 3.5', logger: 'capnslog', want: '--logger=capnslog is removed in v3.5' },
    { name: 'an unknown logger', logger: 'foo', want: 'unknown logger option "foo"', etcdSays: true },
    { name: "'default' with another output", outputs: ['default', 'stderr'], want: 'multi logoutput for "default" is not supported yet', etcdSays: true },
    { name: 'the journal with another output', outputs: ['stderr', 'systemd/journal'], want: `running with systemd/journal but other '--log-outputs' values (["stderr" "systemd/journal"]) are configured with 'default'; override 'default' value with something else` },
    { name: 'a file in a missing directory', outputs: ['/nonexistent-dir/x.log'], want: `couldn't open sink "/nonexistent-dir/x.log": open /nonexistent-dir/x.log: no such file or directory` },
    { name: 'a URL scheme other than file', outputs: ['http://example.com/x'], want: `couldn't open sink "http://example.com/x": no sink found for scheme "http"` },
    { name: 'a query', outputs: ['x.log?rotate=1'], want: `couldn't open sink "x.log?rotate=1": query parameters not allowed with file URLs: got x.log?rotate=1` },
    { name: 'a file URL with a host', outputs: ['file://host/x.log'], want: `couldn't open sink "file://host/x.log": file URLs must leave host empty or use localhost: got file://host/x.log` },
    { name: 'every failing output', outputs: ['/nonexistent-dir/b.log', '/nonexistent-dir/a.log'], want: `couldn't open sink "/nonexistent-dir/a.log": open /nonexistent-dir/a.log: no such file or directory; couldn't open sink "/nonexistent-dir/b.log": open /nonexistent-dir/b.log: no such file or directory` },
  ]
  for (const c of cases) {
    it(c.name, () => {
      assert.throws(
        () => setupLogging({ logger: c.logger ?? 'zap', logOutputs: c.outputs ?? ['default'], logLevel: 'info' }),
        (e: unknown) => e instanceof LoggingConfigError && e.message === c.want,
      )
      if (c.etcdSays !== true || !haveEtcd()) return
      const args = ['--data-dir', '/nonexistent-dir/etcd', '--logger', c.logger ?? 'zap', '--log-outputs', (c.outputs ?? ['default']).join(',')]
      const r = spawnSync('etcd', args, { encoding: 'utf8', timeout: 15_000 })
      assert.equal(r.status, 1, r.stderr)
      assert.ok(r.stderr.includes(c.want), `etcd said: ${r.stderr}`)
    })
  }

  it("systemd/journal without journald: etcd's dial error", { skip: existsSync(JOURNAL_SOCKET) && 'journald runs here' }, () => {
    const want = `can't find journal (dial unixgram ${JOURNAL_SOCKET}: connect: no such file or directory)`
    assert.throws(() => setupLogging({ logger: 'zap', logOutputs: ['systemd/journal'], logLevel: 'info' }), (e: unknown) => e instanceof LoggingConfigError && e.message === want)
    if (!haveEtcd()) return
    const r = spawnSync('etcd', ['--data-dir', '/nonexistent-dir/etcd', '--logger', 'zap', '--log-outputs', 'systemd/journal'], { encoding: 'utf8', timeout: 15_000 })
    assert.equal(r.status, 1, r.stderr)
    assert.ok(r.stderr.includes(want), `etcd said: ${r.stderr}`)
  })
})
