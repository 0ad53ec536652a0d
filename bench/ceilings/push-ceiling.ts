// The push ceiling, runner side: start push-ceiling-server.js and the watch benchmark's own fan-out watcher
// processes (bench/watch-client.ts, role `fanout`: the same client code, scanner and connection layout as the
// watch workloads, STREAMS_PER_CONNECTION streams per connection) against it, and count the events they
// receive in the window. Importable (runPushCeiling) and a CLI:
//
//   node build/bench/ceilings/push-ceiling.js [--watchers 100] [--streams 10] [--events 1] [--seconds 5]
//     [--warmup 1] [--key-size 16] [--value-size 64] [--watch-procs 1]
// prints one JSON line (`"type":"push-ceiling"`) and a summary line; progress goes to stderr.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { killLoadProcessesSync, LoadProcess } from '../lib/child.js'
import { processCpuSeconds, processRssMiB } from '../lib/servers.js'
import { nowUs } from '../lib/watch-wire.js'
import { CMD_DRAIN, CMD_GO, MARK_READY, STREAMS_PER_CONNECTION, type FanoutResult, type WatchClientConfig } from '../lib/watch-workloads.js'
import { killCeilingServersSync, startCeilingServer } from './launch.js'
import { numberArg } from '../lib/args.js'

const SERVER_JS = fileURLToPath(new URL('./push-ceiling-server.js', import.meta.url))
const WATCH_CLIENT_JS = fileURLToPath(new URL('../watch-client.js', import.meta.url))

export interface PushCeilingParams {
  readonly seconds: number
  readonly warmupSeconds: number
  /** Watchers in all, spread evenly over `streams` streams (STREAMS_PER_CONNECTION streams per connection). */
  readonly watchers: number
  readonly streams: number
  /** Events per pushed WatchResponse (1: one put's event per response, as a watcher that keeps up gets). */
  readonly eventsPerResponse: number
  readonly keySize: number
  readonly valueSize: number
  /** Watcher processes (streams split evenly), as --watch-procs for the watch workloads. */
  readonly watchProcs: number
  /** Node flags for the ceiling server (e.g. --cpu-prof). */
  readonly serverNodeArgs?: readonly string[]
}

export interface PushCeilingResult {
  readonly watchers: number
  readonly streams: number
  readonly connections: number
  readonly eventsPerResponse: number
  /** Events received by all watcher processes inside the window, per second. */
  readonly eventsPerSec: number
  readonly responsesPerSec: number
  /** Ceiling server CPU over the window, % of one core, and µs per event; null off Linux. */
  readonly serverCpuPct: number | null
  readonly serverUsPerEvent: number | null
  readonly serverRssMiB: number | null
  /** All watcher processes together, % of one core, and their CPU µs per event. */
  readonly clientCpuPct: number
  readonly clientUsPerEvent: number | null
  readonly errors: number
  readonly firstError: string | null
}

/** Temp dirs of runs in progress, so the CLI's exit path can remove them. */
const liveTmpDirs = new Set<string>()

function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0))
}

/** Start the push ceiling server and its watcher processes, measure one window, stop everything. */
export async function runPushCeiling(p: PushCeilingParams): Promise<PushCeilingResult> {
  if (p.watchers < p.streams) throw new Error('push ceiling: every stream needs a watcher (watchers ≥ streams)')
  const tmp = mkdtempSync(join(tmpdir(), 'etcdlite-push-ceiling-'))
  liveTmpDirs.add(tmp)
  const server = await startCeilingServer('push-ceiling', SERVER_JS, [
    '--events', String(p.eventsPerResponse), '--key-size', String(p.keySize), '--value-size', String(p.valueSize),
  ], p.serverNodeArgs)
  const procs: LoadProcess[] = []
  try {
    const nProcs = Math.max(1, Math.min(p.watchProcs, p.streams))
    let first = 0
    for (const [i, streams] of split(p.streams, nProcs).entries()) {
      const watchers = Math.round((p.watchers * streams) / p.streams)
      const cfg: WatchClientConfig = {
        role: 'fanout', endpoint: server.endpoint, keySize: p.keySize, valueSize: p.valueSize, prefix: 'f', keySpace: 1, rate: null,
        writerClients: 0, historyRevs: 0, firstWatcher: first, watchers, streams, watchPrefix: false, historyKeys: 0,
        // Only global watcher 0 records per-event samples (no latency here; this keeps the sample file small).
        sampleEvery: p.watchers + 1, samplesFile: join(tmp, `w${i}.bin`),
      }
      procs.push(new LoadProcess(`push ceiling watchers #${i}`, WATCH_CLIENT_JS, ['--config', JSON.stringify(cfg)]))
      first += watchers
    }
    await Promise.all(procs.map((x) => x.waitFor(MARK_READY)))
    const startUs = nowUs() + p.warmupSeconds * 1e6
    const endUs = startUs + p.seconds * 1e6
    for (const x of procs) x.send(`${CMD_GO} ${startUs} ${endUs}`)
    await sleep(Math.max(0, (startUs - nowUs()) / 1000))
    const cpu0 = processCpuSeconds(server.pid)
    const at0 = nowUs()
    await sleep(Math.max(0, (endUs - nowUs()) / 1000))
    const cpu1 = processCpuSeconds(server.pid)
    const at1 = nowUs()
    const rss = processRssMiB(server.pid)
    // Nothing to drain: the ceiling has no writer, so every watcher is "caught up" with revision 0.
    await sleep(50)
    for (const x of procs) x.send(`${CMD_DRAIN} 0 ${nowUs()}`)
    const results = await Promise.all(procs.map((x) => x.result<FanoutResult>()))
    const events = results.reduce((a, r) => a + r.eventsInWindow, 0)
    const responses = results.reduce((a, r) => a + r.responsesInWindow, 0)
    const clientCpuUs = results.reduce((a, r) => a + r.cpuUs, 0)
    const serverCpuPct = cpu0 === undefined || cpu1 === undefined ? null : Number((((cpu1 - cpu0) / ((at1 - at0) / 1e6)) * 100).toFixed(1))
    const errors = results.reduce((a, r) => a + r.streamErrors + r.canceled, 0)
    return {
      watchers: p.watchers, streams: p.streams, connections: split(p.streams, nProcs).reduce((a, s) => a + Math.ceil(s / STREAMS_PER_CONNECTION), 0),
      eventsPerResponse: p.eventsPerResponse,
      eventsPerSec: Number((events / p.seconds).toFixed(1)),
      responsesPerSec: Number((responses / p.seconds).toFixed(1)),
      serverCpuPct,
      serverUsPerEvent: serverCpuPct === null || events === 0 ? null : Number(((serverCpuPct * 1e4 * p.seconds) / events).toFixed(3)),
      serverRssMiB: rss === undefined ? null : Number(rss.toFixed(1)),
      clientCpuPct: results.reduce((a, r) => a + r.cpuPct, 0),
      clientUsPerEvent: events === 0 ? null : Number((clientCpuUs / events).toFixed(3)),
      errors,
      firstError: results.find((r) => r.firstStreamError !== null)?.firstStreamError ?? results.find((r) => r.cancelReason !== null)?.cancelReason ?? null,
    }
  } finally {
    for (const x of procs) x.kill()
    await server.dispose()
    rmSync(tmp, { recursive: true, force: true })
    liveTmpDirs.delete(tmp)
  }
}

/** For exit paths: SIGKILL the watcher processes and ceiling servers, remove the temp dirs (synchronous). */
export function killPushCeilingSync(): void {
  killLoadProcessesSync()
  killCeilingServersSync()
  for (const d of liveTmpDirs) rmSync(d, { recursive: true, force: true })
}

// ---------------------------------------------------------------------------------------------------
// CLI

function parseCli(argv: readonly string[]): PushCeilingParams {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      watchers: { type: 'string', default: '100' },
      streams: { type: 'string', default: '10' },
      events: { type: 'string', default: '1' },
      seconds: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '1' },
      'key-size': { type: 'string', default: '16' },
      'value-size': { type: 'string', default: '64' },
      'watch-procs': { type: 'string', default: '1' },
    },
    strict: true,
  })
  return {
    watchers: Math.floor(numberArg('watchers', values.watchers, 1)),
    streams: Math.floor(numberArg('streams', values.streams, 1)),
    eventsPerResponse: Math.floor(numberArg('events', values.events, 1)),
    seconds: numberArg('seconds', values.seconds, 0.1),
    warmupSeconds: numberArg('warmup', values.warmup, 0),
    keySize: Math.floor(numberArg('key-size', values['key-size'], 2)),
    valueSize: Math.floor(numberArg('value-size', values['value-size'], 0)),
    watchProcs: Math.floor(numberArg('watch-procs', values['watch-procs'], 1)),
  }
}

async function cli(): Promise<void> {
  const p = parseCli(process.argv.slice(2))
  process.stderr.write(`push-ceiling: ${p.watchers} watchers / ${p.streams} streams, ${p.eventsPerResponse} event(s) per response\n`)
  const r = await runPushCeiling(p)
  process.stdout.write(`${JSON.stringify({ type: 'push-ceiling', ...r })}\n`)
  const f = (x: number | null, d: number): string => (x === null ? '-' : x.toFixed(d))
  process.stdout.write(`\npush ceiling: ${r.watchers} watchers / ${r.streams} streams / ${r.connections} connections, ${r.eventsPerResponse} ev/response: ` +
    `${f(r.eventsPerSec, 0)} ev/s (${f(r.responsesPerSec, 0)} responses/s); server cpu ${f(r.serverCpuPct, 0)}% = ${f(r.serverUsPerEvent, 2)} µs/ev; ` +
    `client cpu ${f(r.clientCpuPct, 0)}% = ${f(r.clientUsPerEvent, 2)} µs/ev; errors ${r.errors}\n`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('exit', killPushCeilingSync)
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      killPushCeilingSync()
      process.exit(130)
    })
  }
  cli().then(
    () => undefined,
    (err: unknown) => {
      process.stderr.write(`push-ceiling: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
      process.exitCode = 1
    },
  )
}
