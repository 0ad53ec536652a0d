// Stalled consumers: watch streams whose client stops reading, while a writer puts 8 KiB values as fast
// as it can under the watched prefix. A slow consumer must cost the server bounded memory and must not
// slow the writer; once it reads again it must get every event exactly once and in order, caught up from
// the store, or, if the history it needs was compacted meanwhile, the compacted response.
//
// The stalled consumers (all watching the prefix s/ from the first revision of phase 2):
// - A and A2: raw node:http2 Watch streams with one watcher each. After the created response they stop
//   reading DATA frames, so the stream's HTTP/2 window (64 KiB) fills and the server cannot send more.
// - B: a raw HTTP/2 stream with 100 watchers, and C: a grpc-js call with 100 watchers, paused with
//   call.pause() (grpc-js then stops reading the HTTP/2 stream). They never read again and are closed at
//   the end; they multiply what a server that buffers for slow consumers would hold.
// Phases, on a server run as a child process (etcdlite: the CLI; etcd: the real one, with
// STRESS_TARGETS=etcd):
// 1. baseline: the writer writes 2000 values (16 MiB) with no watcher; throughput logged;
// 2. the same again with the 202 stalled watchers; RSS (/proc/<pid>/status) sampled every 50 ms;
// 3. A reads again and must receive exactly the events of phase 2, in revision order;
// 4. the history is compacted at the current revision; A2 reads again and must receive a gap-free run of
//    the expected events, then a compacted response whose compact_revision is above the next event it did
//    not get (or, if the server had kept everything for it, all events: then phase 2's bound has failed).
// What is asserted: every write completes within a generous deadline (tests never assert timings; the
// throughput with and without the stalled watchers is logged); A stalled for real (its HTTP/2 stream took
// less than a tenth of the data while paused); the server's anonymous RSS (heap and buffers) grew during
// phase 2 by less than RSS_BOUND more than it grew during phase 1 for the same writes.
//
// Why so many stalled watchers: a server that queues responses without bound need not copy the values.
// A stand-in server that queues message objects on the grpc-js call without bound (tried while writing
// this test) shares one value buffer between all watchers' messages, so 18 stalled watchers cost it only
// ~25 MiB; what grows is one queued message per stalled watcher and write. With 202 watchers x 2000
// writes = 404,000 queued messages it grew by 125 MiB (32 MiB in phase 1) and failed the bound; a server
// that serialized each message would need 202 x 16 MiB = 3.2 GiB. A bounded server turns each stalled
// watcher into a victim that costs nothing per write.
//
// Why a data dir and anonymous RSS: with --memory the store itself would hold the 32 MiB written, and
// the memory of a stalled watcher could hide in it. On disk (classic-level for etcdlite, bbolt for etcd),
// the values live in files: classic-level's memory is its write buffer and block cache (a few MiB, bounded),
// and bbolt's mmap of its file counts as file-backed RSS (RssFile), which is the page cache, not the
// process's buffers. So the bound is on RssAnon; VmRSS is logged too. The bound is on the growth beyond
// phase 1's because a server may grow with writes whether or not anyone watches: etcd keeps its recent
// raft log entries (thousands, ~8 KiB each here) in memory, so its heap grows by ~50 MiB in each phase.
//
// Budget: about 8-15 s for etcdlite on 2 cores. STRESS_SCALE multiplies the writes.
import { describe, it, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { WatchResponse } from '../../src/etcdserver/types/watch.js'
import { rawTestClient } from '../compliance/harness/adapters/raw.js'
import type { EtcdTestClient } from '../compliance/harness/client.js'
import {
  cpuSeconds, grpcWatchCall, MiB, mib, prefixEnd, rawH2WatchCall, RssSampler, startTarget, stressScale, stressTargets, watchConnection, withDeadline,
  type TargetName, type WatchCall,
} from './lib.js'

const SCALE = stressScale()
const VALUE_BYTES = 8 * 1024
const WRITES = Math.max(100, Math.round(2000 * SCALE))
const WRITER_CONCURRENCY = 16
const KEYS = 16
/** Watchers on each of the never-resumed streams B and C. */
const MULTIPLIER = 100
/** Stalled watchers in phase 2: A, A2, B's and C's. */
const STALLED = 2 + 2 * MULTIPLIER
/**
 * Allowed growth of the server's anonymous RSS during phase 2 beyond its growth in phase 1 (the same
 * writes, no watcher). Queuing for the stalled watchers without bound costs STALLED x WRITES messages
 * (404,000 at scale 1: ~125 MiB as shared objects, 3.2 GiB serialized); a bounded server needs its
 * per-stream queues (etcd: 128 responses of ~8 KiB each per stream, about 1 MiB each) plus allocator
 * and GC noise.
 */
const RSS_BOUND = 64 * MiB
/** Generous: the writer is expected to run at hundreds of writes per second or more. */
const WRITE_DEADLINE_MS = 120_000 * SCALE
const CATCH_UP_DEADLINE_MS = 60_000 * SCALE

const PREFIX = Buffer.from('s/')
const mod = (n: number, m: number): number => ((n % m) + m) % m
const keyOf = (n: number): Buffer => Buffer.from(`s/${mod(n, KEYS).toString().padStart(2, '0')}`)
/** A value whose first bytes name the write (warm-up writes have negative numbers), so an event can be traced to it. */
function valueOf(n: number): Buffer {
  const v = Buffer.alloc(VALUE_BYTES, mod(n, 251))
  v.write(`write ${n};`, 'latin1')
  return v
}
const tagOf = (v: Uint8Array): string => {
  const s = Buffer.from(v.subarray(0, 24)).toString('latin1')
  return s.slice(0, s.indexOf(';') + 1)
}

interface Written {
  readonly rev: number
  readonly key: string
  readonly tag: string
}

/** Write `count` values (writes first..first+count-1) with WRITER_CONCURRENCY in flight; in revision order. */
async function writePhase(kv: EtcdTestClient, first: number, count: number): Promise<{ writes: Written[]; seconds: number }> {
  const writes: Written[] = []
  let next = first
  const t0 = performance.now()
  await Promise.all(Array.from({ length: WRITER_CONCURRENCY }, async () => {
    while (next < first + count) {
      const n = next++
      const key = keyOf(n)
      const res = await kv.put({ key, value: valueOf(n) })
      writes.push({ rev: res.header.revision, key: key.toString('latin1'), tag: `write ${n};` })
    }
  }))
  const seconds = (performance.now() - t0) / 1000
  return { writes: writes.sort((a, b) => a.rev - b.rev), seconds }
}

/** What one watcher has received; resolves waiters as responses arrive. */
class Collector {
  readonly created: WatchResponse[] = []
  readonly events: Written[] = []
  readonly problems: string[] = []
  compacted: WatchResponse | undefined
  private wake: (() => void) | undefined
  private until: (() => boolean) | undefined

  onResponse(r: WatchResponse): void {
    if (r.created) {
      if (r.canceled) this.problems.push(`create refused: ${r.cancelReason}`)
      this.created.push(r)
    } else if (r.canceled || r.compactRevision !== 0) {
      if (this.compacted !== undefined) this.problems.push('a second canceled response')
      this.compacted = r
    } else {
      if (this.compacted !== undefined) this.problems.push('events after the compacted response')
      for (const e of r.events) {
        if (e.type !== 'PUT') this.problems.push(`unexpected ${e.type} event`)
        this.events.push({ rev: e.kv.modRevision, key: Buffer.from(e.kv.key).toString('latin1'), tag: tagOf(e.kv.value) })
        if (e.kv.value.length !== VALUE_BYTES) this.problems.push(`value of ${e.kv.value.length} bytes at revision ${e.kv.modRevision}`)
      }
    }
    if (this.until?.() === true) this.wake?.()
  }

  /** Resolves once `cond` holds (checked now and after every response). */
  waitFor(cond: () => boolean): Promise<void> {
    if (cond()) return Promise.resolve()
    return new Promise((resolve) => {
      this.until = cond
      this.wake = () => {
        this.until = undefined
        this.wake = undefined
        resolve()
      }
    })
  }
}

const show = (w: Written | undefined): string => (w === undefined ? 'nothing' : `${w.key}@${w.rev} "${w.tag}"`)

/** Index of the first difference between the expected and received events, or -1. */
function firstDifference(want: readonly Written[], got: readonly Written[], upTo: number): number {
  for (let i = 0; i < upTo; i++) {
    const a = want[i]
    const b = got[i]
    if (a === undefined || b === undefined || a.rev !== b.rev || a.key !== b.key || a.tag !== b.tag) return i
  }
  return -1
}

async function scenario(t: TestContext, target: TargetName): Promise<void> {
  const server = await startTarget(target, 'disk')
  const pid = server.proc.pid
  if (pid === undefined) throw new Error('server has no pid')
  const kv = rawTestClient(server.endpoint, () => Promise.resolve())
  const watchClient = watchConnection(server.endpoint)
  const calls: WatchCall[] = []
  const sessions: (() => Promise<void>)[] = []
  try {
    const t0 = performance.now()
    const lap = (): string => `${((performance.now() - t0) / 1000).toFixed(1)} s`
    const dataMiB = (WRITES * VALUE_BYTES) / MiB
    // Warm-up (JIT, connections, the store's caches), so that phase 1 measures the steady state.
    const warm = Math.ceil(WRITES / 10)
    await withDeadline(writePhase(kv, -warm, warm), WRITE_DEADLINE_MS, () => 'warm-up writes')
    // Phase 1: the baseline.
    const s1 = new RssSampler(pid)
    const cpu1 = cpuSeconds(pid)
    const base = await withDeadline(writePhase(kv, 0, WRITES), WRITE_DEADLINE_MS, () => 'baseline writes')
    const r1 = s1.stop()
    const cpuBase = cpuSeconds(pid) - cpu1
    const rev0 = base.writes[base.writes.length - 1]?.rev ?? 0

    // The stalled consumers, all from rev0 + 1.
    const create = (c: WatchCall): void =>
      c.send({ type: 'create', request: { key: PREFIX, rangeEnd: prefixEnd(PREFIX), startRevision: rev0 + 1 } })
    const a = new Collector()
    const a2 = new Collector()
    const b = new Collector()
    const c = new Collector()
    const callA = rawH2WatchCall(server.endpoint, a)
    const callA2 = rawH2WatchCall(server.endpoint, a2)
    const callB = rawH2WatchCall(server.endpoint, b)
    const callC = grpcWatchCall(watchClient, c)
    calls.push(callA, callA2, callB, callC)
    sessions.push(() => callA.closeSession(), () => callA2.closeSession(), () => callB.closeSession())
    create(callA)
    create(callA2)
    for (let i = 0; i < MULTIPLIER; i++) {
      create(callB)
      create(callC)
    }
    for (const [col, n] of [[a, 1], [a2, 1], [b, MULTIPLIER], [c, MULTIPLIER]] as const) {
      await withDeadline(col.waitFor(() => col.created.length === n), 10_000, () => `${col.created.length} of ${n} created responses`)
      assert.deepEqual(col.problems, [])
    }
    for (const call of calls) call.pause()

    // Phase 2: the same writes with the stalled watchers.
    const s2 = new RssSampler(pid)
    const cpu2 = cpuSeconds(pid)
    const stalled = await withDeadline(writePhase(kv, WRITES, WRITES), WRITE_DEADLINE_MS, () => 'writes with stalled watchers')
    const r2 = s2.stop()
    const cpuStalled = cpuSeconds(pid) - cpu2
    const want = stalled.writes
    const revEnd = want[want.length - 1]?.rev ?? 0
    assert.deepEqual(want.map((w) => w.rev), Array.from({ length: WRITES }, (_, i) => rev0 + 1 + i), 'phase 2 writes made revisions rev0+1.. with no gap')

    const rate = (p: { seconds: number }, cpu: number): string =>
      `${(WRITES / p.seconds).toFixed(0)} writes/s, ${(dataMiB / p.seconds).toFixed(1)} MiB/s; server CPU ${cpu.toFixed(2)} s`
    t.diagnostic(`${target}: writer without watchers: ${WRITES} x ${VALUE_BYTES} B in ${base.seconds.toFixed(2)} s (${rate(base, cpuBase)})`)
    t.diagnostic(`${target}: writer with ${STALLED} stalled watchers: ${stalled.seconds.toFixed(2)} s (${rate(stalled, cpuStalled)}); throughput ratio ${(base.seconds / stalled.seconds).toFixed(2)}`)
    const growth = (r: typeof r1): string =>
      `VmRSS ${mib(r.start.total)} -> max ${mib(r.max.total)} (+${mib(r.max.total - r.start.total)}), RssAnon ${mib(r.start.anon)} -> max ${mib(r.max.anon)} (+${mib(r.max.anon - r.start.anon)}), ${r.samples} samples`
    t.diagnostic(`${target}: RSS phase 1 (no watchers): ${growth(r1)}`)
    t.diagnostic(`${target}: RSS phase 2 (stalled): ${growth(r2)}; unbounded queuing would hold ${STALLED * WRITES} messages`)
    const took = callA.receivedBytes + callA.bufferedBytes
    t.diagnostic(`${target}: phase 2 done (${lap()})`)
    t.diagnostic(`${target}: A's HTTP/2 stream took ${(took / 1024).toFixed(0)} KiB while paused, of ${dataMiB.toFixed(0)} MiB written`)

    assert.ok(took < (WRITES * VALUE_BYTES) / 10, `A did not stall: its stream took ${took} bytes while paused`)
    const growth1 = Math.max(0, r1.max.anon - r1.start.anon)
    const growth2 = r2.max.anon - r2.start.anon
    assert.ok(growth2 - growth1 < RSS_BOUND,
      `the server's anonymous RSS grew by ${mib(growth2)} with ${STALLED} stalled watchers, ${mib(growth1)} without (bound on the difference ${mib(RSS_BOUND)})`)

    // B and C go away; A reads again and must catch up with every event exactly once, in order.
    callB.close()
    callC.close()
    callA.resume()
    await withDeadline(a.waitFor(() => (a.events[a.events.length - 1]?.rev ?? 0) >= revEnd || a.compacted !== undefined), CATCH_UP_DEADLINE_MS,
      () => `A caught up to revision ${a.events[a.events.length - 1]?.rev ?? 0} of ${revEnd}`)
    assert.deepEqual(a.problems, [])
    assert.equal(a.compacted, undefined, 'A was canceled, though nothing was compacted')
    const i = firstDifference(want, a.events, Math.max(want.length, a.events.length))
    assert.equal(i, -1, `A: ${a.events.length} events, ${want.length} expected; first difference at #${i}: got ${show(a.events[i])}, want ${show(want[i])}`)

    t.diagnostic(`${target}: A caught up (${lap()})`)
    // Compact everything; A2 then reads: a gap-free run of events, then the compacted response.
    await kv.compact({ revision: revEnd })
    callA2.resume()
    await withDeadline(a2.waitFor(() => (a2.events[a2.events.length - 1]?.rev ?? 0) >= revEnd || a2.compacted !== undefined), CATCH_UP_DEADLINE_MS,
      () => `A2 reached revision ${a2.events[a2.events.length - 1]?.rev ?? 0} of ${revEnd} and got no compacted response`)
    assert.deepEqual(a2.problems, [])
    const k = a2.events.length
    const j = firstDifference(want, a2.events, k)
    assert.equal(j, -1, `A2: event #${j}: got ${show(a2.events[j])}, want ${show(want[j])}`)
    if (a2.compacted !== undefined) {
      assert.equal(a2.compacted.compactRevision, revEnd, 'compact_revision of the compacted response')
      assert.equal(a2.compacted.canceled, true)
      const missed = want[k]
      assert.ok(missed !== undefined && missed.rev < revEnd, `A2 was compacted though its next event ${show(missed)} is not below the compaction`)
    } else assert.equal(k, want.length)
    t.diagnostic(`${target}: A caught up ${a.events.length} events; A2 got ${k} events then ${a2.compacted === undefined ? 'no compacted response' : `compacted at ${a2.compacted.compactRevision}`} (${lap()})`)
  } finally {
    for (const call of calls) call.close()
    await Promise.all(sessions.map((close) => close()))
    watchClient.close()
    await kv.close()
    await server.dispose()
  }
}

for (const target of stressTargets()) {
  describe(`stalled watch consumers against ${target.name}`, { skip: target.skip }, () => {
    it(`writers keep going, memory stays bounded, and a consumer that reads again catches up exactly once (${STALLED} stalled watchers, ${WRITES} x ${VALUE_BYTES} B)`, { timeout: 300_000 * SCALE }, async (t) => {
      await scenario(t, target.name)
    })
  })
}
