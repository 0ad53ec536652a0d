// `npm run soak`: a long run of misbehaving watch clients against one etcdlite CLI (not run in CI). Client
// processes connect, create watchers, stop reading (large HTTP/2 windows, as grpc-go grows them), and are
// SIGKILLed after a few seconds; new ones take their place, in a loop, while a writer puts 8 KiB values
// under the watched prefix and one well-behaved watcher reads everything. Every few seconds the server's
// RSS and open file descriptors (/proc) and its /metrics (watch streams, watchers, slow watchers, event-loop
// delay, heap) are sampled. At the end the clients stop, the gauges must fall back to the live watcher's 1,
// and SIGTERM must stop the server; a report (Markdown summary and a CSV of every sample) is written. See
// README.md here.
// Not a *.test.ts: a soak takes minutes, so `npm test` leaves it out and `npm run soak` runs it.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { numberArg } from '../helpers/args.js'
import { startEtcdliteProcess } from '../helpers/processes.js'
import { readRss } from './lib.js'

const USAGE = `usage: npm run soak -- [options]
  --minutes N          how long the clients misbehave (default 10)
  --clients N          stalled client processes alive at once (default 4)
  --streams N          Watch streams per client (default 10)
  --watchers N         watchers per stream (default 10)
  --window BYTES       HTTP/2 flow-control window the clients advertise (default 16777216)
  --stall-seconds N    how long a client stalls before it is killed, at most (default 8; at least 1)
  --rate N             puts per second of 8 KiB values (default 200)
  --sample-seconds N   sampling period (default 5)
  --fsync              durable writes (default: --unsafe-no-fsync, the disk is not under test)
  --server-output FILE append the server's stdout and stderr to FILE
  --out FILE           report (Markdown; a .csv of the samples goes next to it)
                       (default test/stress/results/soak-<time>.md)`

const CLIENT = fileURLToPath(new URL('./stalled-watch-client.js', import.meta.url))
const VALUE_BYTES = 8 * 1024
const KEYS = 16

interface Sample {
  readonly seconds: number
  readonly rssMiB: number
  readonly fds: number
  readonly streams: number
  readonly watchers: number
  readonly slowWatchers: number
  /** Event-loop delay since the previous sample (prom-client resets its histogram at each scrape), ms. */
  readonly loopP99Ms: number
  readonly loopMaxMs: number
  readonly heapUsedMiB: number
  readonly clientsKilled: number
  readonly puts: number
  readonly eventsRead: number
}

interface KvClient extends grpc.Client {
  Put(req: { key: Buffer; value: Buffer }, cb: (err: grpc.ServiceError | null) => void): void
}

type WatchDuplex = grpc.ClientDuplexStream<object, { events?: unknown[] }>
interface WatchClient extends grpc.Client {
  Watch(): WatchDuplex
}

function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)
  return m?.[1] === undefined ? NaN : Number(m[1])
}

const fdCount = (pid: number): number => {
  try {
    return readdirSync(`/proc/${pid}/fd`).length
  } catch {
    return NaN
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

const rssMiB = (pid: number): number => {
  try {
    return readRss(pid).total / (1024 * 1024)
  } catch {
    return NaN
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      clients: { type: 'string', default: '4' },
      streams: { type: 'string', default: '10' },
      watchers: { type: 'string', default: '10' },
      window: { type: 'string', default: String(16 * 1024 * 1024) },
      'stall-seconds': { type: 'string', default: '8' },
      rate: { type: 'string', default: '200' },
      'sample-seconds': { type: 'string', default: '5' },
      fsync: { type: 'boolean', default: false },
      out: { type: 'string' },
      'server-output': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  })
  if (values.help) {
    console.log(USAGE)
    return
  }
  const minutes = numberArg('--minutes', values.minutes, 0.1)
  const clients = numberArg('--clients', values.clients, 1)
  const streams = numberArg('--streams', values.streams, 1)
  const watchers = numberArg('--watchers', values.watchers, 1)
  const window = numberArg('--window', values.window, 65535)
  const stallSeconds = numberArg('--stall-seconds', values['stall-seconds'], 1)
  const rate = numberArg('--rate', values.rate, 1)
  const sampleSeconds = numberArg('--sample-seconds', values['sample-seconds'], 1)
  const started = new Date()
  const out = values.out ?? fileURLToPath(new URL(`../../../test/stress/results/soak-${started.toISOString().replace(/[:.]/g, '-')}.md`, import.meta.url))

  const serverOutput = values['server-output']
  const server = await startEtcdliteProcess({
    args: values.fsync ? [] : ['--unsafe-no-fsync'], ...(serverOutput === undefined ? {} : { output: serverOutput }),
  })
  const pid = server.proc.pid ?? NaN
  const children = new Set<ChildProcess>()
  // Synchronous, for the exit paths: whatever is still running dies, and the server's data dir goes.
  const cleanup = (): void => {
    for (const c of children) c.kill('SIGKILL')
    server.proc.kill('SIGKILL')
    if (server.dataDir !== undefined) rmSync(server.dataDir, { recursive: true, force: true })
  }
  process.once('SIGINT', () => {
    cleanup()
    process.exit(130)
  })
  const proto = loadEtcdProto()
  const kv = new proto.etcdserverpb.KV(server.endpoint, grpc.credentials.createInsecure()) as unknown as KvClient
  const reader = new proto.etcdserverpb.Watch(server.endpoint, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }) as unknown as WatchClient
  const t0 = performance.now()
  const endAt = t0 + minutes * 60_000
  const seconds = (): number => (performance.now() - t0) / 1000
  let running = true
  let puts = 0
  let putErrors = 0
  let eventsRead = 0
  let clientsStarted = 0
  let clientsKilled = 0
  let clientFailures = 0

  // The well-behaved watcher: reads every event under s/.
  const live = reader.Watch()
  live.on('data', (d: { events?: unknown[] }) => {
    eventsRead += d.events?.length ?? 0
  })
  live.on('error', () => undefined)
  live.write({ create_request: { key: Buffer.from('s/'), range_end: Buffer.from('s0') } })

  // The writer: `rate` puts per second, 8 in flight at most.
  const writer = (async () => {
    const value = Buffer.alloc(VALUE_BYTES, 7)
    const put = (n: number): Promise<void> =>
      new Promise<void>((resolve) => kv.Put({ key: Buffer.from(`s/${n % KEYS}`), value }, (err) => {
        if (err === null) puts++
        else putErrors++
        resolve()
      }))
    const inFlight = new Set<Promise<void>>()
    let n = 0
    while (running) {
      const due = Math.floor(seconds() * rate)
      while (n < due && inFlight.size < 8) {
        const p: Promise<void> = put(n++).then((): void => {
          inFlight.delete(p)
        })
        inFlight.add(p)
      }
      await (inFlight.size >= 8 ? Promise.race(inFlight) : sleep(5))
    }
    await Promise.all(inFlight)
  })()

  // One client slot: start a stalled client, let it stall, kill it, again, until the end.
  const slot = async (): Promise<void> => {
    while (running && performance.now() < endAt) {
      const c = spawn(process.execPath, [CLIENT, server.endpoint, String(streams), String(watchers), String(window)], { stdio: ['ignore', 'pipe', 'ignore'] })
      children.add(c)
      clientsStarted++
      const exited = once(c, 'exit')
      try {
        if (c.stdout === null) throw new Error('client stdout is not piped')
        const ready = once(createInterface({ input: c.stdout }), 'line')
        const outcome = await Promise.race([ready.then(() => 'ready'), exited.then(() => 'exited'), sleep(30_000).then(() => 'timeout')])
        if (outcome !== 'ready') clientFailures++
        else await sleep((0.5 + Math.random() * (stallSeconds - 0.5)) * 1000)
      } finally {
        c.kill('SIGKILL')
        await exited
        children.delete(c)
        clientsKilled++
      }
    }
  }

  const samples: Sample[] = []
  const sample = async (): Promise<Sample> => {
    let text = ''
    try {
      text = await (await fetch(`http://${server.endpoint}/metrics`)).text()
    } catch {
      // A scrape that fails leaves NaN in the gauges' columns; the run goes on.
    }
    const s: Sample = {
      seconds: Math.round(seconds()),
      rssMiB: rssMiB(pid),
      fds: fdCount(pid),
      streams: metricValue(text, 'etcd_debugging_mvcc_watch_stream_total'),
      watchers: metricValue(text, 'etcd_debugging_mvcc_watcher_total'),
      slowWatchers: metricValue(text, 'etcd_debugging_mvcc_slow_watcher_total'),
      loopP99Ms: metricValue(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
      loopMaxMs: metricValue(text, 'nodejs_eventloop_lag_max_seconds') * 1000,
      heapUsedMiB: metricValue(text, 'nodejs_heap_size_used_bytes') / (1024 * 1024),
      clientsKilled,
      puts,
      eventsRead,
    }
    samples.push(s)
    console.log(JSON.stringify(s))
    return s
  }

  let exitSeconds: number
  let releasedAfter = NaN
  try {
    await sample()
    const slots = Array.from({ length: clients }, () => slot())
    while (performance.now() < endAt) {
      await sleep(sampleSeconds * 1000)
      await sample()
    }
    await Promise.all(slots)
    // Every client is dead: the server must give back their streams and watchers (only the live one stays).
    const killedAt = performance.now()
    for (;;) {
      const s = await sample()
      if (s.streams <= 1 && s.watchers <= 1) {
        releasedAfter = (performance.now() - killedAt) / 1000
        break
      }
      if (performance.now() - killedAt > 30_000) break
      await sleep(1000)
    }
    running = false
    await writer
    live.cancel()
    reader.close()
    kv.close()
    const before = performance.now()
    const kill = setTimeout(() => server.proc.kill('SIGKILL'), 90_000)
    const end = await server.stop('SIGTERM').finally(() => clearTimeout(kill))
    exitSeconds = end === 'SIGKILL' ? NaN : (performance.now() - before) / 1000
    await server.dispose()
  } finally {
    running = false
    cleanup()
  }

  const report = soakReport({
    started, minutes, clients, streams, watchers, window, stallSeconds, rate, fsync: values.fsync, samples,
    clientsStarted, clientsKilled, clientFailures, puts, putErrors, eventsRead, releasedAfter, exitSeconds,
  })
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, report)
  writeFileSync(out.replace(/\.md$/, '') + '.csv', toCsv(samples))
  console.log(report)
  console.log(`report written to ${out}`)
}

interface SoakRun {
  readonly started: Date
  readonly minutes: number
  readonly clients: number
  readonly streams: number
  readonly watchers: number
  readonly window: number
  readonly stallSeconds: number
  readonly rate: number
  readonly fsync: boolean
  readonly samples: readonly Sample[]
  readonly clientsStarted: number
  readonly clientsKilled: number
  readonly clientFailures: number
  readonly puts: number
  readonly putErrors: number
  readonly eventsRead: number
  readonly releasedAfter: number
  readonly exitSeconds: number
}

const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : 'n/a')

function soakReport(r: SoakRun): string {
  const s = r.samples
  const first = s[0]
  const last = s[s.length - 1]
  const during = s.filter((x) => x.seconds <= r.minutes * 60)
  const max = (f: (x: Sample) => number, xs: readonly Sample[] = s): number => Math.max(...xs.map(f).filter(Number.isFinite))
  const row = (name: string, f: (x: Sample) => number): string =>
    `| ${name} | ${f1(first === undefined ? NaN : f(first))} | ${f1(last === undefined ? NaN : f(last))} | ${f1(max(f))} |`
  return [
    `# Soak: ${r.started.toISOString()}`,
    '',
    `${r.minutes} min; ${r.clients} stalled client processes at a time, each ${r.streams} Watch streams x ${r.watchers} watchers, ` +
      `HTTP/2 window ${r.window} bytes, SIGKILLed after at most ${r.stallSeconds} s; writer ${r.rate} puts/s of 8 KiB ` +
      `(${r.fsync ? 'durable' : '--unsafe-no-fsync'}); one watcher reading everything. Node ${process.version}.`,
    '',
    `Clients started ${r.clientsStarted}, killed ${r.clientsKilled}, failed to get ready ${r.clientFailures}. ` +
      `Puts ${r.puts} (errors ${r.putErrors}); events read by the live watcher ${r.eventsRead}.`,
    '',
    '| | start | end | max |',
    '|---|---|---|---|',
    row('RSS (MiB)', (x) => x.rssMiB),
    row('heap used (MiB)', (x) => x.heapUsedMiB),
    row('open fds', (x) => x.fds),
    row('watch streams', (x) => x.streams),
    row('watchers', (x) => x.watchers),
    row('slow watchers', (x) => x.slowWatchers),
    row('event-loop delay p99 (ms)', (x) => x.loopP99Ms),
    row('event-loop delay max (ms)', (x) => x.loopMaxMs),
    '',
    `Streams and watchers back to the live watcher's 1 ${Number.isFinite(r.releasedAfter) ? `${f1(r.releasedAfter)} s after the last client died` : 'NOT within 30 s of the last client dying'}; ` +
      `SIGTERM stopped the server ${Number.isFinite(r.exitSeconds) ? `in ${f1(r.exitSeconds)} s` : 'NOT'}. ` +
      `Max while clients misbehaved: RSS ${f1(max((x) => x.rssMiB, during))} MiB, fds ${f1(max((x) => x.fds, during))}, ` +
      `streams ${f1(max((x) => x.streams, during))}.`,
    '',
  ].join('\n')
}

function toCsv(samples: readonly Sample[]): string {
  const cols: (keyof Sample)[] = ['seconds', 'rssMiB', 'fds', 'streams', 'watchers', 'slowWatchers', 'loopP99Ms', 'loopMaxMs', 'heapUsedMiB', 'clientsKilled', 'puts', 'eventsRead']
  return [cols.join(','), ...samples.map((x) => cols.map((c) => (Number.isInteger(x[c]) ? String(x[c]) : x[c].toFixed(2))).join(','))].join('\n') + '\n'
}

await main().catch((e: unknown) => {
  console.error(e)
  process.exitCode = 1
})
