// `npm run bench`: etcd vs etcdlite over gRPC on this machine, in one run. Both servers write durably to
// fresh temp data dirs; every workload runs in separate client processes (bench/client.ts for KV,
// bench/watch-client.ts for Watch, bench/lease-client.ts for Lease), the same code for both servers; the
// server order alternates to spread drift. KV workloads share one server pair; every watch and lease
// measurement gets a fresh server. Prints JSON lines, then tables.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { killLoadProcessesSync, LoadProcess } from './lib/child.js'
import { median } from './lib/stats.js'
import { fmt, present, printRows, ratio } from './lib/table.js'
import { processRssMiB, ServerCpuWindow, startEtcd, startEtcdlite, type BenchServer, type EtcdliteLaunch, type ServerName } from './lib/servers.js'
import { MEASURE_END, MEASURE_START, WORKLOADS, type ClientResult, type LoadParams, type Workload } from './lib/workloads.js'
import { runWatchWorkload, type CatchupFigures, type FanoutFigures, type MemFigures, type WatchFigures } from './lib/watch-run.js'
import { WATCH_FLOW_CONTROL_WINDOW, WATCH_WORKLOADS, type WatchWorkload } from './lib/watch-workloads.js'
import { waitForQuiet } from './lib/quiet.js'
import { leaseRatios, printLeaseTables, runLeaseWorkload, summarizeLease, type LeaseMeasurement } from './lib/lease-run.js'
import { LEASE_WORKLOADS, type LeaseWorkload } from './lib/lease-workloads.js'
import { AUTH_DECOYS, enableBenchAuth } from './lib/auth-setup.js'
import { runRpcCeiling, startCommitCeilingServer, startRpcCeilingServer } from './ceilings/rpc-ceiling.js'
import { runStorageCeiling } from './ceilings/storage-ceiling.js'
import { killPushCeilingSync, runPushCeiling } from './ceilings/push-ceiling.js'
import { killCeilingServersSync, type CeilingServer } from './ceilings/launch.js'
import {
  COMMIT_CEILING_OPS, printCeilingTables, pushCeilingLines, rpcCeilingLines, RPC_CEILING_OPS, type PushCeilingMeasurement, type RpcCeilingMeasurement,
  type StorageCeilingMeasurement,
} from './lib/ceiling-run.js'
import {
  killStartupServersSync, printStartupTable, runStartupWorkload, startupRatios, summarizeStartup,
  STARTUP_VALUE_SIZE, STARTUP_WORKLOAD, type StartupMeasurement,
} from './lib/startup-run.js'
import { LOAD_PARAM_OPTIONS, loadParamArgs, loadParamsOf, numberArg } from './lib/args.js'
import { writeReport } from './lib/report.js'
import { reportDirFor } from './lib/report-sections.js'
import { collectMachineInfo, commandLine, etcdVersionLine, type ReportMeta } from './lib/report-meta.js'
import { readCpuTimes, stealPct } from './lib/cpu-steal.js'
import { DEFAULT_SERVER_WARMUP_SECONDS, freshServerWarmupSeconds, kvWarmupPassSeconds } from './lib/warmup.js'

const CLIENT_JS = fileURLToPath(new URL('./client.js', import.meta.url))

const SERVER_ORDER: readonly ServerName[] = ['etcd', 'etcdlite']

const ALL_NAMES = [
  ...WORKLOADS.map((w) => w.name), ...WATCH_WORKLOADS.map((w) => w.name), ...LEASE_WORKLOADS.map((w) => w.name), STARTUP_WORKLOAD.name,
]

/** Named groups for --workloads. */
const GROUPS: Readonly<Record<string, readonly string[]>> = {
  all: ALL_NAMES,
  kv: WORKLOADS.map((w) => w.name),
  watch: WATCH_WORKLOADS.map((w) => w.name),
  lease: LEASE_WORKLOADS.map((w) => w.name),
  startup: [STARTUP_WORKLOAD.name],
}

const USAGE = `usage: npm run bench -- [options]
  --seconds N          measured seconds per workload (default: $BENCH_SECONDS or 5)
  --warmup N           warm-up seconds before each measurement (default 1)
  --server-warmup N    unmeasured load each server gets before it is first measured, so V8 has compiled
                       etcdlite's hot paths (default 5): KV servers (and the ceilings) run every KV workload
                       in turn for max(1, N ÷ workloads) s; fan-out and churn workloads, each on a fresh
                       server, warm up max(--warmup, N) s. 0 turns it off
  --rounds N           repeat everything N times, alternating server order; report medians (default 1)
  --workloads a,b      only these workloads (default: all); the groups kv, watch, lease, startup and all also work:
                       ${ALL_NAMES.join(', ')}
  --key-size N         key size in bytes (default 16)
  --value-size N       value size in bytes (default 64)
  --key-space N        distinct keys the put workloads cycle through (default 100000)
  --serializable       send Range with serializable=true (default: linearizable, as clients do)
  --client NAME        the KV load generator's client: grpc-js (default; what etcdlite's users run) or h2 (bare node:http2,
                       hand-encoded messages: about half the load generator's CPU per request; see bench/README.md)
  --skip-ceilings      do not measure the ceilings (by default: a bare grpc-js KV server with canned answers
                       per KV workload, the same server committing each Put to LevelDB per put workload, raw
                       classic-level batches once per round, a bare Watch stream per fan-out)
  --unsafe-no-fsync    both servers run with --unsafe-no-fsync (report it apart from the durable default)
  --auth               KV workloads with auth enabled on both servers, as a non-root user whose role holds
                       the workload keys plus ${AUTH_DECOYS} other permissions (every request permission-checked)
  --servers a,b        only these servers (default etcd,etcdlite); with one, ratios are left empty
  --watch-procs N      watcher processes per watch workload (default 1); streams and watchers are split evenly
  --watch-prefix       fan-out watchers watch a prefix and the writer cycles over --key-space keys under it
                       (default: everyone on the one key the writer puts)
  --expiry-leases N    leases in lease-expiry (default 10000)
  --expiry-ttl N       their TTL in seconds (default 5; etcd raises a TTL below 2 to 2)
  --startup-keys N     keys loaded in startup-1m before the restart (default 1000000)
  --etcdlite-node-args="..." node flags for the etcdlite process, e.g. --etcdlite-node-args="--cpu-prof --cpu-prof-dir=prof"
  --etcdlite-args="..."      extra etcdlite flags;  --etcd-args="..."  extra etcd flags (use the = form)
  --etcdlite-bin PATH  run this etcdlite CLI script instead of build/src/bin/etcdlite.js (e.g. another build)
  --etcdlite-output FILE  append every etcdlite's stdout and stderr to FILE (e.g. with
                       --etcdlite-node-args=--trace-gc-nvp); by default it is dropped
  --report-dir DIR     write DIR/RESULTS.md and DIR/results/*.svg from this run's JSON lines. A full run (no
                       --workloads, both servers) writes bench/RESULTS.md by default (with --unsafe-no-fsync:
                       bench/unsafe-no-fsync/RESULTS.md); a partial run only with this flag
  --no-report          do not write the report
  --help`

interface RunArgs extends LoadParams {
  readonly rounds: number
  readonly workloads: readonly Workload[]
  readonly watchWorkloads: readonly WatchWorkload[]
  readonly leaseWorkloads: readonly LeaseWorkload[]
  /** Run startup-1m (load, SIGTERM, restart on the same data dir), with this many keys. */
  readonly startup: boolean
  readonly startupKeys: number
  readonly expiryLeases: number | undefined
  readonly expiryTtlSeconds: number | undefined
  readonly servers: readonly ServerName[]
  readonly watchProcs: number
  readonly watchPrefix: boolean
  readonly etcdliteNodeArgs: readonly string[]
  readonly etcdliteArgs: readonly string[]
  readonly etcdArgs: readonly string[]
  readonly etcdliteBin: string | undefined
  readonly etcdliteOutput: string | undefined
  readonly auth: boolean
  readonly unsafeNoFsync: boolean
  /** Unmeasured load before a server's first measurement (see --server-warmup), seconds; 0: none. */
  readonly serverWarmupSeconds: number
  /** Measure the RPC, storage and push ceilings alongside the workloads (default); --skip-ceilings turns them off. */
  readonly ceilings: boolean
  /**
   * Write <reportDir>/RESULTS.md and <reportDir>/results/*.svg at the end: by default after a full run, or
   * whenever --report-dir is given; --no-report turns it off.
   */
  readonly report: boolean
  readonly reportDir: string
}

function splitArgs(s: string | undefined): string[] {
  return s === undefined ? [] : s.split(/\s+/).filter((x) => x !== '')
}

function parseRunArgs(argv: readonly string[]): RunArgs | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      ...LOAD_PARAM_OPTIONS,
      // No default: $BENCH_SECONDS stands in for a missing --seconds.
      seconds: { type: 'string' },
      rounds: { type: 'string', default: '1' },
      'server-warmup': { type: 'string', default: String(DEFAULT_SERVER_WARMUP_SECONDS) },
      workloads: { type: 'string' },
      auth: { type: 'boolean', default: false },
      'unsafe-no-fsync': { type: 'boolean', default: false },
      'skip-ceilings': { type: 'boolean', default: false },
      servers: { type: 'string', default: SERVER_ORDER.join(',') },
      'watch-procs': { type: 'string', default: '1' },
      'watch-prefix': { type: 'boolean', default: false },
      'expiry-leases': { type: 'string' },
      'expiry-ttl': { type: 'string' },
      'startup-keys': { type: 'string' },
      'etcdlite-node-args': { type: 'string' },
      'etcdlite-args': { type: 'string' },
      'etcd-args': { type: 'string' },
      'etcdlite-bin': { type: 'string' },
      'etcdlite-output': { type: 'string' },
      'no-report': { type: 'boolean', default: false },
      'report-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  })
  if (values.help) return undefined
  let workloads = WORKLOADS
  let watchWorkloads = WATCH_WORKLOADS
  let leaseWorkloads = LEASE_WORKLOADS
  let startup = true
  if (values.workloads !== undefined) {
    const names = new Set<string>()
    for (const n of values.workloads.split(',').map((x) => x.trim()).filter((x) => x !== '')) {
      for (const g of GROUPS[n] ?? [n]) names.add(g)
    }
    const unknown = [...names].filter((n) => !ALL_NAMES.includes(n))
    if (unknown.length > 0) throw new Error(`unknown workload(s) ${unknown.join(', ')}; known: ${Object.keys(GROUPS).join(', ')}, ${ALL_NAMES.join(', ')}`)
    workloads = WORKLOADS.filter((w) => names.has(w.name))
    watchWorkloads = WATCH_WORKLOADS.filter((w) => names.has(w.name))
    leaseWorkloads = LEASE_WORKLOADS.filter((w) => names.has(w.name))
    startup = names.has(STARTUP_WORKLOAD.name)
  }
  const servers = values.servers.split(',').map((x) => x.trim()).filter((x) => x !== '')
  const badServer = servers.find((x) => !SERVER_ORDER.some((n) => n === x))
  if (badServer !== undefined || servers.length === 0) throw new Error(`--servers takes etcd and/or etcdlite, got ${values.servers}`)
  return {
    servers: SERVER_ORDER.filter((n) => servers.includes(n)),
    ...loadParamsOf({ ...values, seconds: values.seconds ?? process.env['BENCH_SECONDS'] }),
    rounds: Math.floor(numberArg('rounds', values.rounds, 1)),
    workloads,
    watchWorkloads,
    leaseWorkloads,
    startup,
    startupKeys: values['startup-keys'] === undefined ? STARTUP_WORKLOAD.keys : Math.floor(numberArg('startup-keys', values['startup-keys'], 1)),
    expiryLeases: values['expiry-leases'] === undefined ? undefined : Math.floor(numberArg('expiry-leases', values['expiry-leases'], 1)),
    expiryTtlSeconds: values['expiry-ttl'] === undefined ? undefined : Math.floor(numberArg('expiry-ttl', values['expiry-ttl'], 1)),
    watchProcs: Math.floor(numberArg('watch-procs', values['watch-procs'], 1)),
    watchPrefix: values['watch-prefix'],
    etcdliteNodeArgs: splitArgs(values['etcdlite-node-args']),
    etcdliteArgs: splitArgs(values['etcdlite-args']),
    etcdArgs: splitArgs(values['etcd-args']),
    etcdliteBin: values['etcdlite-bin'],
    etcdliteOutput: values['etcdlite-output'],
    auth: values.auth,
    unsafeNoFsync: values['unsafe-no-fsync'],
    serverWarmupSeconds: numberArg('server-warmup', values['server-warmup'], 0),
    ceilings: !values['skip-ceilings'],
    // A trial run of a few workloads must not overwrite the committed report of the last full run.
    report: !values['no-report'] && (values['report-dir'] !== undefined || (values.workloads === undefined && servers.length === SERVER_ORDER.length)),
    reportDir: values['report-dir'] ?? reportDirFor(values['unsafe-no-fsync']),
  }
}

/** One measurement: a client result plus what the runner saw of the server during the window. */
interface Measurement extends ClientResult {
  readonly round: number
  readonly workload: string
  readonly server: ServerName
  /** Server CPU over the measured window, in % of one core; null when /proc is unavailable. */
  readonly serverCpuPct: number | null
  /** Server CPU time per completed request, in µs (efficiency even when the client is the bottleneck). */
  readonly serverCpuUsPerOp: number | null
  readonly serverRssMiB: number | null
}

/** One watch measurement: the figures of one workload on one fresh server. */
type WatchMeasurement = WatchFigures & { readonly round: number; readonly workload: string; readonly server: ServerName }

/** Live servers, so every exit path can kill them; and the load processes' temp dir. */
const liveServers = new Set<BenchServer>()
let sampleDir: string | undefined

function killEverythingSync(): void {
  killPushCeilingSync()
  killCeilingServersSync()
  killLoadProcessesSync()
  killStartupServersSync()
  for (const s of liveServers) s.killSync()
  if (sampleDir !== undefined) rmSync(sampleDir, { recursive: true, force: true })
}

/** --unsafe-no-fsync: both servers skip fsync (etcd's flag of the same name), for the non-durable report. */
function noFsyncArgs(args: RunArgs): string[] {
  return args.unsafeNoFsync ? ['--unsafe-no-fsync'] : []
}

/** How every etcdlite of the run is started: --etcdlite-node-args, -args, -bin and -output, and --unsafe-no-fsync. */
function etcdliteLaunch(args: RunArgs): EtcdliteLaunch {
  return {
    nodeArgs: args.etcdliteNodeArgs,
    args: [...noFsyncArgs(args), ...args.etcdliteArgs],
    ...(args.etcdliteBin === undefined ? {} : { bin: args.etcdliteBin }),
    ...(args.etcdliteOutput === undefined ? {} : { output: args.etcdliteOutput }),
  }
}

async function startServer(name: ServerName, args: RunArgs): Promise<BenchServer> {
  const s = name === 'etcd' ? await startEtcd([...noFsyncArgs(args), ...args.etcdArgs]) : await startEtcdlite(etcdliteLaunch(args))
  liveServers.add(s)
  return s
}

async function stopServer(s: BenchServer): Promise<void> {
  await s.dispose()
  liveServers.delete(s)
}

/** Run bench/client.js for one workload against one server and wait for its JSON result. */
async function runClient(server: BenchServer, w: Workload, p: LoadParams, token?: string): Promise<{ result: ClientResult; serverCpuPct: number | null }> {
  const args = [
    '--endpoint', server.endpoint, '--op', w.op, '--clients', String(w.clients), '--channels', String(w.channels),
    ...loadParamArgs(p, w.serializable ?? p.serializable), ...(token === undefined ? [] : ['--token', token]),
  ]
  const cpuWindow = new ServerCpuWindow(server.pid, MEASURE_START, MEASURE_END)
  const child = new LoadProcess(`client for ${w.name} on ${server.name}`, CLIENT_JS, args, (line) => cpuWindow.onLine(line))
  try {
    const result = await child.result<ClientResult>()
    return { result, serverCpuPct: cpuWindow.pct }
  } finally {
    child.kill()
  }
}

/** Which server goes first alternates per workload and per round, so slow drift hits both equally. */
function serverOrder(args: RunArgs, round: number, index: number): readonly ServerName[] {
  return (round + index) % 2 === 0 ? args.servers : [...args.servers].reverse()
}

interface Summary {
  readonly opsPerSec: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly serverCpuPct: number | null
  readonly serverCpuUsPerOp: number | null
  readonly serverRssMiB: number | null
  readonly clientCpuPct: number
  readonly clientMainCpuPct: number | null
  readonly errors: number
}

function summarize(ms: readonly Measurement[]): Summary {
  return {
    opsPerSec: median(ms.map((m) => m.opsPerSec)),
    p50Ms: median(ms.map((m) => m.p50Ms)),
    p99Ms: median(ms.map((m) => m.p99Ms)),
    serverCpuPct: present(ms.map((m) => m.serverCpuPct)),
    serverCpuUsPerOp: present(ms.map((m) => m.serverCpuUsPerOp)),
    serverRssMiB: present(ms.map((m) => m.serverRssMiB)),
    clientCpuPct: median(ms.map((m) => m.clientCpuPct)),
    clientMainCpuPct: present(ms.map((m) => m.clientMainCpuPct)),
    errors: ms.reduce((a, m) => a + m.errors, 0),
  }
}

/** Server CPU-seconds per 1,000 requests (the unit the runner's table prints; the JSON lines keep µs per request). */
function cpuSecondsPer1k(s: Summary): number | null {
  return s.serverCpuUsPerOp === null ? null : s.serverCpuUsPerOp / 1000
}

function printTable(args: RunArgs, rows: readonly { w: Workload; etcd: Summary; lite: Summary }[]): void {
  const header = ['workload', 'etcd ops/s', 'lite ops/s', 'ops ratio', 'etcd p50', 'lite p50', 'etcd p99', 'lite p99', 'p99 ratio', 'etcd cpu%', 'lite cpu%', 'etcd cpu-s/1k', 'lite cpu-s/1k', 'etcd RSS', 'lite RSS', 'client cpu% e/l', 'client main% e/l']
  const body = rows.map(({ w, etcd, lite }) => [
    w.name,
    fmt(etcd.opsPerSec, 0), fmt(lite.opsPerSec, 0), fmt(lite.opsPerSec / etcd.opsPerSec, 2),
    fmt(etcd.p50Ms, 2), fmt(lite.p50Ms, 2), fmt(etcd.p99Ms, 2), fmt(lite.p99Ms, 2), fmt(etcd.p99Ms / lite.p99Ms, 2),
    fmt(etcd.serverCpuPct, 0), fmt(lite.serverCpuPct, 0), fmt(cpuSecondsPer1k(etcd), 3), fmt(cpuSecondsPer1k(lite), 3),
    fmt(etcd.serverRssMiB, 0), fmt(lite.serverRssMiB, 0), `${fmt(etcd.clientCpuPct, 0)}/${fmt(lite.clientCpuPct, 0)}`,
    `${fmt(etcd.clientMainCpuPct, 0)}/${fmt(lite.clientMainCpuPct, 0)}`,
  ])
  const out = process.stdout
  out.write('\n')
  out.write(`etcd vs etcdlite — ${args.rounds} round(s) × ${args.seconds} s (+${args.warmupSeconds} s warm-up; servers warmed up first: --server-warmup ${args.serverWarmupSeconds}), key ${args.keySize} B, value ${args.valueSize} B, ` +
    `range ${args.serializable ? 'serializable' : 'linearizable'}${args.unsafeNoFsync ? '; both with --unsafe-no-fsync' : '; durable (fsync)'}${args.auth ? `; auth on, as a user with ${AUTH_DECOYS + 2} permissions` : ''}; medians over rounds; latencies in ms\n`)
  out.write('ops ratio = etcdlite/etcd ops/s; p99 ratio = etcd/etcdlite p99 (both: > 1 means etcdlite is better)\n')
  out.write('NxKconn = N concurrent requests over K gRPC connections; cpu% = server CPU in % of one core during the window;\n' +
    'cpu-s/1k = server CPU seconds per 1,000 requests (µs/op ÷ 1000); RSS = server resident memory in MiB at the end of the window;\n' +
    'client cpu% = the load generator process (all threads), client main% = its main thread, which runs every client: near 100 the load generator was the limit\n\n')
  printRows(header, body)
  const errs = rows.filter((r) => r.etcd.errors + r.lite.errors > 0)
  if (errs.length > 0) out.write(`\nWARNING: request errors in ${errs.map((r) => r.w.name).join(', ')} (see JSON lines)\n`)
}

// ---------------------------------------------------------------------------------------------------
// Watch summaries and tables

interface FanoutSummary {
  readonly eventsPerSec: number
  readonly putsPerSec: number
  readonly p50Ms: number | null
  readonly p99Ms: number | null
  readonly undeliveredPct: number
  readonly putP99Ms: number
  readonly serverCpuPct: number | null
  readonly serverUsPerEvent: number | null
  readonly clientCpuPct: number
  readonly clientUsPerEvent: number | null
  /** The writer process's CPU in % of one core. */
  readonly writerCpuPct: number
  readonly errors: number
}

function summarizeFanout(ms: readonly FanoutFigures[]): FanoutSummary {
  // A null latency (the quantile fell among undelivered events) sorts as +∞: it wins the median when
  // at least half the rounds had it.
  const latency = (xs: readonly (number | null)[]): number | null => {
    const nulls = xs.filter((x) => x === null).length
    return nulls * 2 >= xs.length && xs.length > 0 ? null : median(xs.map((x) => x ?? Number.POSITIVE_INFINITY))
  }
  return {
    eventsPerSec: median(ms.map((m) => m.eventsPerSec)),
    putsPerSec: median(ms.map((m) => m.putsPerSec)),
    p50Ms: latency(ms.map((m) => m.p50Ms)),
    p99Ms: latency(ms.map((m) => m.p99Ms)),
    undeliveredPct: median(ms.map((m) => m.undeliveredPct)),
    putP99Ms: median(ms.map((m) => m.putP99Ms)),
    serverCpuPct: present(ms.map((m) => m.serverCpuPct)),
    serverUsPerEvent: present(ms.map((m) => m.serverUsPerEvent)),
    clientCpuPct: median(ms.map((m) => m.clientCpuPct)),
    clientUsPerEvent: present(ms.map((m) => m.clientUsPerEvent)),
    writerCpuPct: median(ms.map((m) => m.writerCpuPct)),
    errors: ms.reduce((a, m) => a + m.errors, 0),
  }
}

interface CatchupSummary {
  readonly catchupSeconds: number | null
  readonly eventsPerSec: number | null
  readonly events: number
  readonly expectedEvents: number
  readonly serverCpuSeconds: number | null
  readonly clientCpuSeconds: number
  readonly errors: number
}

function summarizeCatchup(ms: readonly CatchupFigures[]): CatchupSummary {
  const unfinished = ms.filter((m) => m.catchupSeconds === null).length
  return {
    catchupSeconds: unfinished * 2 >= ms.length ? null : median(ms.map((m) => m.catchupSeconds ?? Number.POSITIVE_INFINITY)),
    eventsPerSec: present(ms.map((m) => m.eventsPerSec)),
    events: median(ms.map((m) => m.events)),
    expectedEvents: median(ms.map((m) => m.expectedEvents)),
    serverCpuSeconds: present(ms.map((m) => m.serverCpuSeconds)),
    clientCpuSeconds: median(ms.map((m) => m.clientCpuSeconds)),
    errors: ms.reduce((a, m) => a + m.errors, 0),
  }
}

interface MemSummary {
  readonly bytesPerWatcher: number | null
  readonly rssBeforeMiB: number | null
  readonly rssAfterMiB: number | null
  readonly createSeconds: number
  readonly errors: number
}

function summarizeMem(ms: readonly MemFigures[]): MemSummary {
  return {
    bytesPerWatcher: present(ms.map((m) => m.bytesPerWatcher)),
    rssBeforeMiB: present(ms.map((m) => m.rssBeforeMiB)),
    rssAfterMiB: present(ms.map((m) => m.rssAfterMiB)),
    createSeconds: median(ms.map((m) => m.createSeconds)),
    errors: ms.reduce((a, m) => a + m.errors, 0),
  }
}

type WatchSummary =
  | { readonly kind: 'fanout'; readonly w: WatchWorkload; readonly etcd: FanoutSummary; readonly lite: FanoutSummary }
  | { readonly kind: 'catchup'; readonly w: WatchWorkload; readonly etcd: CatchupSummary; readonly lite: CatchupSummary }
  | { readonly kind: 'mem'; readonly w: WatchWorkload; readonly etcd: MemSummary; readonly lite: MemSummary }

function summarizeWatch(w: WatchWorkload, results: readonly WatchMeasurement[]): WatchSummary {
  const of = (n: ServerName): WatchMeasurement[] => results.filter((r) => r.workload === w.name && r.server === n)
  const pick = <K extends WatchFigures['kind']>(n: ServerName, kind: K): Extract<WatchFigures, { kind: K }>[] =>
    of(n).filter((m): m is WatchMeasurement & Extract<WatchFigures, { kind: K }> => m.kind === kind)
  switch (w.kind) {
    case 'fanout': return { kind: 'fanout', w, etcd: summarizeFanout(pick('etcd', 'fanout')), lite: summarizeFanout(pick('etcdlite', 'fanout')) }
    case 'catchup': return { kind: 'catchup', w, etcd: summarizeCatchup(pick('etcd', 'catchup')), lite: summarizeCatchup(pick('etcdlite', 'catchup')) }
    case 'mem': return { kind: 'mem', w, etcd: summarizeMem(pick('etcd', 'mem')), lite: summarizeMem(pick('etcdlite', 'mem')) }
  }
}

/** The summary JSON line's ratios: > 1 means etcdlite is better. */
function watchRatios(s: WatchSummary): Record<string, number | null> {
  switch (s.kind) {
    case 'fanout': return { eventsRatio: ratio(s.lite.eventsPerSec, s.etcd.eventsPerSec), p99Ratio: ratio(s.etcd.p99Ms, s.lite.p99Ms) }
    case 'catchup': return { timeRatio: ratio(s.etcd.catchupSeconds, s.lite.catchupSeconds) }
    case 'mem': return { memRatio: ratio(s.etcd.bytesPerWatcher, s.lite.bytesPerWatcher) }
  }
}

function describeWatch(w: WatchWorkload): string {
  switch (w.kind) {
    case 'fanout': return `${w.watchers} watchers / ${w.streams} streams, writer ${w.rate === null ? 'full speed' : `${w.rate} puts/s`}`
    case 'catchup': return `${w.historyRevs} revs over ${w.historyKeys} keys, ${w.watchers} watchers / ${w.streams} streams on ${w.watch === 'prefix' ? 'the prefix' : 'one key each'}`
    case 'mem': return `${w.watchers} watchers / ${w.streams} streams, distinct keys`
  }
}

function latencyCell(x: number | null): string {
  return x === null ? 'lost' : x.toFixed(2)
}

function printWatchTables(args: RunArgs, sums: readonly WatchSummary[]): void {
  const out = process.stdout
  const fan = sums.filter((s): s is Extract<WatchSummary, { kind: 'fanout' }> => s.kind === 'fanout')
  const cat = sums.filter((s): s is Extract<WatchSummary, { kind: 'catchup' }> => s.kind === 'catchup')
  const mem = sums.filter((s): s is Extract<WatchSummary, { kind: 'mem' }> => s.kind === 'mem')
  out.write(`\nwatch: etcd vs etcdlite — ${args.rounds} round(s), fresh server per measurement, ${args.watchProcs} watcher process(es), ` +
    `key ${args.keySize} B, value ${args.valueSize} B; medians over rounds\n`)
  for (const s of sums) out.write(`  ${s.w.name}: ${describeWatch(s.w)}\n`)
  if (fan.length > 0) {
    out.write(`\nfan-out (${args.seconds} s window after ${freshServerWarmupSeconds(args.warmupSeconds, args.serverWarmupSeconds)} s warm-up; watchers on ${args.watchPrefix ? 'the writer\'s prefix' : 'the writer\'s key'}). ` +
      'ev/s = events received by all watchers per second; ratio = etcdlite/etcd.\n' +
      'p50/p99 = put-to-event latency in ms (receive − put sent), sampled watchers; "lost" = that quantile was not\n' +
      'delivered within the drain time; p99 ratio = etcd/etcdlite. lost% = sampled events never received.\n' +
      'cli µs/ev = watcher-process CPU per event: 1e6 / it ≈ the events/s one client core can take.\n\n')
    printRows(
      ['workload', 'etcd ev/s', 'lite ev/s', 'ratio', 'etcd puts/s', 'lite puts/s', 'etcd p50', 'lite p50', 'etcd p99', 'lite p99', 'p99 ratio', 'lost% e/l',
        'srv cpu% e/l', 'srv µs/ev e/l', 'cli cpu% e/l', 'cli µs/ev e/l'],
      fan.map(({ w, etcd, lite }) => [
        w.name, fmt(etcd.eventsPerSec, 0), fmt(lite.eventsPerSec, 0), fmt(ratio(lite.eventsPerSec, etcd.eventsPerSec), 2),
        fmt(etcd.putsPerSec, 0), fmt(lite.putsPerSec, 0),
        latencyCell(etcd.p50Ms), latencyCell(lite.p50Ms), latencyCell(etcd.p99Ms), latencyCell(lite.p99Ms), fmt(ratio(etcd.p99Ms, lite.p99Ms), 2),
        `${fmt(etcd.undeliveredPct, 1)}/${fmt(lite.undeliveredPct, 1)}`,
        `${fmt(etcd.serverCpuPct, 0)}/${fmt(lite.serverCpuPct, 0)}`, `${fmt(etcd.serverUsPerEvent, 2)}/${fmt(lite.serverUsPerEvent, 2)}`,
        `${fmt(etcd.clientCpuPct, 0)}/${fmt(lite.clientCpuPct, 0)}`, `${fmt(etcd.clientUsPerEvent, 2)}/${fmt(lite.clientUsPerEvent, 2)}`,
      ]),
    )
  }
  if (cat.length > 0) {
    out.write('\ncatch-up: seconds from the first create until every watcher had every event; ratio = etcd/etcdlite (> 1: etcdlite faster).\n\n')
    printRows(
      ['workload', 'events', 'etcd s', 'lite s', 'ratio', 'etcd ev/s', 'lite ev/s', 'srv cpu s e/l', 'cli cpu s e/l'],
      cat.map(({ w, etcd, lite }) => [
        w.name, fmt(etcd.expectedEvents, 0), fmt(etcd.catchupSeconds, 2), fmt(lite.catchupSeconds, 2), fmt(ratio(etcd.catchupSeconds, lite.catchupSeconds), 2),
        fmt(etcd.eventsPerSec, 0), fmt(lite.eventsPerSec, 0),
        `${fmt(etcd.serverCpuSeconds, 2)}/${fmt(lite.serverCpuSeconds, 2)}`, `${fmt(etcd.clientCpuSeconds, 2)}/${fmt(lite.clientCpuSeconds, 2)}`,
      ]),
    )
  }
  if (mem.length > 0) {
    out.write('\nmemory: server RSS growth per watcher (VmRSS after all were created and RSS settled, minus before); ratio = etcd/etcdlite.\n\n')
    printRows(
      ['workload', 'etcd B/watcher', 'lite B/watcher', 'ratio', 'etcd RSS MiB before→after', 'lite RSS MiB before→after', 'create s e/l'],
      mem.map(({ w, etcd, lite }) => [
        w.name, fmt(etcd.bytesPerWatcher, 0), fmt(lite.bytesPerWatcher, 0), fmt(ratio(etcd.bytesPerWatcher, lite.bytesPerWatcher), 2),
        `${fmt(etcd.rssBeforeMiB, 1)}→${fmt(etcd.rssAfterMiB, 1)}`, `${fmt(lite.rssBeforeMiB, 1)}→${fmt(lite.rssAfterMiB, 1)}`,
        `${fmt(etcd.createSeconds, 2)}/${fmt(lite.createSeconds, 2)}`,
      ]),
    )
  }
  const errs = sums.filter((s) => s.etcd.errors + s.lite.errors > 0)
  if (errs.length > 0) out.write(`\nWARNING: watch errors (canceled watchers, failed streams or puts) in ${errs.map((s) => s.w.name).join(', ')} (see JSON lines)\n`)
}

/** Every JSON object the run prints on stdout, in order: the report is built from exactly these. */
const jsonLines: object[] = []

/** Print one JSON line on stdout and keep it for the report. */
function emit(line: object): void {
  jsonLines.push(line)
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

async function main(): Promise<number> {
  const args = parseRunArgs(process.argv.slice(2))
  if (args === undefined) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const log = (msg: string): void => {
    process.stderr.write(`bench: ${msg}\n`)
  }
  // Before each measurement: let the work the last one left behind finish first (see lib/quiet.ts).
  const settle = async (): Promise<void> => {
    const q = await waitForQuiet()
    if (!q.quiet) log(`the machine did not go quiet within ${q.waitedMs / 1000} s; measuring anyway`)
  }
  // The run's metadata, first on stdout, so `node build/bench/report.js saved.jsonl` can rebuild the same report.
  const meta: ReportMeta = {
    command: commandLine(process.argv.slice(2), process.env['npm_lifecycle_event'] === 'bench' ? 'npm run bench --' : 'node build/bench/run.js'),
    etcdVersion: args.servers.includes('etcd') ? etcdVersionLine() : null,
    unsafeNoFsync: args.unsafeNoFsync,
    date: new Date().toISOString(),
    machine: collectMachineInfo(),
    nodeVersion: process.version,
    warmup: { seconds: args.warmupSeconds, serverSeconds: args.serverWarmupSeconds },
    watchWindowBytes: WATCH_FLOW_CONTROL_WINDOW,
  }
  emit({ type: 'meta', ...meta })
  // Fan-out and churn workloads, and the push ceiling, each start a fresh server: this is their warm-up.
  const freshWarmupSeconds = freshServerWarmupSeconds(args.warmupSeconds, args.serverWarmupSeconds)
  const cpuAtStart = readCpuTimes()
  const startedMs = performance.now()

  const results: Measurement[] = []
  const watchResults: WatchMeasurement[] = []
  const leaseResults: LeaseMeasurement[] = []
  const startupResults: StartupMeasurement[] = []
  const rpcCeilings: RpcCeilingMeasurement[] = []
  const commitCeilings: RpcCeilingMeasurement[] = []
  const pushCeilings: PushCeilingMeasurement[] = []
  const storageCeilings: StorageCeilingMeasurement[] = []
  const tmp = mkdtempSync(join(tmpdir(), 'etcdlite-bench-watch-'))
  sampleDir = tmp
  try {
    if (args.workloads.length > 0) {
      log(`starting etcd and etcdlite for the KV workloads (fresh temp data dirs, ${args.unsafeNoFsync ? 'both with --unsafe-no-fsync' : 'durable writes'})`)
      const shared = new Map<ServerName, BenchServer>()
      let rpcCeiling: CeilingServer | undefined
      let commitCeiling: CeilingServer | undefined
      try {
        if (args.ceilings && args.workloads.some((w) => RPC_CEILING_OPS.has(w.op))) rpcCeiling = await startRpcCeilingServer(args)
        // The commit ceiling syncs as the servers do: not with --unsafe-no-fsync.
        if (args.ceilings && args.workloads.some((w) => COMMIT_CEILING_OPS.has(w.op))) {
          commitCeiling = await startCommitCeilingServer(args, mkdtempSync(join(tmp, 'commit-ceiling-')), !args.unsafeNoFsync)
        }
        // Each ceiling server measures the KV workloads whose op it answers.
        const kvCeilings = [
          { kind: 'rpc', server: rpcCeiling, ops: RPC_CEILING_OPS, into: rpcCeilings },
          { kind: 'commit', server: commitCeiling, ops: COMMIT_CEILING_OPS, into: commitCeilings },
        ] as const
        const tokens = new Map<ServerName, string>()
        for (const n of args.servers) {
          const s = await startServer(n, args)
          shared.set(n, s)
          if (args.auth) tokens.set(n, await enableBenchAuth(s.endpoint))
        }
        // Warm-up pass (lib/warmup.ts): every workload's load once on each server and the ceilings, unmeasured.
        const passSeconds = kvWarmupPassSeconds(args.serverWarmupSeconds, args.workloads.length)
        if (passSeconds > 0) {
          const pass: RunArgs = { ...args, seconds: passSeconds, warmupSeconds: 0 }
          log(`warm-up pass: every KV workload for ${passSeconds.toFixed(1)} s on each server${rpcCeiling === undefined ? '' : ' and the ceilings'}, unmeasured`)
          for (const w of args.workloads) {
            for (const name of args.servers) {
              const server = shared.get(name)
              if (server !== undefined) await runClient(server, w, pass, tokens.get(name))
            }
            for (const c of kvCeilings) if (c.server !== undefined && c.ops.has(w.op)) await runRpcCeiling(c.server, w, pass)
          }
        }
        for (let round = 0; round < args.rounds; round++) {
          for (const [wi, w] of args.workloads.entries()) {
            for (const name of serverOrder(args, round, wi)) {
              const server = shared.get(name)
              if (server === undefined) throw new Error(`no server ${name}`)
              log(`round ${round + 1}/${args.rounds} ${w.name} on ${name}`)
              await settle()
              const { result, serverCpuPct } = await runClient(server, w, args, tokens.get(name))
              const rss = processRssMiB(server.pid)
              const serverCpuUsPerOp = serverCpuPct === null || result.opsPerSec === 0 ? null : Number(((serverCpuPct * 1e4) / result.opsPerSec).toFixed(1))
              const m: Measurement = {
                round: round + 1, workload: w.name, server: name, ...result,
                serverCpuPct, serverCpuUsPerOp, serverRssMiB: rss === undefined ? null : Number(rss.toFixed(1)),
              }
              results.push(m)
              emit({ type: 'result', ...m })
            }
            for (const c of kvCeilings) {
              if (c.server === undefined || !c.ops.has(w.op)) continue
              log(`round ${round + 1}/${args.rounds} ${w.name} on the ${c.kind} ceiling`)
              await settle()
              const m: RpcCeilingMeasurement = { ...(await runRpcCeiling(c.server, w, args)), round: round + 1, workload: w.name }
              c.into.push(m)
              emit({ type: 'ceiling', kind: c.kind, ...m })
            }
          }
          if (args.ceilings) {
            log(`round ${round + 1}/${args.rounds} storage ceiling`)
            await settle()
            const rows = await runStorageCeiling({
              seconds: args.seconds, warmupSeconds: args.warmupSeconds, keySize: args.keySize, valueSize: args.valueSize,
              keySpace: args.keySpace, dir: tmp, syncModes: args.unsafeNoFsync ? [false] : [true, false],
            })
            for (const r of rows) {
              storageCeilings.push({ ...r, round: round + 1 })
              emit({ type: 'ceiling', kind: 'storage', round: round + 1, ...r })
            }
          }
        }
      } finally {
        log('stopping the KV servers')
        for (const s of shared.values()) await stopServer(s)
        await rpcCeiling?.dispose()
        await commitCeiling?.dispose()
      }
    }

    for (let round = 0; round < args.rounds; round++) {
      for (const [wi, w] of args.watchWorkloads.entries()) {
        for (const name of serverOrder(args, round, wi)) {
          log(`round ${round + 1}/${args.rounds} ${w.name} on ${name} (fresh server)`)
          const server = await startServer(name, args)
          try {
            await settle()
            const warmupSeconds = w.kind === 'fanout' ? freshWarmupSeconds : args.warmupSeconds
            const figures = await runWatchWorkload(server, w, { ...args, warmupSeconds, tmpDir: tmp }, `${w.name}-${name}-r${round + 1}`)
            const m: WatchMeasurement = { ...figures, round: round + 1, workload: w.name, server: name }
            watchResults.push(m)
            emit({ type: 'result', ...m })
          } finally {
            await stopServer(server)
          }
        }
        if (args.ceilings && w.kind === 'fanout') {
          // Responses as full as the fuller of the two servers' in this round: pre-encoded, as batched.
          const eventsPerResponse = Math.max(1, ...watchResults.filter((m) => m.workload === w.name && m.round === round + 1)
            .map((m) => (m.kind === 'fanout' && m.responsesPerSec > 0 ? Math.round(m.eventsPerSec / m.responsesPerSec) : 1)))
          log(`round ${round + 1}/${args.rounds} ${w.name} on the push ceiling (${eventsPerResponse} event(s) per response)`)
          await settle()
          const c: PushCeilingMeasurement = {
            ...(await runPushCeiling({
              seconds: args.seconds, warmupSeconds: freshWarmupSeconds, watchers: w.watchers, streams: w.streams,
              eventsPerResponse, keySize: args.keySize, valueSize: args.valueSize, watchProcs: args.watchProcs,
            })),
            round: round + 1,
            workload: w.name,
          }
          pushCeilings.push(c)
          emit({ type: 'ceiling', kind: 'push', ...c })
        }
      }
    }

    for (let round = 0; round < args.rounds; round++) {
      for (const [wi, w] of args.leaseWorkloads.entries()) {
        for (const name of serverOrder(args, round, wi)) {
          log(`round ${round + 1}/${args.rounds} ${w.name} on ${name} (fresh server)`)
          const server = await startServer(name, args)
          try {
            await settle()
            const warmupSeconds = w.kind === 'churn' ? freshWarmupSeconds : args.warmupSeconds
            const figures = await runLeaseWorkload(server, w, { ...args, warmupSeconds }, `${w.name}-${name}-r${round + 1}`)
            const m: LeaseMeasurement = { ...figures, round: round + 1, workload: w.name, server: name }
            leaseResults.push(m)
            emit({ type: 'result', ...m })
          } finally {
            await stopServer(server)
          }
        }
      }
    }

    // startup-1m: its own fresh server per measurement (load, SIGTERM, restart on the same data dir).
    if (args.startup) {
      for (let round = 0; round < args.rounds; round++) {
        for (const name of serverOrder(args, round, 0)) {
          log(`round ${round + 1}/${args.rounds} ${STARTUP_WORKLOAD.name} on ${name} (fresh server, ${args.startupKeys} keys)`)
          const figures = await runStartupWorkload(name, {
            keys: args.startupKeys, keySize: args.keySize, valueSize: STARTUP_VALUE_SIZE, etcdArgs: [...noFsyncArgs(args), ...args.etcdArgs],
            etcdlite: etcdliteLaunch(args),
            log,
          })
          const m: StartupMeasurement = { ...figures, round: round + 1, workload: STARTUP_WORKLOAD.name, server: name }
          startupResults.push(m)
          emit({ type: 'result', ...m })
        }
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }

  const rows = args.workloads.map((w) => {
    const pick = (n: ServerName): Summary => summarize(results.filter((r) => r.workload === w.name && r.server === n))
    return { w, etcd: pick('etcd'), lite: pick('etcdlite') }
  })
  for (const { w, etcd, lite } of rows) {
    emit({
      type: 'summary', workload: w.name, op: w.op, clients: w.clients, channels: w.channels, rounds: args.rounds, seconds: args.seconds,
      keySize: args.keySize, valueSize: args.valueSize, etcd, etcdlite: lite,
      opsRatio: ratio(lite.opsPerSec, etcd.opsPerSec), p99Ratio: ratio(etcd.p99Ms, lite.p99Ms),
    })
  }
  const watchSums = args.watchWorkloads.map((w) => summarizeWatch(w, watchResults))
  for (const s of watchSums) {
    emit({
      type: 'summary', workload: s.w.name, ...s.w, rounds: args.rounds, seconds: args.seconds, keySize: args.keySize, valueSize: args.valueSize,
      watchProcs: args.watchProcs, watchPrefix: args.watchPrefix, etcd: s.etcd, etcdlite: s.lite, ...watchRatios(s),
    })
  }
  const leaseSums = args.leaseWorkloads.map((w) => summarizeLease(w, args, leaseResults))
  for (const s of leaseSums) {
    emit({
      type: 'summary', workload: s.w.name, ...s.w, rounds: args.rounds, seconds: args.seconds, etcd: s.etcd, etcdlite: s.lite,
      ratioConvention: 'throughput etcdlite/etcd, times and CPU per op etcd/etcdlite: > 1 means etcdlite is better', ...leaseRatios(s),
    })
  }
  const startupSum = args.startup ? summarizeStartup(startupResults) : undefined
  if (startupSum !== undefined) {
    emit({
      type: 'summary', workload: STARTUP_WORKLOAD.name, keys: args.startupKeys, rounds: args.rounds, keySize: args.keySize, valueSize: STARTUP_VALUE_SIZE,
      etcd: startupSum.etcd, etcdlite: startupSum.lite,
      ratioConvention: 'throughput etcdlite/etcd, times and bytes per key etcd/etcdlite: > 1 means etcdlite is better', ...startupRatios(startupSum),
    })
  }
  const served = (pairs: readonly [string, number | null, number | null][]): Map<string, { etcd: number | null; lite: number | null }> =>
    new Map(pairs.map(([name, etcd, lite]) => [name, { etcd, lite }]))
  const kvServed = served(rows.map(({ w, etcd, lite }) => [w.name, etcd.opsPerSec, lite.opsPerSec]))
  const ceilingLines = [
    ...rpcCeilingLines(rpcCeilings, kvServed),
    ...rpcCeilingLines(commitCeilings, kvServed, 'commit'),
    ...pushCeilingLines(pushCeilings, served(watchSums.flatMap((s) => (s.kind === 'fanout' ? [[s.w.name, s.etcd.eventsPerSec, s.lite.eventsPerSec] as [string, number, number]] : [])))),
  ]
  for (const l of ceilingLines) emit({ type: 'summary', ceilingOf: l.workload, ...l })
  const steal = stealPct(cpuAtStart, readCpuTimes())
  emit({ type: 'steal', stealPct: steal, seconds: Math.round((performance.now() - startedMs) / 1000) })
  if (steal !== null) log(`cpu steal: ${steal} % of the machine's CPU time went to other guests during the run`)
  if (rows.length > 0) printTable(args, rows)
  if (watchSums.length > 0) printWatchTables(args, watchSums)
  if (leaseSums.length > 0) printLeaseTables({ ...args, warmupSeconds: freshWarmupSeconds }, leaseSums)
  printCeilingTables(ceilingLines, storageCeilings)
  if (startupSum !== undefined) printStartupTable({ rounds: args.rounds, keySize: args.keySize, valueSize: STARTUP_VALUE_SIZE, unsafeNoFsync: args.unsafeNoFsync }, startupSum)
  if (args.report) {
    for (const p of writeReport(jsonLines, meta, args.reportDir)) log(`report: wrote ${p}`)
  }
  return 0
}

// Every way out kills the servers and clients and removes the temp dirs.
process.once('exit', killEverythingSync)
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(sig, () => {
    process.stderr.write(`bench: ${sig}, stopping servers\n`)
    killEverythingSync()
    process.exit(130)
  })
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    killEverythingSync()
    process.exitCode = 1
  },
)
