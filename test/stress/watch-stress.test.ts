// Watch stress: 10,000 watchers on 100 gRPC Watch streams (over 4 connections) while a writer puts,
// deletes and runs txns over 1000 keys. Each watcher must receive every matching event exactly once, in
// revision order, and all events of one revision in one response.
//
// How the expected events are known: every write's response says what it did. A put made one PUT at its
// header revision; a delete (asked with prev_kv) made one DELETE per returned prev_kv, in key order, at its
// header revision (none if it deleted nothing); a txn made its branch's changes in op order at its header
// revision. So the history (revision -> events) comes from the acknowledged responses alone, even with
// several writes in flight, and two writes acknowledged at the same revision are themselves a failure.
//
// Watchers (by kind): single keys, small ranges [a, a+1..4), prefixes of 10, 100 and 1000 keys, and
// from-key ranges (range_end "\0", which also see the z/ keys nobody else watches). By start:
// - created before the writer starts, from now (start_revision 0: expected from the created response's
//   header revision + 1, exactly, since nothing is written meanwhile), from history (replayed through the
//   unsynced path) or from a future revision (nothing before it);
// - created in two batches while the writer runs (at 1/3 and 2/3 of the writes): from history (they catch
//   up through the unsynced path while new events flow), from now (the created revision races with the
//   writes, so the expected events start at the first event received or at created revision + 1, whichever
//   is lower: a gap or a duplicate after that point still fails), and from the future.
// When the writer is done, sentinel txns put every k/ key once, so every watcher has a last expected event
// after all other writes: waiting for it is waiting for the watcher to be complete, and a duplicate or a
// late event before it shows up as an order violation.
//
// Budget: about 16 CPU-seconds (etcdlite ~6, this process ~10: ~200,000 events in ~135,000 responses),
// so ~10 s on 2 idle cores; 20-30 s when other jobs share the cores. STRESS_SCALE multiplies the writes; STRESS_SEED replays seeds;
// STRESS_TARGETS=etcdlite,etcd also runs it against the real etcd (see lib.ts).
import { describe, it, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { RequestOp } from '../../src/etcdserver/types/kv.js'
import type { WatchResponse } from '../../src/etcdserver/types/watch.js'
import { rawTestClient } from '../compliance/harness/adapters/raw.js'
import type { EtcdTestClient } from '../compliance/harness/client.js'
import { Prng, seedsFromEnv } from '../helpers/prng.js'
import { cpuSeconds, grpcWatchCall, prefixEnd, startTarget, stressScale, stressTargets, watchConnection, withDeadline, type WatchCall, type WatchClient } from './lib.js'
import type { WatchId } from '../../src/pkg/watch-id.js'

const SCALE = stressScale()
const CONNECTIONS = 4
const STREAMS = 100
const INITIAL_WATCHERS = 9000
/** Created while the writer runs, in two batches. */
const MID_BATCH = 500
const KEYS = 1000
const PRELOAD_WRITES = 200
const WRITES = Math.max(30, Math.round(1500 * SCALE))
/** Writes in flight: etcd batches the fsyncs of concurrent writes, so this also keeps its run short. */
const WRITER_CONCURRENCY = 8
/** Puts per sentinel txn; etcd's --max-txn-ops defaults to 128. */
const SENTINEL_BATCH = 100
const CREATE_DEADLINE_MS = 30_000
const DELIVERY_DEADLINE_MS = 60_000 * SCALE

const enc = (s: string): Buffer => Buffer.from(s, 'latin1')
const keyName = (n: number): string => `k/${n.toString().padStart(3, '0')}`

type Kind = 'key' | 'range' | 'prefix10' | 'prefix100' | 'prefix1000' | 'fromKey'
type StartKind = 'now' | 'history' | 'future'

/** One event as compared: keys and values as latin1 strings (1:1 with bytes, and ordered as bytes). */
interface Ev {
  readonly rev: number
  readonly type: 'PUT' | 'DELETE'
  readonly key: string
  readonly value: string
}

interface Watcher {
  readonly index: number
  readonly kind: Kind
  readonly start: StartKind
  readonly phase: 'initial' | 'mid'
  readonly key: string
  /** undefined: the single key; "\0": from key; else the end of [key, rangeEnd). */
  readonly rangeEnd: string | undefined
  readonly startRevision: number
  readonly stream: StreamState
  readonly requestedId: number
  watchId: WatchId | undefined
  createdRev: number | undefined
  readonly events: Ev[]
  responses: number
  lastRev: number
  /** The revision of its last expected event (set when the writer is done); undefined: none expected. */
  target: number | undefined
  done: boolean
  /** Counted in Run.notDone (it has a target not reached yet). */
  counted: boolean
  problem: string | undefined
}

interface StreamState {
  readonly index: number
  readonly explicitIds: boolean
  call: WatchCall | undefined
  readonly pending: Watcher[]
  readonly byId: Map<WatchId, Watcher>
  nextId: number
  problem: string | undefined
}

const describeWatcher = (w: Watcher): string =>
  `watcher #${w.index} (${w.kind} ${JSON.stringify(w.key)}${w.rangeEnd === undefined ? '' : `..${JSON.stringify(w.rangeEnd)}`}, ` +
  `${w.phase} ${w.start} start_revision ${w.startRevision}, stream ${w.stream.index} watch_id ${String(w.watchId)}, created at ${String(w.createdRev)})`

/** Everything one run shares: the watchers, the history, and the wait for delivery. */
class Run {
  readonly watchers: Watcher[] = []
  readonly streams: StreamState[] = []
  /** revision -> its events in order, from acknowledged writes. */
  readonly history = new Map<number, Ev[]>()
  maxAckedRev = 0
  created = 0
  responses = 0
  eventsDelivered = 0
  private notDone = 0
  private onCreated: (() => void) | undefined
  private createdWanted = 0
  private onAllDone: (() => void) | undefined

  constructor(readonly prng: Prng) {
    for (let i = 0; i < STREAMS; i++) {
      this.streams.push({ index: i, explicitIds: i % 2 === 1, call: undefined, pending: [], byId: new Map(), nextId: 1000 + i * 100_000, problem: undefined })
    }
  }

  record(rev: number, events: Ev[], what: string): void {
    if (!Number.isSafeInteger(rev) || rev < 2) throw new Error(`${what}: bad revision ${rev}`)
    if (this.history.has(rev)) throw new Error(`${what}: acknowledged at revision ${rev}, like an earlier write`)
    this.history.set(rev, events)
    this.maxAckedRev = Math.max(this.maxAckedRev, rev)
  }

  /** Choose a watcher's range; keys are k/000..k/999. */
  private chooseRange(): { kind: Kind; key: string; rangeEnd: string | undefined } {
    const p = this.prng
    const kind = p.weighted<Kind>([[55, 'key'], [30, 'range'], [12, 'prefix10'], [2.5, 'prefix100'], [0.2, 'prefix1000'], [0.3, 'fromKey']])
    switch (kind) {
      case 'key':
        return { kind, key: keyName(p.int(KEYS)), rangeEnd: undefined }
      case 'range': {
        const width = p.between(1, 4)
        const a = p.int(KEYS - width + 1)
        return { kind, key: keyName(a), rangeEnd: a + width === KEYS ? prefixEnd(enc('k/')).toString('latin1') : keyName(a + width) }
      }
      case 'prefix10':
      case 'prefix100':
      case 'prefix1000': {
        const digits = kind === 'prefix10' ? 2 : kind === 'prefix100' ? 1 : 0
        const prefix = `k/${digits === 0 ? '' : p.int(10 ** digits).toString().padStart(digits, '0')}`
        return { kind, key: prefix, rangeEnd: prefixEnd(enc(prefix)).toString('latin1') }
      }
      case 'fromKey':
        return { kind, key: keyName(p.between(900, KEYS - 1)), rangeEnd: '\0' }
    }
  }

  /** Create `n` watchers spread over every stream; returns at once (created responses arrive later). */
  createWatchers(n: number, phase: 'initial' | 'mid', startWeights: readonly (readonly [number, StartKind])[]): void {
    const p = this.prng
    const rev = this.maxAckedRev
    this.createdWanted += n
    for (let i = 0; i < n; i++) {
      const index = this.watchers.length
      const stream = this.streams[index % STREAMS] as StreamState
      const range = this.chooseRange()
      const start = p.weighted(startWeights)
      const startRevision = start === 'now' ? 0 : start === 'history' ? p.between(2, rev) : rev + p.between(1, 1200)
      const w: Watcher = {
        index, ...range, start, phase, startRevision, stream, requestedId: stream.explicitIds ? stream.nextId++ : 0,
        watchId: undefined, createdRev: undefined, events: [], responses: 0, lastRev: 0, target: undefined, done: false, counted: false, problem: undefined,
      }
      this.watchers.push(w)
      stream.pending.push(w)
      const call = stream.call
      if (call === undefined) throw new Error('stream not open')
      call.send({
        type: 'create',
        request: {
          key: enc(w.key),
          ...(w.rangeEnd === undefined ? {} : { rangeEnd: enc(w.rangeEnd) }),
          ...(startRevision === 0 ? {} : { startRevision }),
          ...(w.requestedId === 0 ? {} : { watchId: w.requestedId }),
        },
      })
    }
  }

  /** Resolves once every watcher created so far has its created response. */
  allCreated(): Promise<void> {
    if (this.created >= this.createdWanted) return Promise.resolve()
    return new Promise((resolve) => {
      this.onCreated = resolve
    })
  }

  private fail(w: Watcher, problem: string): void {
    w.problem ??= problem
    this.markDone(w)
  }

  private markDone(w: Watcher): void {
    if (w.done) return
    w.done = true
    if (w.counted) {
      this.notDone--
      if (this.notDone === 0) this.onAllDone?.()
    }
  }

  onResponse(s: StreamState, r: WatchResponse): void {
    this.responses++
    if (r.created) {
      const w = s.pending.shift()
      if (w === undefined) {
        s.problem ??= `created response (watch_id ${r.watchId}) with no create pending`
        return
      }
      this.created++
      if (this.created >= this.createdWanted) this.onCreated?.()
      if (r.canceled) {
        this.fail(w, `create refused: ${r.cancelReason}`)
        return
      }
      if (w.requestedId !== 0 && r.watchId !== w.requestedId) this.fail(w, `asked for watch_id ${w.requestedId}, got ${r.watchId}`)
      if (s.byId.has(r.watchId)) this.fail(w, `watch_id ${r.watchId} given twice on stream ${s.index}`)
      w.watchId = r.watchId
      w.createdRev = r.header.revision
      s.byId.set(r.watchId, w)
      return
    }
    const w = s.byId.get(r.watchId)
    if (w === undefined) {
      s.problem ??= `stream ${s.index}: a response for watch_id ${r.watchId}, which has no created response yet (${r.events.length} events)`
      return
    }
    w.responses++
    if (r.canceled || r.compactRevision !== 0) {
      this.fail(w, `canceled (compact_revision ${r.compactRevision}, reason ${JSON.stringify(r.cancelReason)})`)
      return
    }
    if (r.fragment) this.fail(w, 'fragmented response, not asked for')
    if (r.events.length === 0) return // a progress notification
    const first = r.events[0]?.kv.modRevision ?? 0
    if (first <= w.lastRev) {
      this.fail(w, `a response starts at revision ${first} after one that ended at ${w.lastRev}: out of order, a duplicate, or one revision split over two responses`)
    }
    let prev = first
    for (const e of r.events) {
      const rev = e.kv.modRevision
      if (rev < prev) this.fail(w, `revision ${rev} after ${prev} inside one response`)
      prev = rev
      w.events.push({ rev, type: e.type, key: Buffer.from(e.kv.key).toString('latin1'), value: e.type === 'PUT' ? Buffer.from(e.kv.value).toString('latin1') : '' })
    }
    if (r.header.revision < prev) this.fail(w, `header revision ${r.header.revision} below its last event's revision ${prev}`)
    this.eventsDelivered += r.events.length
    w.lastRev = prev
    if (w.target !== undefined && w.lastRev >= w.target) this.markDone(w)
  }

  /** The history as one list in revision order, indexed by key. */
  private index(): { byKey: Map<string, { seq: number; ev: Ev }[]>; keys: string[] } {
    const byKey = new Map<string, { seq: number; ev: Ev }[]>()
    let seq = 0
    for (const rev of [...this.history.keys()].sort((a, b) => a - b)) {
      for (const ev of this.history.get(rev) ?? []) {
        let list = byKey.get(ev.key)
        if (list === undefined) byKey.set(ev.key, (list = []))
        list.push({ seq: seq++, ev })
      }
    }
    return { byKey, keys: [...byKey.keys()].sort() }
  }

  private expectedCache: ReturnType<Run['index']> | undefined

  /** Every event `w` should see from revision `from` on, in order. */
  expected(w: Watcher, from: number): Ev[] {
    const { byKey, keys } = (this.expectedCache ??= this.index())
    let lo = lowerBound(keys, w.key)
    const hi = w.rangeEnd === undefined ? lo + (keys[lo] === w.key ? 1 : 0) : w.rangeEnd === '\0' ? keys.length : lowerBound(keys, w.rangeEnd)
    const out: { seq: number; ev: Ev }[] = []
    for (; lo < hi; lo++) for (const x of byKey.get(keys[lo] as string) ?? []) if (x.ev.rev >= from) out.push(x)
    return out.sort((a, b) => a.seq - b.seq).map((x) => x.ev)
  }

  /** First revision a watcher must see everything from. */
  static from(w: Watcher): number {
    if (w.start !== 'now') return w.startRevision
    const created = (w.createdRev ?? 0) + 1
    // A mid-run watcher from now: the created revision races the writes, see the file comment.
    return w.phase === 'mid' ? Math.min(created, w.events[0]?.rev ?? created) : created
  }

  /** Once the history is complete: every watcher's last expected revision; resolves when all have it. */
  allDelivered(): Promise<void> {
    this.expectedCache = undefined
    for (const w of this.watchers) {
      if (w.done) continue // already failed
      const exp = this.expected(w, Run.from(w))
      w.target = exp[exp.length - 1]?.rev
      if (w.target === undefined || w.lastRev >= w.target) w.done = true
      else {
        w.counted = true
        this.notDone++
      }
    }
    if (this.notDone === 0) return Promise.resolve()
    return new Promise((resolve) => {
      this.onAllDone = resolve
    })
  }

  notDoneReport(): string {
    const open = this.watchers.filter((w) => !w.done)
    return `${open.length} watchers still missing events, e.g.:\n` +
      open.slice(0, 8).map((w) => `  ${describeWatcher(w)}: ${w.events.length} events in ${w.responses} responses, last revision ${w.lastRev}, waiting for ${String(w.target)}`).join('\n')
  }
}

function lowerBound(xs: readonly string[], x: string): number {
  let lo = 0
  let hi = xs.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((xs[mid] as string) < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

const evString = (e: Ev | undefined): string => (e === undefined ? 'nothing' : `${e.type} ${e.key}@${e.rev}${e.type === 'PUT' ? ` ${JSON.stringify(e.value)}` : ''}`)

/** One write, chosen from the PRNG, sent, and recorded from its response. */
async function write(run: Run, kv: EtcdTestClient, n: number): Promise<void> {
  const p = run.prng
  const value = (key: string): string => `v${n}:${key}`
  const put = (key: string): RequestOp => ({ type: 'put', request: { key: enc(key), value: enc(value(key)) } })
  const distinctKeys = (count: number): string[] => {
    const set = new Set<string>()
    while (set.size < count) set.add(keyName(p.int(KEYS)))
    return [...set]
  }
  const op = p.weighted([[55, 'put'], [3, 'putOther'], [10, 'delete'], [5, 'deleteRange'], [12, 'txnIf'], [15, 'txnMulti']] as const)
  switch (op) {
    case 'put':
    case 'putOther': {
      const key = op === 'put' ? keyName(p.int(KEYS)) : `z/${p.int(50)}`
      const res = await kv.put({ key: enc(key), value: enc(value(key)) })
      run.record(res.header.revision, [{ rev: res.header.revision, type: 'PUT', key, value: value(key) }], `put ${key}`)
      return
    }
    case 'delete':
    case 'deleteRange': {
      const a = p.int(KEYS - 5)
      const key = keyName(a)
      const rangeEnd = op === 'delete' ? undefined : keyName(a + p.between(1, 5))
      const res = await kv.deleteRange({ key: enc(key), ...(rangeEnd === undefined ? {} : { rangeEnd: enc(rangeEnd) }), prevKv: true })
      if (res.deleted !== res.prevKvs.length) throw new Error(`delete ${key}: deleted ${res.deleted} but ${res.prevKvs.length} prev_kvs`)
      if (res.deleted === 0) return // no revision
      const rev = res.header.revision
      run.record(rev, res.prevKvs.map((kv) => ({ rev, type: 'DELETE', key: Buffer.from(kv.key).toString('latin1'), value: '' })), `delete ${key}`)
      return
    }
    case 'txnIf': {
      const [x, y, z] = distinctKeys(3) as [string, string, string]
      const res = await kv.txn({
        compare: [{ key: enc(x), target: 'VERSION', result: 'GREATER', version: 0 }],
        success: [put(x), { type: 'deleteRange', request: { key: enc(y), prevKv: true } }],
        failure: [put(x), put(z)],
      })
      const rev = res.header.revision
      const events: Ev[] = [{ rev, type: 'PUT', key: x, value: value(x) }]
      if (res.succeeded) {
        const del = res.responses[1]
        if (del?.type !== 'deleteRange') throw new Error(`txn: no delete response: ${JSON.stringify(del?.type)}`)
        for (const kv of del.response.prevKvs) events.push({ rev, type: 'DELETE', key: Buffer.from(kv.key).toString('latin1'), value: '' })
      } else events.push({ rev, type: 'PUT', key: z, value: value(z) })
      run.record(rev, events, `txn if ${x}`)
      return
    }
    case 'txnMulti': {
      const keys = distinctKeys(p.between(2, 5))
      const delAt = p.chance(0.5) ? p.int(keys.length) : -1
      const ops: RequestOp[] = keys.map((k, i) => (i === delAt ? { type: 'deleteRange', request: { key: enc(k), prevKv: true } } : put(k)))
      if (!ops.some((o) => o.type === 'put')) ops.push(put(keyName(KEYS - 1)))
      const res = await kv.txn({ success: ops })
      const rev = res.header.revision
      const events: Ev[] = []
      res.responses.forEach((r, i) => {
        const o = ops[i]
        if (r.type === 'put' && o?.type === 'put') {
          const key = Buffer.from(o.request.key).toString('latin1')
          events.push({ rev, type: 'PUT', key, value: value(key) })
        } else if (r.type === 'deleteRange') {
          for (const kv of r.response.prevKvs) events.push({ rev, type: 'DELETE', key: Buffer.from(kv.key).toString('latin1'), value: '' })
        } else throw new Error(`txn: response ${i} is ${r.type}`)
      })
      run.record(rev, events, `txn ${keys.join(',')}`)
      return
    }
  }
}

async function scenario(t: TestContext, target: 'etcdlite' | 'etcd', seed: number): Promise<void> {
  const t0 = performance.now()
  const server = await startTarget(target, 'memory')
  const pid = server.proc.pid ?? 0
  const lap = (): string => `${((performance.now() - t0) / 1000).toFixed(1)} s; CPU: server ${cpuSeconds(pid).toFixed(1)} s, test ${(process.cpuUsage().user / 1e6).toFixed(1)} s`
  const run = new Run(new Prng(seed))
  const kv = rawTestClient(server.endpoint, () => Promise.resolve())
  const conns: WatchClient[] = []
  try {
    for (let i = 0; i < CONNECTIONS; i++) conns.push(watchConnection(server.endpoint))
    for (const s of run.streams) s.call = grpcWatchCall(conns[s.index % CONNECTIONS] as WatchClient, { onResponse: (r) => run.onResponse(s, r) })

    // History before any watcher.
    let next = 0
    const writer = async (end: number, during?: (n: number) => void): Promise<void> => {
      await Promise.all(Array.from({ length: WRITER_CONCURRENCY }, async () => {
        while (next < end) {
          const n = next++
          during?.(n)
          await write(run, kv, n)
        }
      }))
    }
    await writer(PRELOAD_WRITES)
    t.diagnostic(`${target}: preloaded ${PRELOAD_WRITES} writes (${lap()})`)
    run.createWatchers(INITIAL_WATCHERS, 'initial', [[85, 'now'], [12, 'history'], [3, 'future']])
    await withDeadline(run.allCreated(), CREATE_DEADLINE_MS, () => `${run.created} of ${INITIAL_WATCHERS} watchers created`)
    t.diagnostic(`${target}: ${INITIAL_WATCHERS} watchers created on ${STREAMS} streams at revision ${run.maxAckedRev} (${lap()})`)

    // The writer, with two batches of watchers created while it runs.
    const batches = [PRELOAD_WRITES + Math.floor(WRITES / 3), PRELOAD_WRITES + Math.floor((2 * WRITES) / 3)]
    const w0 = performance.now()
    await writer(PRELOAD_WRITES + WRITES, (n) => {
      if (batches.includes(n)) run.createWatchers(MID_BATCH, 'mid', [[40, 'now'], [45, 'history'], [15, 'future']])
    })
    const writeSeconds = (performance.now() - w0) / 1000
    // Sentinels: every k/ key once, so every watcher has a last event after all other writes.
    for (let a = 0; a < KEYS; a += SENTINEL_BATCH) {
      const keys = Array.from({ length: Math.min(SENTINEL_BATCH, KEYS - a) }, (_, i) => keyName(a + i))
      const res = await kv.txn({ success: keys.map((k) => ({ type: 'put', request: { key: enc(k), value: enc(`sentinel:${k}`) } })) })
      const rev = res.header.revision
      run.record(rev, keys.map((k) => ({ rev, type: 'PUT', key: k, value: `sentinel:${k}` })), 'sentinel txn')
    }
    const revs = [...run.history.keys()].sort((a, b) => a - b)
    assert.deepEqual(revs, Array.from({ length: revs.length }, (_, i) => i + 2), 'acknowledged writes cover revisions 2..current with no gap')
    t.diagnostic(`${target}: ${WRITES} writes in ${writeSeconds.toFixed(1)} s (${(WRITES / writeSeconds).toFixed(0)}/s), history at revision ${run.maxAckedRev} (${lap()})`)

    await withDeadline(run.allCreated(), CREATE_DEADLINE_MS, () => `${run.created} of ${run.watchers.length} watchers created`)
    await withDeadline(run.allDelivered(), DELIVERY_DEADLINE_MS, () => run.notDoneReport())
    t.diagnostic(`${target}: all delivered: ${run.eventsDelivered} events in ${run.responses} responses to ${run.watchers.length} watchers (${lap()})`)

    // Compare every watcher's events with the history.
    const problems: string[] = []
    for (const s of run.streams) if (s.problem !== undefined) problems.push(`stream ${s.index}: ${s.problem}`)
    const counts = new Map<string, number>()
    for (const w of run.watchers) {
      const k = `${w.phase}/${w.start}/${w.kind}`
      counts.set(k, (counts.get(k) ?? 0) + 1)
      if (w.problem !== undefined) {
        problems.push(`${describeWatcher(w)}: ${w.problem}`)
        continue
      }
      const want = run.expected(w, Run.from(w))
      const got = w.events
      const i = firstDifference(want, got)
      if (i !== -1) {
        problems.push(`${describeWatcher(w)}: ${got.length} events, ${want.length} expected; first difference at #${i}: ` +
          `got ${evString(got[i])}, want ${evString(want[i])} (previous: ${evString(got[i - 1])})`)
      }
    }
    t.diagnostic(`${target}: watchers by phase/start/kind: ${[...counts].sort().map(([k, n]) => `${k} ${n}`).join(', ')}`)
    assert.equal(problems.length, 0, `seed ${seed}: ${problems.length} problems:\n${problems.slice(0, 12).join('\n')}`)
  } finally {
    for (const s of run.streams) s.call?.close()
    for (const c of conns) c.close()
    await kv.close()
    await server.dispose()
  }
}

function firstDifference(want: readonly Ev[], got: readonly Ev[]): number {
  const n = Math.max(want.length, got.length)
  for (let i = 0; i < n; i++) {
    const a = want[i]
    const b = got[i]
    if (a === undefined || b === undefined || a.rev !== b.rev || a.type !== b.type || a.key !== b.key || a.value !== b.value) return i
  }
  return -1
}

for (const target of stressTargets()) {
  describe(`watch stress against ${target.name}`, { skip: target.skip }, () => {
    for (const seed of seedsFromEnv('STRESS_SEED', [1])) {
      it(`${INITIAL_WATCHERS + 2 * MID_BATCH} watchers on ${STREAMS} streams each get every matching event of ${PRELOAD_WRITES + WRITES} writes once, in order (seed ${seed})`, { timeout: 180_000 * SCALE }, async (t) => {
        await scenario(t, target.name, seed)
      })
    }
  })
}
