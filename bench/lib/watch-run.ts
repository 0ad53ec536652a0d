// The runner's side of the watch workloads: start the load processes (bench/watch-client.ts) against one
// server, drive them through the protocol in watch-workloads.ts, sample the server's CPU and RSS from
// /proc, and turn what they report into one set of figures per workload and server.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { LoadProcess } from './child.js'
import { processCpuSeconds, processRssMiB, type BenchServer } from './servers.js'
import { nowUs } from './watch-wire.js'
import {
  CMD_DRAIN, CMD_FINISH, CMD_GO, FULL_SPEED_WRITERS, LATENCY_SAMPLED_WATCHERS, MARK_CREATED, MARK_READY,
  type CatchupResult, type CatchupWorkload, type FanoutResult, type FanoutWorkload, type HistoryResult, type MemResult, type MemWorkload,
  type WatchClientConfig, type WatchWorkload, type WriterResult,
} from './watch-workloads.js'

const WATCH_CLIENT_JS = fileURLToPath(new URL('../watch-client.js', import.meta.url))

/** How long fan-out watchers may take after the writer stops to receive its last revision. */
const DRAIN_SECONDS = 5
/** A catch-up that takes longer than this is reported as not finished. */
const CATCHUP_TIMEOUT_SECONDS = 60
/** RSS sampling for the memory workload: settle before the baseline, then poll until stable. */
const MEM_SETTLE_MS = 1000
const MEM_POLL_MS = 500
const MEM_MAX_SETTLE_MS = 10_000

export interface WatchParams {
  readonly seconds: number
  readonly warmupSeconds: number
  readonly keySize: number
  readonly valueSize: number
  /** Watcher processes per workload (streams and watchers are split evenly between them). */
  readonly watchProcs: number
  /** Fan-out watchers watch the writer's key prefix (writer cycles over keySpace keys) instead of one key. */
  readonly watchPrefix: boolean
  readonly keySpace: number
  /** Where load processes write their sample files. */
  readonly tmpDir: string
}

export interface FanoutFigures {
  readonly kind: 'fanout'
  /** Events received by all watchers inside the window, per second. */
  readonly eventsPerSec: number
  readonly responsesPerSec: number
  readonly putsPerSec: number
  /** Put-to-event latency (receive time − time the writer sent the put), over the sampled watchers' events. */
  readonly p50Ms: number | null
  readonly p99Ms: number | null
  readonly latencySamples: number
  /** % of the sampled watchers' expected events (puts sent in the window) not received by the end of draining. */
  readonly undeliveredPct: number
  readonly laggingWatchers: number
  readonly putP50Ms: number
  readonly putP99Ms: number
  readonly serverCpuPct: number | null
  /** Server CPU µs per delivered event. */
  readonly serverUsPerEvent: number | null
  /** All watcher processes together, % of one core; and their CPU µs per event. */
  readonly clientCpuPct: number
  readonly clientUsPerEvent: number | null
  readonly writerCpuPct: number
  readonly serverRssMiB: number | null
  readonly errors: number
  readonly firstError: string | null
}

export interface CatchupFigures {
  readonly kind: 'catchup'
  /** From the first create request until the last watcher had every event; null when it did not finish. */
  readonly catchupSeconds: number | null
  readonly events: number
  readonly expectedEvents: number
  readonly eventsPerSec: number | null
  readonly completeWatchers: number
  readonly historySeconds: number
  readonly headerRevision: number
  readonly serverCpuSeconds: number | null
  readonly clientCpuSeconds: number
  readonly serverRssMiB: number | null
  readonly errors: number
  readonly firstError: string | null
}

export interface MemFigures {
  readonly kind: 'mem'
  readonly rssBeforeMiB: number | null
  readonly rssAfterMiB: number | null
  readonly bytesPerWatcher: number | null
  readonly createSeconds: number
  readonly created: number
  readonly errors: number
  readonly firstError: string | null
}

export type WatchFigures = FanoutFigures | CatchupFigures | MemFigures

/** Split `total` into `parts` near-equal shares (the first ones get the remainder). */
function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0))
}

function baseConfig(server: BenchServer, p: WatchParams, prefix: string): Omit<WatchClientConfig, 'role'> {
  return {
    endpoint: server.endpoint, keySize: p.keySize, valueSize: p.valueSize, prefix, keySpace: 1, rate: null,
    writerClients: FULL_SPEED_WRITERS, historyRevs: 0, firstWatcher: 0, watchers: 0, streams: 0, watchPrefix: false,
    historyKeys: 0, sampleEvery: 1, samplesFile: '',
  }
}

/** Start the watcher processes for `w` (roles fanout/catchup/mem), splitting streams and watchers evenly. */
function spawnWatchers(label: string, base: Omit<WatchClientConfig, 'role'>, role: 'fanout' | 'catchup' | 'mem', w: WatchWorkload, p: WatchParams,
  extra: Partial<WatchClientConfig> = {}): LoadProcess[] {
  const procs = Math.max(1, Math.min(p.watchProcs, w.streams))
  const streams = split(w.streams, procs)
  const out: LoadProcess[] = []
  let first = 0
  for (let i = 0; i < procs; i++) {
    const s = streams[i] ?? 0
    // Watchers follow streams so every stream carries the same number of watchers.
    const watchers = Math.round((w.watchers * s) / w.streams)
    const cfg: WatchClientConfig = {
      ...base, ...extra, role, firstWatcher: first, watchers, streams: s, samplesFile: join(p.tmpDir, `${label}-w${i}.bin`),
    }
    out.push(new LoadProcess(`${label} watchers #${i}`, WATCH_CLIENT_JS, ['--config', JSON.stringify(cfg)]))
    first += watchers
  }
  return out
}

function killAll(ps: readonly LoadProcess[]): void {
  for (const x of ps) x.kill()
}

function readF64(file: string): Float64Array {
  const b = readFileSync(file)
  rmSync(file, { force: true })
  return new Float64Array(b.buffer, b.byteOffset, b.byteLength / 8)
}

const round3 = (x: number): number => Number(x.toFixed(3))

async function runFanout(server: BenchServer, w: FanoutWorkload, p: WatchParams, label: string): Promise<FanoutFigures> {
  const base = baseConfig(server, p, 'f')
  const sampleEvery = Math.max(1, Math.ceil(w.watchers / LATENCY_SAMPLED_WATCHERS))
  const watchers = spawnWatchers(label, base, 'fanout', w, p, { watchPrefix: p.watchPrefix, sampleEvery })
  const writerFile = join(p.tmpDir, `${label}-writer.bin`)
  const writer = new LoadProcess(`${label} writer`, WATCH_CLIENT_JS, ['--config', JSON.stringify({
    ...base, role: 'writer', rate: w.rate, keySpace: p.watchPrefix ? p.keySpace : 1, samplesFile: writerFile,
  } satisfies WatchClientConfig)])
  const all = [...watchers, writer]
  try {
    await Promise.all(all.map((x) => x.waitFor(MARK_READY)))
    const startUs = nowUs() + p.warmupSeconds * 1e6
    const endUs = startUs + p.seconds * 1e6
    let cpu0: { cpu: number; at: number } | undefined
    let serverCpuPct: number | null = null
    const t1 = setTimeout(() => {
      const c = processCpuSeconds(server.pid)
      if (c !== undefined) cpu0 = { cpu: c, at: nowUs() }
    }, (startUs - nowUs()) / 1000)
    const t2 = setTimeout(() => {
      const c = processCpuSeconds(server.pid)
      if (c !== undefined && cpu0 !== undefined) serverCpuPct = Number((((c - cpu0.cpu) / ((nowUs() - cpu0.at) / 1e6)) * 100).toFixed(1))
    }, (endUs - nowUs()) / 1000)
    for (const x of all) x.send(`${CMD_GO} ${startUs} ${endUs}`)
    let wr: WriterResult
    try {
      wr = await writer.result<WriterResult>()
    } finally {
      clearTimeout(t1)
    }
    if (nowUs() < endUs + 50_000) await sleep((endUs + 50_000 - nowUs()) / 1000)
    clearTimeout(t2)
    for (const x of watchers) x.send(`${CMD_DRAIN} ${wr.lastRev} ${nowUs() + DRAIN_SECONDS * 1e6}`)
    const results = await Promise.all(watchers.map((x) => x.result<FanoutResult>()))

    // Latency: match each sampled (rev, receive time) with the writer's send time of that revision.
    const wrec = readF64(writerFile)
    const first = wr.firstRev
    const sendByRev = new Float64Array(Math.max(0, wr.lastRev - first + 1)).fill(Number.NaN)
    let revsInWindow = 0
    for (let i = 0; i + 2 < wrec.length; i += 3) {
      const rev = wrec[i] ?? 0
      const sent = wrec[i + 1] ?? 0
      sendByRev[rev - first] = sent
      if (sent >= startUs && sent < endUs) revsInWindow++
    }
    const lat: number[] = []
    for (const [i] of watchers.entries()) {
      const s = readF64(join(p.tmpDir, `${label}-w${i}.bin`))
      for (let j = 0; j + 1 < s.length; j += 2) {
        const sent = sendByRev[(s[j] ?? 0) - first]
        if (sent !== undefined && sent >= startUs && sent < endUs) lat.push(((s[j + 1] ?? 0) - sent) / 1000)
      }
    }
    const sampled = results.reduce((a, r) => a + r.sampledWatchers, 0)
    const expected = sampled * revsInWindow
    const sorted = Float64Array.from(lat).sort()
    // Undelivered events count as infinitely late: a quantile that falls among them is null.
    const q = (x: number): number | null => {
      if (expected === 0) return null
      const rank = Math.ceil(x * expected)
      return rank <= sorted.length ? round3(sorted[Math.max(0, rank - 1)] ?? Number.NaN) : null
    }
    const events = results.reduce((a, r) => a + r.eventsInWindow, 0)
    const responses = results.reduce((a, r) => a + r.responsesInWindow, 0)
    const clientCpuUs = results.reduce((a, r) => a + r.cpuUs, 0)
    const errors = wr.errors + results.reduce((a, r) => a + r.streamErrors + r.canceled, 0)
    const rss = processRssMiB(server.pid)
    return {
      kind: 'fanout',
      eventsPerSec: Math.round(events / p.seconds),
      responsesPerSec: Math.round(responses / p.seconds),
      putsPerSec: Math.round(wr.putsInWindow / p.seconds),
      p50Ms: q(0.5),
      p99Ms: q(0.99),
      latencySamples: sorted.length,
      undeliveredPct: expected === 0 ? 0 : round3(((expected - Math.min(expected, sorted.length)) / expected) * 100),
      laggingWatchers: results.reduce((a, r) => a + r.laggingWatchers, 0),
      putP50Ms: wr.putP50Ms,
      putP99Ms: wr.putP99Ms,
      serverCpuPct,
      serverUsPerEvent: serverCpuPct === null || events === 0 ? null : round3((serverCpuPct * 1e4 * p.seconds) / events),
      clientCpuPct: round3(results.reduce((a, r) => a + r.cpuPct, 0)),
      clientUsPerEvent: events === 0 ? null : round3(clientCpuUs / events),
      writerCpuPct: wr.cpuPct,
      serverRssMiB: rss === undefined ? null : Number(rss.toFixed(1)),
      errors,
      firstError: wr.firstError ?? results.find((r) => r.firstStreamError !== null)?.firstStreamError ?? results.find((r) => r.cancelReason !== null)?.cancelReason ?? null,
    }
  } finally {
    killAll(all)
  }
}

async function runCatchup(server: BenchServer, w: CatchupWorkload, p: WatchParams, label: string): Promise<CatchupFigures> {
  const base = { ...baseConfig(server, p, 'c'), historyKeys: w.historyKeys }
  const history = new LoadProcess(`${label} history`, WATCH_CLIENT_JS, ['--config', JSON.stringify({
    ...base, role: 'history', historyRevs: w.historyRevs,
  } satisfies WatchClientConfig)])
  let hr: HistoryResult
  try {
    hr = await history.result<HistoryResult>()
  } finally {
    history.kill()
  }
  const watchers = spawnWatchers(label, base, 'catchup', w, p, { watchPrefix: w.watch === 'prefix' })
  try {
    await Promise.all(watchers.map((x) => x.waitFor(MARK_READY)))
    const cpu0 = processCpuSeconds(server.pid)
    const deadline = nowUs() + CATCHUP_TIMEOUT_SECONDS * 1e6
    for (const x of watchers) x.send(`${CMD_GO} 0 ${deadline}`)
    const results = await Promise.all(watchers.map((x) => x.result<CatchupResult>()))
    const cpu1 = processCpuSeconds(server.pid)
    const complete = results.reduce((a, r) => a + r.completeWatchers, 0)
    const start = Math.min(...results.map((r) => r.startUs))
    const dones = results.map((r) => r.doneUs)
    const done = dones.every((d): d is number => d !== null) ? Math.max(...dones) : null
    const seconds = done === null ? null : round3((done - start) / 1e6)
    const events = results.reduce((a, r) => a + r.events, 0)
    const rss = processRssMiB(server.pid)
    return {
      kind: 'catchup',
      catchupSeconds: seconds,
      events,
      expectedEvents: results.reduce((a, r) => a + r.expectedEvents, 0),
      eventsPerSec: seconds === null || seconds === 0 ? null : Math.round(events / seconds),
      completeWatchers: complete,
      historySeconds: hr.seconds,
      headerRevision: results[0]?.headerRevision ?? 0,
      serverCpuSeconds: cpu0 === undefined || cpu1 === undefined ? null : round3(cpu1 - cpu0),
      clientCpuSeconds: round3(results.reduce((a, r) => a + r.cpuUs, 0) / 1e6),
      serverRssMiB: rss === undefined ? null : Number(rss.toFixed(1)),
      errors: results.reduce((a, r) => a + r.streamErrors + r.canceled, 0),
      firstError: results.find((r) => r.firstStreamError !== null)?.firstStreamError ?? results.find((r) => r.cancelReason !== null)?.cancelReason ?? null,
    }
  } finally {
    killAll(watchers)
  }
}

async function runMem(server: BenchServer, w: MemWorkload, p: WatchParams, label: string): Promise<MemFigures> {
  const watchers = spawnWatchers(label, baseConfig(server, p, 'm'), 'mem', w, p)
  try {
    await Promise.all(watchers.map((x) => x.waitFor(MARK_READY)))
    await sleep(MEM_SETTLE_MS)
    const before = processRssMiB(server.pid)
    const t0 = performance.now()
    for (const x of watchers) x.send(CMD_GO)
    await Promise.all(watchers.map((x) => x.waitFor(MARK_CREATED)))
    const createSeconds = round3((performance.now() - t0) / 1000)
    // Settle: poll until two successive readings differ by under 1 %, or give up after a while.
    let after = processRssMiB(server.pid)
    const settleEnd = performance.now() + MEM_MAX_SETTLE_MS
    for (;;) {
      await sleep(MEM_POLL_MS)
      const next = processRssMiB(server.pid)
      const stable = next !== undefined && after !== undefined && Math.abs(next - after) < after * 0.01
      after = next
      if (stable || performance.now() > settleEnd) break
    }
    for (const x of watchers) x.send(CMD_FINISH)
    const results = await Promise.all(watchers.map((x) => x.result<MemResult>()))
    const created = results.reduce((a, r) => a + r.created, 0)
    return {
      kind: 'mem',
      rssBeforeMiB: before === undefined ? null : Number(before.toFixed(1)),
      rssAfterMiB: after === undefined ? null : Number(after.toFixed(1)),
      bytesPerWatcher: before === undefined || after === undefined ? null : Math.round(((after - before) * 1024 * 1024) / created),
      createSeconds,
      created,
      errors: results.reduce((a, r) => a + r.streamErrors + r.canceled, 0),
      firstError: results.find((r) => r.firstStreamError !== null)?.firstStreamError ?? results.find((r) => r.cancelReason !== null)?.cancelReason ?? null,
    }
  } finally {
    killAll(watchers)
  }
}

/** Run one watch workload against one (fresh) server. `label` names temp files and processes. */
export function runWatchWorkload(server: BenchServer, w: WatchWorkload, p: WatchParams, label: string): Promise<WatchFigures> {
  switch (w.kind) {
    case 'fanout': return runFanout(server, w, p, label)
    case 'catchup': return runCatchup(server, w, p, label)
    case 'mem': return runMem(server, w, p, label)
  }
}
