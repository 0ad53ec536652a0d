// A watch client that stalls and then dies must give back everything it held. A separate client process
// holds 100 watchers on 10 Watch streams over one connection that advertises 16 MiB HTTP/2 windows (as
// grpc-go grows them) and stops reading, while a writer puts 8 KiB values under the watched prefix; then
// it is SIGKILLed. Real etcd drops the streams and watchers to 0 within seconds and its RSS stays flat.
//
// What went wrong before: the server wrote until each stream's 16 MiB window was used up, and the write
// then in flight waited for window that a dead client never opens. The client's FIN left the socket in
// CLOSE-WAIT (node:http2 ignores a half-open socket's end), and grpc-js reports a cancelled call only once
// its HTTP/2 stream is destroyed, which waits for that write: the calls, their 100 watchers and what they
// queued were never released, and etcd_debugging_mvcc_watch_stream_total stayed at 10 for good.
//
// Asserted, with generous bounds (tests never assert timings tighter than that): the stalled phase really
// had 10 streams and 100 watchers on the server; within 20 s of the SIGKILL both gauges are 0 and the
// server has closed the client's socket (one fd fewer than while it was connected); the
// server's RSS never grew by more than RSS_BOUND over its start, during the stall or after; and SIGTERM
// then stops the server within 10 s. Budget: about 15 s.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { startEtcdliteProcess } from '../helpers/processes.js'
import { MiB, mib, RssSampler, readRss, withDeadline } from './lib.js'

const CLIENT = fileURLToPath(new URL('./stalled-watch-client.js', import.meta.url))
const STREAMS = 10
const WATCHERS_PER_STREAM = 10
const WINDOW = 16 * MiB
const VALUE_BYTES = 8 * 1024
/**
 * Allowed RSS growth over the server's start. The stall costs the queues of 10 streams (128 responses
 * each) and the write path's garbage, about 100-150 MiB here; the unbounded failure reached GBs.
 */
const RSS_BOUND = 512 * MiB

interface KvClient extends grpc.Client {
  Put(req: { key: Buffer; value: Buffer }, cb: (err: grpc.ServiceError | null) => void): void
}

/** A gauge's value from the server's /metrics. */
async function gauge(endpoint: string, name: string): Promise<number> {
  const text = await (await fetch(`http://${endpoint}/metrics`)).text()
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)
  if (m?.[1] === undefined) throw new Error(`/metrics has no ${name}`)
  return Number(m[1])
}

const fdCount = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length

/** Poll `cond` every 100 ms until it holds; fail with `what()` after `ms`. */
async function poll(cond: () => Promise<boolean>, ms: number, what: () => string): Promise<void> {
  const t0 = performance.now()
  while (!(await cond())) {
    if (performance.now() - t0 > ms) assert.fail(`timed out after ${ms / 1000} s: ${what()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const watchGauges = async (endpoint: string): Promise<{ streams: number; watchers: number }> => ({
  streams: await gauge(endpoint, 'etcd_debugging_mvcc_watch_stream_total'),
  watchers: await gauge(endpoint, 'etcd_debugging_mvcc_watcher_total'),
})

it('a stalled watch client that dies gives back its streams, watchers and memory, and SIGTERM then stops the server', async (t) => {
  const server = await startEtcdliteProcess({ args: ['--unsafe-no-fsync'] })
  const pid = server.proc.pid
  if (pid === undefined) throw new Error('server has no pid')
  const proto = loadEtcdProto()
  const kv = new proto.etcdserverpb.KV(server.endpoint, grpc.credentials.createInsecure()) as unknown as KvClient
  const client = spawn(process.execPath, [CLIENT, server.endpoint, String(STREAMS), String(WATCHERS_PER_STREAM), String(WINDOW)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let writing = true
  let writes = 0
  const writer = (async () => {
    const value = Buffer.alloc(VALUE_BYTES, 1)
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (writing) {
        const key = Buffer.from(`s/${writes++ % 16}`)
        await new Promise<void>((resolve, reject) => kv.Put({ key, value }, (err) => (err === null ? resolve() : reject(err))))
      }
    }))
  })()
  try {
    const start = readRss(pid)
    const rss = new RssSampler(pid, 100)
    if (client.stdout === null) throw new Error('client stdout is not piped')
    const lines = createInterface({ input: client.stdout })
    await withDeadline(once(lines, 'line'), 20_000, () => 'the stalled client did not get its watchers created')
    assert.deepEqual(await watchGauges(server.endpoint), { streams: STREAMS, watchers: STREAMS * WATCHERS_PER_STREAM })
    const fdsWithClient = fdCount(pid)
    // Stalled for real: more written than a 16 MiB window takes even if each stream carried each value only
    // once, and every watcher slow (a victim, or behind).
    let slow = 0
    const first = writes
    await poll(async () => {
      slow = await gauge(server.endpoint, 'etcd_debugging_mvcc_slow_watcher_total')
      return slow === STREAMS * WATCHERS_PER_STREAM && (writes - first) * VALUE_BYTES > 2 * WINDOW
    }, 60_000, () => `every watcher slow (now ${slow}) and ${mib(2 * WINDOW)} written (now ${writes - first} writes)`)
    const stalled = await watchGauges(server.endpoint)
    assert.deepEqual(stalled, { streams: STREAMS, watchers: STREAMS * WATCHERS_PER_STREAM }, 'still watching while stalled')

    client.kill('SIGKILL')
    await once(client, 'exit')
    const killedAt = performance.now()
    let last = stalled
    await poll(async () => {
      last = await watchGauges(server.endpoint)
      return last.streams === 0 && last.watchers === 0
    }, 20_000, () => `streams and watchers released after the client died (now ${JSON.stringify(last)})`)
    t.diagnostic(`released ${((performance.now() - killedAt) / 1000).toFixed(1)} s after the SIGKILL; ${writes} writes`)
    // The dead client's connection is closed too (not left in CLOSE-WAIT).
    let fds = fdsWithClient
    await poll(() => Promise.resolve((fds = fdCount(pid)) < fdsWithClient), 20_000, () => `the client's socket closed (fds ${fds}, ${fdsWithClient} with the client)`)
    writing = false
    await writer
    const r = rss.stop()
    const end = readRss(pid)
    t.diagnostic(`RSS start ${mib(start.total)}, max ${mib(r.max.total)}, end ${mib(end.total)}`)
    assert.ok(r.max.total - start.total < RSS_BOUND, `RSS grew by ${mib(r.max.total - start.total)} (bound ${mib(RSS_BOUND)})`)

    const t0 = performance.now()
    const code = await withDeadline(server.stop('SIGTERM'), 10_000, () => 'the server did not exit within 10 s of SIGTERM')
    t.diagnostic(`exited ${((performance.now() - t0) / 1000).toFixed(1)} s after SIGTERM, code ${String(code)}`)
  } finally {
    writing = false
    client.kill('SIGKILL')
    await writer.catch(() => undefined)
    kv.close()
    await server.dispose()
  }
})
