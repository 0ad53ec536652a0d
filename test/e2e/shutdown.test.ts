// Stopping while clients hold long-lived streams open (an etcdctl watch or lease keep-alive, an etcd3
// client watch): the etcdlite command ends them at once, finishes its close (commit, index checkpoint,
// database closed), logs that it stopped and ends by the signal, re-raised as etcd re-raises it; the embedded close() returns as promptly.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { Etcd3 } from 'etcd3'
import { openEtcd } from '../../src/embed/etcd.js'
import { spawnEtcdlite, type CliProcess } from '../helpers/cli-process.js'
import { etcdctl, ETCDCTL_ENV } from '../helpers/etcdctl.js'
import { haveEtcdctl } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'
import { until } from '../helpers/until.js'

const skip = haveEtcdctl() ? false : 'etcdctl is not on PATH'

/** The start-up log line of a store whose index came from the checkpoint a clean stop wrote, with no log to replay. */
const RESTORED_FROM_CLOSE_CHECKPOINT = /"msg":"kvstore restored".*"index-from":"checkpoint","log-entries-read":0\}/
/** etcd's last log line on a signal, once its close is done. */
const STOPPED = /"msg":"closed etcd server"/

/** A long-running etcdctl command, and its stdout so far. */
interface Ctl {
  readonly proc: ChildProcess
  stdout(): string
  kill(): Promise<void>
}

function etcdctlRunning(endpoint: string, args: readonly string[]): Ctl {
  const proc = spawn('etcdctl', [`--endpoints=${endpoint}`, '--dial-timeout=3s', ...args], { env: ETCDCTL_ENV, stdio: ['ignore', 'pipe', 'ignore'] })
  let out = ''
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()))
  return {
    proc,
    stdout: () => out,
    kill: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return
      proc.kill('SIGKILL')
      await once(proc, 'exit')
    },
  }
}

/** Stop the command with `signal`; it must end by that signal (re-raised, as etcd does) within 10 s (the close has a 5 s grace) having logged that it stopped. */
async function stopsCleanly(cli: CliProcess, signal: NodeJS.Signals): Promise<void> {
  const t0 = Date.now()
  const code = await Promise.race([cli.stop(signal), new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 10_000))])
  if (code === 'timeout') {
    cli.proc.kill('SIGKILL')
    assert.fail(`still running 10 s after ${signal}; stderr:\n${cli.stderr()}`)
  }
  assert.equal(code, signal, `how it ended after ${signal}; stderr:\n${cli.stderr()}`)
  assert.match(cli.stderr(), STOPPED, `no "closed etcd server" log line ${Date.now() - t0} ms after ${signal}; stderr:\n${cli.stderr()}`)
}

describe('etcdlite CLI: stopping with streams open', { skip }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} with an etcdctl watch open: ends by it, logs that it stopped, and wrote its index checkpoint`, async () => {
      const dir = await tempDir('etcdlite-stop-')
      let cli: CliProcess | undefined
      let watch: Ctl | undefined
      try {
        cli = await spawnEtcdlite(['--data-dir', dir.path])
        assert.equal((await etcdctl(cli.endpoint, ['put', 'stop/k', 'v1'])).code, 0)
        const w = etcdctlRunning(cli.endpoint, ['watch', '--rev=1', 'stop/k'])
        watch = w
        // The replayed event arrived: the watch stream is open.
        await until(() => w.stdout().includes('v1\n'), 'the watch to replay the put', 10_000)
        await stopsCleanly(cli, signal)

        cli = await spawnEtcdlite(['--data-dir', dir.path])
        const restarted = cli
        await until(() => restarted.stderr().includes('"kvstore restored"'), 'the kvstore restored log line', 10_000)
        assert.match(cli.stderr(), RESTORED_FROM_CLOSE_CHECKPOINT, `the start after a clean stop reads the checkpoint; stderr:\n${cli.stderr()}`)
        const got = await etcdctl(cli.endpoint, ['get', 'stop/k', '--print-value-only'])
        assert.equal(got.stdout, 'v1\n')
        assert.equal(await cli.stop('SIGTERM'), 'SIGTERM')
      } finally {
        await watch?.kill()
        if (cli?.exit() === undefined) await cli?.stop('SIGKILL')
        await dir.remove()
      }
    })
  }

  it('SIGTERM with an etcdctl lease keep-alive open: ends by it and logs that it stopped', async () => {
    const cli = await spawnEtcdlite(['--memory'])
    let keepAlive: Ctl | undefined
    try {
      const grant = await etcdctl(cli.endpoint, ['lease', 'grant', '60'])
      const id = /lease (\w+) granted/.exec(grant.stdout)?.[1]
      assert.ok(id !== undefined, grant.stdout + grant.stderr)
      const k = etcdctlRunning(cli.endpoint, ['lease', 'keep-alive', id])
      keepAlive = k
      await until(() => k.stdout().includes('keepalived'), 'the first keep-alive answer', 10_000)
      await stopsCleanly(cli, 'SIGTERM')
    } finally {
      await keepAlive?.kill()
      if (cli.exit() === undefined) await cli.stop('SIGKILL')
    }
  })

  it('SIGTERM with an etcd3 client watch open: ends by it and logs that it stopped', async () => {
    const cli = await spawnEtcdlite(['--memory'])
    const client = new Etcd3({ hosts: `http://${cli.endpoint}` })
    try {
      const watcher = await client.watch().key('stop/etcd3').create()
      // The client reconnects and fails once the server is gone; that is the client's business.
      watcher.on('error', () => undefined)
      await stopsCleanly(cli, 'SIGTERM')
      await watcher.cancel().catch(() => undefined)
    } finally {
      client.close()
      if (cli.exit() === undefined) await cli.stop('SIGKILL')
    }
  })
})

describe('embedded: close() with an etcdctl watch open', { skip }, () => {
  it('returns well within the 5 s grace for calls in flight', async () => {
    const etcd = await openEtcd({ memory: true })
    let watch: Ctl | undefined
    try {
      const l = await etcd.listen({ port: 0 })
      await etcd.put({ key: Buffer.from('stop/embedded'), value: Buffer.from('v1') })
      const w = etcdctlRunning(l.endpoint, ['watch', '--rev=1', 'stop/embedded'])
      watch = w
      await until(() => w.stdout().includes('v1\n'), 'the watch to replay the put', 10_000)
      const t0 = Date.now()
      await etcd.close()
      const ms = Date.now() - t0
      // The grace (5 s) is for calls in flight; a watch stream is ended at once and its client's
      // connection must not hold the close up.
      assert.ok(ms < 4000, `close() took ${ms} ms`)
    } finally {
      await watch?.kill()
      await etcd.close()
    }
  })
})
