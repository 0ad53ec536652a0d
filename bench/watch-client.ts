// The watch benchmark's load processes, one role per process (bench/lib/watch-workloads.ts has the
// protocol): the fan-out writer, the catch-up history writer, and the watcher processes of the fan-out,
// catch-up and memory workloads. The same code runs against etcd and etcdlite: raw @grpc/grpc-js, the
// project's protos for KV, and for Watch hand-encoded create requests and a scanner that reads only ids,
// flags and mod_revisions (bench/lib/watch-wire.ts), so that decoding is not what limits a run.
//
//   node build/bench/watch-client.js --config '{"role":"fanout","endpoint":"127.0.0.1:2379",...}'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../src/grpc/proto.js'
import type { KVClient } from '../src/grpc/generated/etcdserverpb/KV.js'
import { SampleBuffer, quantile } from './lib/stats.js'
import { encodeWatchCreate, nowUs, prefixRangeEnd, WatchResponseScanner, type WatchCreate } from './lib/watch-wire.js'
import {
  CMD_DRAIN, CMD_FINISH, CMD_GO, HISTORY_PUTS_PER_CONNECTION, MARK_CREATED, MARK_READY, STREAMS_PER_CONNECTION, WATCH_FLOW_CONTROL_WINDOW,
  type CatchupResult, type FanoutResult, type HistoryResult, type MemResult, type WatchClientConfig, type WatchClientResult, type WriterResult,
} from './lib/watch-workloads.js'

const WATCH_METHOD = '/etcdserverpb.Watch/Watch'
const CONNECT_TIMEOUT_MS = 10_000
const CREATE_TIMEOUT_MS = 120_000
/** Sample pairs (rev, µs) one watch process keeps at most: 4 Mi pairs = 64 MiB. */
const MAX_SAMPLE_PAIRS = 4 << 20

function parseConfig(argv: readonly string[]): WatchClientConfig {
  const { values } = parseArgs({ args: [...argv], options: { config: { type: 'string' } }, strict: true })
  if (values.config === undefined) throw new Error('--config <json> is required')
  const c = JSON.parse(values.config) as unknown
  if (typeof c !== 'object' || c === null || !('role' in c) || !('endpoint' in c)) throw new Error('--config: not a watch client config')
  return c as WatchClientConfig
}

/** A key of exactly `size` bytes: the prefix and a zero-padded decimal index (as bench/client.ts). */
function makeKey(prefix: string, index: number, size: number): Buffer {
  const digits = String(index)
  if (digits.length + prefix.length > size) throw new Error(`key size ${size} is too small for key index ${index}`)
  return Buffer.from(prefix + digits.padStart(size - prefix.length, '0'), 'latin1')
}

/** Stdin commands, one per line, taken in order by `next(name)`. */
class Commands {
  private readonly lines: string[][] = []
  private waiter: ((words: string[]) => void) | undefined
  private closed = false

  constructor() {
    const rl = createInterface({ input: process.stdin })
    rl.on('line', (line) => {
      const words = line.trim().split(/\s+/)
      const w = this.waiter
      if (w !== undefined) {
        this.waiter = undefined
        w(words)
      } else this.lines.push(words)
    })
    rl.on('close', () => {
      this.closed = true
      this.waiter?.(['eof'])
    })
  }

  /** The next command; it must be `name`. Returns its arguments as numbers. */
  async next(name: string): Promise<number[]> {
    const words = this.lines.shift() ?? (this.closed ? ['eof'] : await new Promise<string[]>((resolve) => {
      this.waiter = resolve
    }))
    if (words[0] !== name) throw new Error(`expected command ${name}, got ${words.join(' ')}`)
    return words.slice(1).map(Number)
  }
}

function mark(marker: string): void {
  process.stderr.write(`${marker}\n`)
}

async function waitReady(clients: readonly grpc.Client[]): Promise<void> {
  const deadline = Date.now() + CONNECT_TIMEOUT_MS
  await Promise.all(clients.map((c) => new Promise<void>((resolve, reject) => {
    c.waitForReady(deadline, (err) => (err === undefined || err === null ? resolve() : reject(err)))
  })))
}

/** `n` KV clients, each on its own connection (a local subchannel pool stops grpc-js from sharing one). */
async function openKv(endpoint: string, n: number): Promise<KVClient[]> {
  const proto = loadEtcdProto()
  const kvs = Array.from({ length: n }, () => new proto.etcdserverpb.KV(endpoint, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }))
  await waitReady(kvs)
  return kvs
}

function put(kv: KVClient, key: Buffer, value: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    kv.Put({ key, value }, (err, res) => {
      if (err !== null) reject(err)
      else {
        const rev = Number(res?.header?.revision)
        if (Number.isSafeInteger(rev) && rev > 0) resolve(rev)
        else reject(new Error('put: response without a header revision'))
      }
    })
  })
}

/** A growable Float64Array of fixed-width records. */
class Records {
  private buf: Float64Array
  private n = 0
  constructor(private readonly width: number, private readonly cap = Number.POSITIVE_INFINITY) {
    this.buf = new Float64Array(width * 4096)
  }

  get length(): number {
    return this.n / this.width
  }

  /** Append a record (a, b[, c]); false, storing nothing, when full. */
  push(a: number, b: number, c = 0): boolean {
    if (this.n / this.width >= this.cap) return false
    if (this.n + this.width > this.buf.length) {
      const next = new Float64Array(this.buf.length * 2)
      next.set(this.buf)
      this.buf = next
    }
    this.buf[this.n++] = a
    this.buf[this.n++] = b
    if (this.width > 2) this.buf[this.n++] = c
    return true
  }

  save(file: string): void {
    writeFileSync(file, new Uint8Array(this.buf.buffer, 0, this.n * 8))
  }
}

/** CPU use of this process between two calls. */
class CpuWindow {
  private start: NodeJS.CpuUsage | undefined
  private startUs = 0
  private usedUs = 0
  private wallUs = 0

  /** Take the start sample at `startUs` and the end sample at `endUs` (nowUs() clock). */
  schedule(startUs: number, endUs: number): void {
    const t1 = setTimeout(() => {
      this.start = process.cpuUsage()
      this.startUs = nowUs()
    }, Math.max(0, (startUs - nowUs()) / 1000))
    const t2 = setTimeout(() => this.stop(), Math.max(0, (endUs - nowUs()) / 1000))
    t1.unref()
    t2.unref()
  }

  begin(): void {
    this.start = process.cpuUsage()
    this.startUs = nowUs()
  }

  stop(): void {
    if (this.start === undefined || this.wallUs > 0) return
    const d = process.cpuUsage(this.start)
    this.usedUs = d.user + d.system
    this.wallUs = nowUs() - this.startUs
  }

  get cpuUs(): number {
    return Math.round(this.usedUs)
  }

  get pct(): number {
    return this.wallUs > 0 ? Number(((this.usedUs / this.wallUs) * 100).toFixed(1)) : 0
  }
}

// ---------------------------------------------------------------------------------------------------
// Writers

async function runWriter(cfg: WatchClientConfig, cmds: Commands): Promise<WriterResult> {
  const kvs = await openKv(cfg.endpoint, cfg.rate === null ? cfg.writerClients : 1)
  try {
    const keys = Array.from({ length: cfg.keySpace }, (_, i) => makeKey(cfg.prefix, i, cfg.keySize))
    const value = randomBytes(cfg.valueSize)
    mark(MARK_READY)
    const [startUs = 0, endUs = 0] = await cmds.next(CMD_GO)
    const cpu = new CpuWindow()
    cpu.schedule(startUs, endUs)
    const recs = new Records(3)
    const putMs = new SampleBuffer()
    let seq = 0
    let errors = 0
    let firstError: string | null = null
    let firstRev = Number.POSITIVE_INFINITY
    let lastRev = 0
    const one = async (kv: KVClient): Promise<void> => {
      const key = keys[seq++ % keys.length] as Buffer
      const sent = nowUs()
      try {
        const rev = await put(kv, key, value)
        const ack = nowUs()
        recs.push(rev, sent, ack)
        if (rev < firstRev) firstRev = rev
        if (rev > lastRev) lastRev = rev
        if (sent >= startUs && sent < endUs) putMs.push((ack - sent) / 1000)
      } catch (e) {
        errors++
        firstError ??= e instanceof Error ? e.message : String(e)
        if (errors > 100 && recs.length === 0) throw new Error(`too many put errors: ${firstError}`, { cause: e })
      }
    }
    if (cfg.rate === null) {
      await Promise.all(kvs.map(async (kv) => {
        while (nowUs() < endUs) await one(kv)
      }))
    } else {
      // Open loop: put k is due at goUs + k / rate, whether or not earlier puts have completed.
      const kv = kvs[0] as KVClient
      const goUs = nowUs()
      const periodUs = 1e6 / cfg.rate
      const inflight = new Set<Promise<void>>()
      let k = 0
      while (nowUs() < endUs) {
        const now = nowUs()
        while (goUs + k * periodUs <= now) {
          k++
          const p = one(kv).finally(() => inflight.delete(p))
          inflight.add(p)
        }
        await new Promise((r) => setTimeout(r, Math.max(0, Math.min(periodUs, goUs + k * periodUs - nowUs()) / 1000)))
      }
      await Promise.all(inflight)
    }
    cpu.stop()
    recs.save(cfg.samplesFile)
    const sorted = putMs.sorted()
    return {
      role: 'writer', puts: recs.length, putsInWindow: sorted.length, errors, firstError,
      putP50Ms: Number(quantile(sorted, 0.5).toFixed(3)), putP99Ms: Number(quantile(sorted, 0.99).toFixed(3)),
      firstRev: Number.isFinite(firstRev) ? firstRev : 0, lastRev, cpuPct: cpu.pct,
    }
  } finally {
    for (const kv of kvs) kv.close()
  }
}

async function runHistory(cfg: WatchClientConfig): Promise<HistoryResult> {
  const kvs = await openKv(cfg.endpoint, cfg.writerClients)
  try {
    const keys = Array.from({ length: cfg.historyKeys }, (_, i) => makeKey(cfg.prefix, i, cfg.keySize))
    const value = randomBytes(cfg.valueSize)
    const t0 = performance.now()
    let seq = 0
    let lastRev = 0
    const loops = kvs.flatMap((kv) => Array.from({ length: HISTORY_PUTS_PER_CONNECTION }, () => kv))
    await Promise.all(loops.map(async (kv) => {
      while (seq < cfg.historyRevs) {
        const key = keys[seq++ % keys.length] as Buffer
        const rev = await put(kv, key, value)
        if (rev > lastRev) lastRev = rev
      }
    }))
    return { role: 'history', puts: seq, lastRev, seconds: Number(((performance.now() - t0) / 1000).toFixed(3)) }
  } finally {
    for (const kv of kvs) kv.close()
  }
}

// ---------------------------------------------------------------------------------------------------
// Watchers

/**
 * The watch streams of one process and its watchers' bookkeeping. Watcher g (global index) lives on
 * stream (g - firstWatcher) mod streams; streams are spread over connections, STREAMS_PER_CONNECTION each.
 */
class WatchFleet {
  readonly scanner = new WatchResponseScanner()
  readonly clients: grpc.Client[] = []
  readonly calls: grpc.ClientDuplexStream<Buffer, Buffer>[] = []
  /** Per stream: watch id -> local watcher index, and the local indexes still waiting for `created`. */
  private readonly ids: Map<number, number>[] = []
  private readonly pending: number[][] = []
  created = 0
  canceled = 0
  cancelReason: string | null = null
  streamErrors = 0
  firstStreamError: string | null = null
  private closing = false
  private onCreatedAll: (() => void) | undefined
  private onFailure: (e: Error) => void = () => undefined
  /** Rejects when a stream fails or misbehaves; never resolves. */
  readonly failed: Promise<never>

  /** Called for every response carrying events: local watcher index, receive time (nowUs). */
  onEvents: (local: number, recvUs: number, s: WatchResponseScanner) => void = () => undefined

  constructor(private readonly cfg: WatchClientConfig) {
    this.failed = new Promise<never>((_, reject) => {
      this.onFailure = reject
    })
    // Whoever races against `failed` sees the rejection; nobody racing is not an unhandled rejection.
    this.failed.catch(() => undefined)
  }

  async open(): Promise<void> {
    const conns = Math.ceil(this.cfg.streams / STREAMS_PER_CONNECTION)
    for (let i = 0; i < conns; i++) {
      this.clients.push(new grpc.Client(this.cfg.endpoint, grpc.credentials.createInsecure(), {
        'grpc.use_local_subchannel_pool': 1,
        'grpc-node.flow_control_window': WATCH_FLOW_CONTROL_WINDOW,
      }))
    }
    await waitReady(this.clients)
    for (let s = 0; s < this.cfg.streams; s++) {
      const client = this.clients[s % conns] as grpc.Client
      const call = client.makeBidiStreamRequest<Buffer, Buffer>(WATCH_METHOD, (b) => b, (b) => b)
      const ids = new Map<number, number>()
      const pending: number[] = []
      this.ids.push(ids)
      this.pending.push(pending)
      call.on('data', (buf: Buffer) => {
        const recvUs = nowUs()
        const sc = this.scanner
        sc.scan(buf)
        if (sc.created) {
          const local = pending.shift()
          if (local === undefined) return this.fail(new Error(`stream ${s}: created response for no pending create`))
          if (sc.canceled) return this.fail(new Error(`watch create refused: ${sc.cancelReason}`))
          ids.set(sc.watchId, local)
          if (++this.created === this.cfg.watchers) this.onCreatedAll?.()
        } else if (sc.canceled) {
          this.canceled++
          this.cancelReason ??= sc.cancelReason
        } else if (sc.events > 0) {
          const local = ids.get(sc.watchId)
          if (local !== undefined) this.onEvents(local, recvUs, sc)
        }
        return undefined
      })
      call.on('error', (e: grpc.ServiceError) => {
        if (!this.closing) this.fail(new Error(`watch stream ${s} failed: ${e.code} ${e.details}`))
      })
      call.on('end', () => {
        if (!this.closing) this.fail(new Error(`watch stream ${s} ended by the server`))
      })
      this.calls.push(call)
    }
  }

  /** A stream failed, ended, or answered something unexpected: counted, and `failed` rejects. */
  private fail(e: Error): void {
    this.streamErrors++
    this.firstStreamError ??= e.message
    this.onFailure(e)
  }

  streamOf(local: number): number {
    return local % this.cfg.streams
  }

  /** Send one create per watcher (`target(local)` says what) and resolve when all are created. */
  async createAll(target: (local: number) => WatchCreate): Promise<void> {
    const all = new Promise<void>((resolve) => {
      this.onCreatedAll = resolve
    })
    for (let local = 0; local < this.cfg.watchers; local++) {
      const s = this.streamOf(local)
      this.pending[s]?.push(local)
      this.calls[s]?.write(encodeWatchCreate(target(local)))
    }
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`only ${this.created} of ${this.cfg.watchers} watchers created within ${CREATE_TIMEOUT_MS} ms`)), CREATE_TIMEOUT_MS)
    })
    try {
      await Promise.race([all, timeout, this.failed])
    } finally {
      clearTimeout(timer)
    }
  }

  close(): void {
    this.closing = true
    for (const c of this.calls) {
      c.end()
      c.cancel()
    }
    for (const c of this.clients) c.close()
  }
}

function watchTarget(cfg: WatchClientConfig): WatchCreate {
  if (cfg.watchPrefix) {
    const key = Buffer.from(cfg.prefix, 'latin1')
    return { key, rangeEnd: prefixRangeEnd(key), startRevision: 0 }
  }
  return { key: makeKey(cfg.prefix, 0, cfg.keySize), rangeEnd: new Uint8Array(0), startRevision: 0 }
}

async function runFanout(cfg: WatchClientConfig, cmds: Commands): Promise<FanoutResult> {
  const fleet = new WatchFleet(cfg)
  try {
    await fleet.open()
    const target = watchTarget(cfg)
    await fleet.createAll(() => target)
    const n = cfg.watchers
    const lastRev = new Float64Array(n)
    const sampled = new Uint8Array(n)
    let sampledWatchers = 0
    for (let local = 0; local < n; local++) {
      if ((cfg.firstWatcher + local) % cfg.sampleEvery === 0) {
        sampled[local] = 1
        sampledWatchers++
      }
    }
    const samples = new Records(2, MAX_SAMPLE_PAIRS)
    let samplesDropped = 0
    let startUs = Number.POSITIVE_INFINITY
    let endUs = Number.POSITIVE_INFINITY
    let eventsInWindow = 0
    let responsesInWindow = 0
    let totalEvents = 0
    fleet.onEvents = (local, recvUs, sc) => {
      const k = sc.events
      totalEvents += k
      if (recvUs >= startUs && recvUs < endUs) {
        eventsInWindow += k
        responsesInWindow++
      }
      const revs = sc.modRevs
      lastRev[local] = revs[k - 1] ?? 0
      if (sampled[local] === 1) {
        for (let i = 0; i < k; i++) if (!samples.push(revs[i] ?? 0, recvUs)) samplesDropped++
      }
    }
    mark(MARK_READY)
    const [goStart = 0, goEnd = 0] = await cmds.next(CMD_GO)
    startUs = goStart
    endUs = goEnd
    const cpu = new CpuWindow()
    cpu.schedule(startUs, endUs)
    const [target2 = 0, deadlineUs = 0] = await cmds.next(CMD_DRAIN)
    cpu.stop()
    const lagging = (): number => {
      let c = 0
      for (let i = 0; i < n; i++) if ((lastRev[i] ?? 0) < target2) c++
      return c
    }
    while (lagging() > 0 && nowUs() < deadlineUs && fleet.streamErrors === 0) await new Promise((r) => setTimeout(r, 20))
    samples.save(cfg.samplesFile)
    return {
      role: 'fanout', watchers: n, sampledWatchers, eventsInWindow, responsesInWindow, totalEvents, laggingWatchers: lagging(),
      canceled: fleet.canceled, cancelReason: fleet.cancelReason, samplesDropped, cpuUs: cpu.cpuUs, cpuPct: cpu.pct,
      streamErrors: fleet.streamErrors, firstStreamError: fleet.firstStreamError,
    }
  } finally {
    fleet.close()
  }
}

async function runCatchup(cfg: WatchClientConfig, cmds: Commands): Promise<CatchupResult> {
  const fleet = new WatchFleet(cfg)
  const [kv] = await openKv(cfg.endpoint, 1)
  if (kv === undefined) throw new Error('no KV client')
  try {
    await fleet.open()
    // Each key's version is its number of puts (nothing is deleted); its mod_revision is its last event.
    const prefix = Buffer.from(cfg.prefix, 'latin1')
    const res = await new Promise<{ header: number; kvs: { version: number; mod: number }[] }>((resolve, reject) => {
      kv.Range({ key: prefix, range_end: prefixRangeEnd(prefix), keys_only: true }, (err, r) => {
        if (err !== null || r === undefined) reject(err ?? new Error('range: no response'))
        else resolve({ header: Number(r.header?.revision), kvs: r.kvs.map((x) => ({ version: Number(x.version), mod: Number(x.mod_revision) })) })
      })
    })
    if (res.kvs.length !== cfg.historyKeys) throw new Error(`catch-up: expected ${cfg.historyKeys} keys of history, found ${res.kvs.length}`)
    const n = cfg.watchers
    const expected = new Float64Array(n)
    const count = new Float64Array(n)
    let expectedEvents = 0
    for (let local = 0; local < n; local++) {
      const e = cfg.watchPrefix ? res.kvs.reduce((a, x) => a + x.version, 0) : (res.kvs[(cfg.firstWatcher + local) % cfg.historyKeys]?.version ?? 0)
      expected[local] = e
      expectedEvents += e
    }
    const cpu = new CpuWindow()
    let events = 0
    let complete = 0
    let doneUs: number | null = null
    let onDone: (() => void) | undefined
    fleet.onEvents = (local, recvUs, sc) => {
      events += sc.events
      const before = count[local] ?? 0
      const after = before + sc.events
      count[local] = after
      const want = expected[local] ?? 0
      if (before < want && after >= want && ++complete === n) {
        doneUs = recvUs
        onDone?.()
      }
    }
    mark(MARK_READY)
    const [, deadlineUs = 0] = await cmds.next(CMD_GO)
    const done = new Promise<void>((resolve) => {
      onDone = resolve
    })
    cpu.begin()
    const startUs = nowUs()
    const startRevision = 2
    const prefixEnd = prefixRangeEnd(prefix)
    // Creates go out without awaiting; the timer starts before the first.
    const created = fleet.createAll((local) => cfg.watchPrefix
      ? { key: prefix, rangeEnd: prefixEnd, startRevision }
      : { key: makeKey(cfg.prefix, (cfg.firstWatcher + local) % cfg.historyKeys, cfg.keySize), rangeEnd: new Uint8Array(0), startRevision })
    created.catch(() => undefined)
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, (deadlineUs - nowUs()) / 1000))
    })
    try {
      await Promise.race([done, timeout, fleet.failed])
    } catch {
      // Counted in fleet.streamErrors and reported below.
    } finally {
      clearTimeout(timer)
    }
    cpu.stop()
    return {
      role: 'catchup', watchers: n, completeWatchers: complete, expectedEvents, events, startUs, doneUs, headerRevision: res.header,
      canceled: fleet.canceled, cancelReason: fleet.cancelReason, cpuUs: cpu.cpuUs, streamErrors: fleet.streamErrors, firstStreamError: fleet.firstStreamError,
    }
  } finally {
    fleet.close()
    kv.close()
  }
}

async function runMem(cfg: WatchClientConfig, cmds: Commands): Promise<MemResult> {
  const fleet = new WatchFleet(cfg)
  try {
    await fleet.open()
    mark(MARK_READY)
    await cmds.next(CMD_GO)
    // Distinct keys, which need not exist.
    await fleet.createAll((local) => ({ key: makeKey(cfg.prefix, cfg.firstWatcher + local, cfg.keySize), rangeEnd: new Uint8Array(0), startRevision: 0 }))
    mark(MARK_CREATED)
    await cmds.next(CMD_FINISH)
    return {
      role: 'mem', watchers: cfg.watchers, created: fleet.created, canceled: fleet.canceled, cancelReason: fleet.cancelReason,
      streamErrors: fleet.streamErrors, firstStreamError: fleet.firstStreamError,
    }
  } finally {
    fleet.close()
  }
}

async function main(): Promise<WatchClientResult> {
  const cfg = parseConfig(process.argv.slice(2))
  const cmds = new Commands()
  switch (cfg.role) {
    case 'writer': return runWriter(cfg, cmds)
    case 'history': return runHistory(cfg)
    case 'fanout': return runFanout(cfg, cmds)
    case 'catchup': return runCatchup(cfg, cmds)
    case 'mem': return runMem(cfg, cmds)
  }
}

main().then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`)
    // Stdin stays open (the runner owns it); nothing else should keep the process alive.
    process.exit(0)
  },
  (err: unknown) => {
    process.stderr.write(`bench watch client: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exit(1)
  },
)
