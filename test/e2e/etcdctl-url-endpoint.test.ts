// etcdctl (3.4) with its endpoint written as a URL (--endpoints=http://127.0.0.1:PORT, as many guides do),
// against the real etcd and the etcdlite CLI. For endpoint status, hashkv, defrag (and move-leader)
// etcdctl dials each endpoint itself and sends the whole URL as the HTTP/2 :authority, which etcd takes;
// both servers must answer the same.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { haveEtcd, haveEtcdctl, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { ETCDCTL_ENV, etcdctl, stderrLines } from '../helpers/etcdctl.js'

const skip = !haveEtcdctl() ? 'etcdctl is not on PATH' : !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false

/** etcdctl's output with the side's URL and the figures that differ by server (IDs, sizes, hashes, indexes, times) blanked. */
function norm(s: string, url: string): string {
  return s
    .split(url).join('<URL>')
    .replace(/took = \S+/g, 'took = <took>')
    .replace(/^<URL>, [0-9a-f]+, [^,]+, [^,]+, (true|false), (true|false), \d+, \d+, \d+, /gm, '<URL>, <id>, <version>, <size>, $1, $2, <term>, <index>, <index>, ')
    .replace(/^<URL>, \d+$/gm, '<URL>, <hash>')
}

/** The number of watchers a server reports on its client port's /metrics. */
async function watchers(endpoint: string): Promise<number> {
  const text = await (await fetch(`http://${endpoint}/metrics`)).text()
  return Number(/^etcd_debugging_mvcc_watcher_total (\d+)$/m.exec(text)?.[1] ?? -1)
}

/** `etcdctl watch key` until it printed one event after a put from another etcdctl: its stdout. */
async function watchOnePut(endpoint: string, url: string): Promise<string> {
  const p = spawn('etcdctl', [`--endpoints=${url}`, '--dial-timeout=3s', 'watch', 'wk'], { env: ETCDCTL_ENV, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  p.stdout.on('data', (d: Buffer) => (out += d.toString()))
  try {
    for (let i = 0; i < 200 && (await watchers(endpoint)) < 1; i++) await sleep(50)
    assert.equal((await etcdctl(url, ['put', 'wk', 'wv'])).code, 0)
    for (let i = 0; i < 200 && !out.endsWith('wv\n'); i++) await sleep(50)
    return out
  } finally {
    p.kill('SIGKILL')
  }
}

describe('etcdctl with --endpoints=http://host:port', { skip }, () => {
  let etcd: ServerProcess
  let lite: ServerProcess
  before(async () => {
    ;[etcd, lite] = await Promise.all([startReferenceEtcd(), startEtcdliteProcess()])
  })
  after(async () => {
    await Promise.all([etcd?.dispose(), lite?.dispose()])
  })

  const commands: readonly (readonly string[])[] = [
    ['put', 'k', 'v'],
    ['get', 'k'],
    ['endpoint', 'status'],
    ['endpoint', 'hashkv'],
    ['defrag'],
    ['endpoint', 'health'],
    // Finds the leader with endpoint status first; a one-member cluster has no other member to move to.
    ['move-leader', '1'],
  ]
  for (const args of commands) {
    it(`etcdctl ${args.join(' ')}`, async () => {
      const [want, got] = await Promise.all([etcd, lite].map(async (side) => {
        const url = `http://${side.endpoint}`
        const r = await etcdctl(url, args)
        return { code: r.code, stdout: norm(r.stdout, url), stderr: stderrLines(norm(r.stderr, url)) }
      }))
      if (args[0] !== 'move-leader') assert.equal(got?.code, 0, `etcdlite: ${JSON.stringify(got?.stderr)}`)
      assert.deepEqual(got, want)
    })
  }

  it('etcdctl watch sees a put', { timeout: 30_000 }, async () => {
    const [want, got] = await Promise.all([etcd, lite].map((side) => watchOnePut(side.endpoint, `http://${side.endpoint}`)))
    assert.equal(want, 'PUT\nwk\nwv\n')
    assert.equal(got, want)
  })
})
