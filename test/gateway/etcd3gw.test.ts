// python3-etcd3gw (Debian's package), a client of etcd's JSON gateway, drives its whole API — KV, sorted
// and prefix ranges, create/replace transactions, leases, locks, streamed watches, status, members —
// through etcd3gw_session.py against the real etcd and against etcdlite, each a fresh server; the two
// transcripts must be equal step by step. The script reduces what differs between any two servers (IDs,
// sizes, wall-clock countdowns) to what a client may rely on; everything else is compared as printed.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { haveEtcd, startEtcdliteProcess, type ServerProcess } from '../helpers/processes.js'
import { startGatewayEtcd } from '../helpers/gateway-etcd.js'

/** Debian's python3-etcd3gw is installed for /usr/bin/python3, which a pyenv `python3` on PATH may hide. */
const PYTHON = '/usr/bin/python3'
const SCRIPT = fileURLToPath(new URL('../../../test/gateway/etcd3gw_session.py', import.meta.url))
const haveEtcd3gw = spawnSync(PYTHON, ['-c', 'import etcd3gw'], { stdio: 'ignore' }).status === 0
const skip = !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : !haveEtcd3gw ? `${PYTHON} has no etcd3gw module (Debian package python3-etcd3gw)` : false

interface Step {
  readonly step: string
  readonly result: unknown
}

/** Run the session against `endpoint`; its transcript, or a failure with the script's stderr. */
function session(endpoint: string): Promise<Step[]> {
  const [host = '', port = ''] = endpoint.split(':')
  return new Promise((resolve, reject) => {
    const p = spawn(PYTHON, [SCRIPT, host, port], { stdio: ['ignore', 'pipe', 'pipe'] })
    // A watch the server never answers would block the script on its next event.
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000)
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('error', reject)
    p.on('close', (code, signal) => {
      clearTimeout(timer)
      const steps = stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Step)
      if (code === 0) resolve(steps)
      else reject(new Error(`etcd3gw session against ${endpoint} ended with ${String(code ?? signal)} after step ${JSON.stringify(steps.at(-1)?.step)}:\n${stderr.slice(-3000)}`))
    })
  })
}

describe('python3-etcd3gw against the JSON gateway', { skip }, () => {
  let ref: ServerProcess
  let lite: ServerProcess
  let expected: Step[] = []

  // etcdlite reports the oracle's version (it reports 3.5.17 unless told), as status and /version show it.
  before(async () => {
    ;[ref, lite] = await Promise.all([startGatewayEtcd(), startEtcdliteProcess({ memory: true, args: ['--etcd-version', '3.4.23'] })])
  })
  after(async () => {
    await Promise.all([ref?.dispose(), lite?.dispose()])
  })

  it('the session runs to its end against the real etcd', async () => {
    expected = await session(ref.endpoint)
    const byStep = new Map(expected.map((s) => [s.step, s.result]))
    // The harness itself: the script saw a working server, not a transcript of failures.
    assert.deepEqual(byStep.get('get foo'), ['bar'])
    assert.equal(byStep.get('lock acquire'), true)
    assert.equal(byStep.get('second lock acquire'), false)
    assert.deepEqual(byStep.get('watch_once timeout'), 'WatchTimedOut')
  })

  it('etcdlite gives etcd3gw the same transcript, step by step', async () => {
    assert.ok(expected.length > 0, 'the reference transcript is missing')
    const actual = await session(lite.endpoint)
    const differ = expected.filter((e, i) => !isDeepStrictEqual(actual[i], e)).map((e) => e.step)
    if (actual.length !== expected.length) differ.push(`${actual.length} steps, not ${expected.length}`)
    // Every differing step is named at once; the diff shows them in full.
    assert.deepEqual(actual, expected, `steps that differ: ${differ.join('; ')}`)
  })
})
