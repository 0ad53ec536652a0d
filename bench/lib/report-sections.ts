// The bench report's tables and charts, one section per group of workloads (KV, watch, lease, start-up,
// storage ceiling); a group the run did not measure has no section.
import { join } from 'node:path'
import { renderBarChart, type ChartGroup, type ChartSeries } from './svg-chart.js'
import {
  CLIENT_BOUND_PCT, clientMainPct, fmtLatency, isClientBound, fmtNum, fmtPct, fmtRatio, mdTable, medianOf, num, pair, ratioOf, str, sub, type Obj, type Parsed,
} from './report-lines.js'

/** The files writeReport() writes, relative to its outDir. */
export const RESULTS_FILE = 'RESULTS.md'
export const CHART_DIR = 'results'
/** Every chart the report can draw; charts of this set a run did not produce are removed, nothing else is. */
export const CHART_FILES = ['kv-ops.svg', 'kv-p99.svg', 'watch-events.svg', 'watch-p99.svg', 'lease-churn.svg', 'lease-expiry.svg', 'startup.svg'] as const
export type ChartFile = (typeof CHART_FILES)[number]

/**
 * Where a run's report goes by default: a durable run's in bench/, a --unsafe-no-fsync run's in
 * bench/unsafe-no-fsync/, so that neither overwrites the other and figures without fsync are never mistaken for durable ones.
 * The report's links to bench/README.md and to the other report assume these places.
 */
export const UNSAFE_NO_FSYNC_DIR = 'unsafe-no-fsync'
export function reportDirFor(unsafeNoFsync: boolean): string {
  return unsafeNoFsync ? join('bench', UNSAFE_NO_FSYNC_DIR) : 'bench'
}

/** The series colours: the same for a server in every chart. */
export const LITE: ChartSeries = { name: 'etcdlite', color: '#2f6fdf' }
export const ETCD: ChartSeries = { name: 'etcd', color: '#e8743b' }
export const CEILING: ChartSeries = { name: 'ceiling', color: '#9aa1a9' }

// ---------------------------------------------------------------------------------------------------
// Tables and charts per group

export interface Section {
  readonly title: string
  readonly text: string[]
}

const serverPair = (s: Obj | undefined): { e: Obj | undefined; l: Obj | undefined } => ({ e: sub(s, 'etcd'), l: sub(s, 'etcdlite') })

export function kvSection(p: Parsed, charts: Map<ChartFile, string>): Section | undefined {
  if (p.kv.size === 0) return undefined
  const rssOf = (w: string, s: Obj | undefined, server: 'etcd' | 'etcdlite'): number | null =>
    num(s, 'serverRssMiB') ?? medianOf(p.kvResults.filter((r) => str(r, 'workload') === w && str(r, 'server') === server).map((r) => num(r, 'serverRssMiB')))
  const rows: string[][] = []
  const opsGroups: ChartGroup[] = []
  const p99Groups: ChartGroup[] = []
  for (const [w, s] of p.kv) {
    const { e, l } = serverPair(s)
    const ceiling = num(p.ceilingOf.get(`rpc:${w}`), 'ceiling')
    const ceilingP99 = medianOf(p.rpcRounds.filter((r) => str(r, 'workload') === w).map((r) => num(r, 'p99Ms')))
    const eOps = num(e, 'opsPerSec')
    const lOps = num(l, 'opsPerSec')
    const share = (x: number | null): number | null => (x === null || ceiling === null || ceiling <= 0 ? null : (100 * x) / ceiling)
    const cpuPerK = (o: Obj | undefined): number | null => {
      const us = num(o, 'serverCpuUsPerOp')
      return us === null ? null : us / 1000
    }
    rows.push([
      w, fmtNum(eOps, 0), fmtNum(lOps, 0), fmtRatio(num(s, 'opsRatio') ?? ratioOf(lOps, eOps)),
      fmtNum(num(e, 'p50Ms'), 2), fmtNum(num(l, 'p50Ms'), 2), fmtNum(num(e, 'p99Ms'), 2), fmtNum(num(l, 'p99Ms'), 2),
      fmtRatio(num(s, 'p99Ratio') ?? ratioOf(num(e, 'p99Ms'), num(l, 'p99Ms'))),
      fmtNum(cpuPerK(e), 3), fmtNum(cpuPerK(l), 3), fmtNum(rssOf(w, e, 'etcd'), 1), fmtNum(rssOf(w, l, 'etcdlite'), 1),
      fmtNum(ceiling, 0), fmtPct(share(eOps)), fmtPct(share(lOps)),
    ])
    opsGroups.push({ label: w, values: [lOps, eOps, ceiling], notes: [undefined, undefined, 'none for this workload'] })
    p99Groups.push({ label: w, values: [num(l, 'p99Ms'), num(e, 'p99Ms'), ceilingP99], notes: [undefined, undefined, 'none for this workload'] })
  }
  const withCeiling = opsGroups.some((g) => g.values[2] !== null)
  const series = withCeiling ? [LITE, ETCD, CEILING] : [LITE, ETCD]
  const trim = (gs: readonly ChartGroup[]): ChartGroup[] => gs.map((g) => ({ ...g, values: g.values.slice(0, series.length) }))
  charts.set('kv-ops.svg', renderBarChart({ title: 'KV: ops/s per workload', unit: 'ops/s (higher is better)', series, groups: trim(opsGroups) }))
  charts.set('kv-p99.svg', renderBarChart({ title: 'KV: p99 latency per workload', unit: 'ms (lower is better)', series, groups: trim(p99Groups) }))
  const first = [...p.kv.values()][0]
  return {
    title: 'KV',
    text: [
      `Closed-loop clients, one request in flight each; ${fmtNum(num(first, 'rounds'), 0)} round(s) of ${fmtNum(num(first, 'seconds'), 1)} s, ` +
        `key ${fmtNum(num(first, 'keySize'), 0)} B, value ${fmtNum(num(first, 'valueSize'), 0)} B; medians over rounds. ` +
        'ratio = etcdlite/etcd ops/s; p99 ratio = etcd/etcdlite p99 (> 1: etcdlite better). CPU s/1k ops = server CPU-seconds per 1,000 requests; ' +
        'RSS = server VmRSS after the workload. Ceiling = the same load against a bare grpc-js server with canned answers.',
      '',
      '![KV ops/s per workload](results/kv-ops.svg)',
      '',
      '![KV p99 latency per workload](results/kv-p99.svg)',
      '',
      mdTable(['workload', 'etcd ops/s', 'etcdlite ops/s', 'ratio', 'etcd p50 ms', 'etcdlite p50 ms', 'etcd p99 ms', 'etcdlite p99 ms', 'p99 ratio',
        'etcd CPU s/1k ops', 'etcdlite CPU s/1k ops', 'etcd RSS MiB', 'etcdlite RSS MiB', 'ceiling ops/s', 'etcd % of ceiling', 'etcdlite % of ceiling'], rows),
      ...commitCeilingText(p),
      ...loadGeneratorText(p),
    ],
  }
}

/**
 * The load generator's main thread and the CPU steal per KV workload: whether a figure measured the server
 * or the client, and how noisy it was. Runs that predate these fields get no table.
 */
function loadGeneratorText(p: Parsed): string[] {
  const rows: string[][] = []
  for (const w of p.kv.keys()) {
    const of = (rs: readonly Obj[]): Obj[] => rs.filter((r) => str(r, 'workload') === w)
    const results = of(p.kvResults)
    const sets = [
      results.filter((r) => str(r, 'server') === 'etcd'), results.filter((r) => str(r, 'server') === 'etcdlite'),
      of(p.rpcRounds), of(p.commitRounds),
    ]
    const mains = sets.map(clientMainPct)
    const steals = sets.flat().map((r) => num(r, 'stealPct')).filter((x): x is number => x !== null)
    if (mains.every((x) => x === null) && steals.length === 0) continue
    const cell = (x: number | null): string => (x === null ? '-' : `${fmtNum(x, 0)} %${isClientBound(x) ? ' ⚑' : ''}`)
    rows.push([w, ...mains.map(cell), steals.length === 0 ? '-' : `${fmtNum(Math.max(...steals), 1)} %`])
  }
  if (rows.length === 0) return []
  const clients = [...new Set([...p.kvResults, ...p.rpcRounds, ...p.commitRounds].map((r) => str(r, 'client') ?? 'grpc-js'))]
  const via = clients.length === 1 && clients[0] === 'h2' ? 'bare node:http2, `--client h2`' : clients.join(' and ')
  return [
    '',
    `Load generator: one Node process per measurement runs every client of the workload (${via}) on its main thread. The table gives ` +
      `that thread's CPU in % of one core (median over rounds); ⚑ = ${CLIENT_BOUND_PCT} % or more: the client, not the server, was the limit, ` +
      'so the figure says how much of the machine the server left to the client as much as how fast it answers. ' +
      'Steal = the most CPU time the hypervisor gave to other guests during one of the workload\'s measurements (any server, any round).',
    '',
    mdTable(['workload', 'load generator main thread: etcd', 'etcdlite', 'RPC ceiling', 'commit ceiling', 'highest CPU steal'], rows),
  ]
}

/** The commit ceiling's table (put workloads): what a put costs when its record must be committed first. */
function commitCeilingText(p: Parsed): string[] {
  const rows: string[][] = []
  for (const [w, s] of p.kv) {
    const commit = num(p.ceilingOf.get(`commit:${w}`), 'ceiling')
    if (commit === null) continue
    const rpc = num(p.ceilingOf.get(`rpc:${w}`), 'ceiling')
    const rounds = p.commitRounds.filter((r) => str(r, 'workload') === w)
    const us = medianOf(rounds.map((r) => num(r, 'serverCpuUsPerOp')))
    const { e, l } = serverPair(s)
    const share = (x: number | null): number | null => (x === null || commit <= 0 ? null : (100 * x) / commit)
    rows.push([
      w, fmtNum(rpc, 0), fmtNum(commit, 0), fmtPct(rpc === null || rpc <= 0 ? null : (100 * commit) / rpc),
      fmtNum(medianOf(rounds.map((r) => num(r, 'p50Ms'))), 2), fmtNum(medianOf(rounds.map((r) => num(r, 'p99Ms'))), 2), fmtNum(us === null ? null : us / 1000, 3),
      fmtPct(share(num(e, 'opsPerSec'))), fmtPct(share(num(l, 'opsPerSec'))),
    ])
  }
  if (rows.length === 0) return []
  return [
    '',
    'Commit ceiling = the RPC ceiling\'s server committing each Put\'s record to LevelDB before it answers: the record etcdlite writes ' +
      'for a put, in etcdlite\'s group commit (the Puts of one event-loop turn in one batch, one batch in flight), synced unless the run ' +
      'is --unsafe-no-fsync; no index, no MVCC, no watch. What a put costs at least when it must be committed before the answer.',
    '',
    mdTable(['workload', 'RPC ceiling ops/s', 'commit ceiling ops/s', 'commit ÷ RPC ceiling', 'commit ceiling p50 ms', 'commit ceiling p99 ms',
      'commit ceiling CPU s/1k ops', 'etcd % of commit ceiling', 'etcdlite % of commit ceiling'], rows),
  ]
}

export function watchSection(p: Parsed, charts: Map<ChartFile, string>): Section | undefined {
  if (p.watch.size === 0) return undefined
  const all = [...p.watch]
  const fan = all.filter(([, s]) => str(s, 'kind') === 'fanout')
  const cat = all.filter(([, s]) => str(s, 'kind') === 'catchup')
  const mem = all.filter(([, s]) => str(s, 'kind') === 'mem')
  const text: string[] = []
  if (fan.length > 0) {
    const evGroups: ChartGroup[] = []
    const p99Groups: ChartGroup[] = []
    const rows = fan.map(([w, s]) => {
      const { e, l } = serverPair(s)
      const eEv = num(e, 'eventsPerSec')
      const lEv = num(l, 'eventsPerSec')
      const ceiling = num(p.ceilingOf.get(`push:${w}`), 'ceiling')
      const share = (x: number | null): number | null => (x === null || ceiling === null || ceiling <= 0 ? null : (100 * x) / ceiling)
      const eP99 = num(e, 'p99Ms')
      const lP99 = num(l, 'p99Ms')
      evGroups.push({ label: w, values: [lEv, eEv, ceiling] })
      p99Groups.push({
        label: w, values: [lP99, eP99],
        notes: [lEv !== null && lP99 === null ? 'lost' : undefined, eEv !== null && eP99 === null ? 'lost' : undefined],
      })
      return [
        w, fmtNum(eEv, 0), fmtNum(lEv, 0), fmtRatio(num(s, 'eventsRatio') ?? ratioOf(lEv, eEv)),
        fmtLatency(eP99, eEv !== null), fmtLatency(lP99, lEv !== null), fmtRatio(num(s, 'p99Ratio') ?? ratioOf(eP99, lP99)),
        pair(fmtNum(num(e, 'undeliveredPct'), 1), fmtNum(num(l, 'undeliveredPct'), 1)),
        fmtNum(ceiling, 0), fmtPct(share(eEv)), fmtPct(share(lEv)),
      ]
    })
    const withCeiling = evGroups.some((g) => g.values[2] !== null)
    const series = withCeiling ? [LITE, ETCD, CEILING] : [LITE, ETCD]
    charts.set('watch-events.svg', renderBarChart({
      title: 'Watch fan-out: events/s delivered', unit: 'events/s (higher is better)', series,
      groups: evGroups.map((g) => ({ ...g, values: g.values.slice(0, series.length) })),
    }))
    charts.set('watch-p99.svg', renderBarChart({ title: 'Watch fan-out: put-to-event p99 latency', unit: 'ms (lower is better)', series: [LITE, ETCD], groups: p99Groups }))
    text.push(
      '### Fan-out', '',
      'ev/s = events received by all watchers per second; ratio = etcdlite/etcd. p99 = put-to-event latency (ms) of sampled watchers; ' +
        '"lost" = that quantile was never delivered; p99 ratio = etcd/etcdlite. lost % = sampled events never received (etcd / etcdlite). ' +
        'Ceiling = a bare grpc-js Watch stream pushing pre-encoded responses to the same watcher processes.',
      '',
      '![Watch fan-out events/s](results/watch-events.svg)', '',
      '![Watch fan-out p99 latency](results/watch-p99.svg)', '',
      mdTable(['workload', 'etcd ev/s', 'etcdlite ev/s', 'ratio', 'etcd p99 ms', 'etcdlite p99 ms', 'p99 ratio', 'lost % e / l',
        'push ceiling ev/s', 'etcd % of ceiling', 'etcdlite % of ceiling'], rows),
      '',
    )
  }
  if (cat.length > 0) {
    const rows = cat.map(([w, s]) => {
      const { e, l } = serverPair(s)
      return [
        w, fmtNum(num(e, 'expectedEvents') ?? num(l, 'expectedEvents'), 0), fmtNum(num(e, 'catchupSeconds'), 2), fmtNum(num(l, 'catchupSeconds'), 2),
        fmtRatio(num(s, 'timeRatio') ?? ratioOf(num(e, 'catchupSeconds'), num(l, 'catchupSeconds'))),
      ]
    })
    text.push('### Catch-up', '', 'Seconds from the first create request until every watcher had every event it asked for; ratio = etcd s ÷ etcdlite s (> 1: etcdlite faster).', '',
      mdTable(['workload', 'events', 'etcd s', 'etcdlite s', 'ratio'], rows), '')
  }
  if (mem.length > 0) {
    const rows = mem.map(([w, s]) => {
      const { e, l } = serverPair(s)
      return [
        w, fmtNum(num(e, 'bytesPerWatcher'), 0), fmtNum(num(l, 'bytesPerWatcher'), 0),
        fmtRatio(num(s, 'memRatio') ?? ratioOf(num(e, 'bytesPerWatcher'), num(l, 'bytesPerWatcher'))),
        `${fmtNum(num(e, 'rssBeforeMiB'), 1)} → ${fmtNum(num(e, 'rssAfterMiB'), 1)}`, `${fmtNum(num(l, 'rssBeforeMiB'), 1)} → ${fmtNum(num(l, 'rssAfterMiB'), 1)}`,
      ]
    })
    text.push('### Memory per watcher', '', 'Server RSS growth per watcher once every watcher was created and RSS settled; ratio = etcd ÷ etcdlite (> 1: etcdlite smaller).', '',
      mdTable(['workload', 'etcd B/watcher', 'etcdlite B/watcher', 'ratio', 'etcd RSS MiB before → after', 'etcdlite RSS MiB before → after'], rows), '')
  }
  return { title: 'Watch', text }
}

export function leaseSection(p: Parsed, charts: Map<ChartFile, string>): Section | undefined {
  if (p.lease.size === 0) return undefined
  const all = [...p.lease]
  const churn = all.filter(([, s]) => str(s, 'kind') === 'churn')
  const expiry = all.filter(([, s]) => str(s, 'kind') === 'expiry')
  const text: string[] = ['Ratios: throughput etcdlite/etcd, times and CPU per cycle etcd/etcdlite; every ratio > 1 means etcdlite is better.', '']
  if (churn.length > 0) {
    const groups: ChartGroup[] = []
    const rows = churn.map(([w, s]) => {
      const { e, l } = serverPair(s)
      groups.push({ label: w, values: [num(l, 'cyclesPerSec'), num(e, 'cyclesPerSec')] })
      return [
        w, fmtNum(num(e, 'cyclesPerSec'), 0), fmtNum(num(l, 'cyclesPerSec'), 0), fmtRatio(num(s, 'cyclesRatio') ?? ratioOf(num(l, 'cyclesPerSec'), num(e, 'cyclesPerSec'))),
        fmtNum(num(e, 'p99Ms'), 2), fmtNum(num(l, 'p99Ms'), 2), fmtRatio(num(s, 'p99Ratio') ?? ratioOf(num(e, 'p99Ms'), num(l, 'p99Ms'))),
        fmtNum(num(e, 'serverUsPerCycle'), 0), fmtNum(num(l, 'serverUsPerCycle'), 0), fmtRatio(num(s, 'cpuPerCycleRatio') ?? ratioOf(num(e, 'serverUsPerCycle'), num(l, 'serverUsPerCycle'))),
      ]
    })
    charts.set('lease-churn.svg', renderBarChart({ title: 'Lease churn: grant + keep-alive + revoke cycles/s', unit: 'cycles/s (higher is better)', series: [LITE, ETCD], groups }))
    text.push('### Churn', '', '![Lease churn cycles/s](results/lease-churn.svg)', '',
      mdTable(['workload', 'etcd cyc/s', 'etcdlite cyc/s', 'ratio', 'etcd p99 ms', 'etcdlite p99 ms', 'p99 ratio', 'etcd µs/cyc', 'etcdlite µs/cyc', 'CPU ratio'], rows), '')
  }
  if (expiry.length > 0) {
    const groups: ChartGroup[] = []
    const rows = expiry.map(([w, s]) => {
      const { e, l } = serverPair(s)
      groups.push({ label: w, values: [num(l, 'expirySeconds'), num(e, 'expirySeconds')] })
      return [
        w, fmtNum(num(s, 'leases'), 0), fmtNum(num(s, 'ttlSeconds'), 0), fmtNum(num(e, 'expirySeconds'), 2), fmtNum(num(l, 'expirySeconds'), 2),
        fmtRatio(num(s, 'timeRatio') ?? ratioOf(num(e, 'expirySeconds'), num(l, 'expirySeconds'))),
        pair(fmtNum(num(e, 'overdueSeconds'), 2), fmtNum(num(l, 'overdueSeconds'), 2)), pair(fmtNum(num(e, 'setupSeconds'), 2), fmtNum(num(l, 'setupSeconds'), 2)),
      ]
    })
    charts.set('lease-expiry.svg', renderBarChart({ title: 'Lease expiry: last grant to last key deleted', unit: 'seconds (lower is better)', series: [LITE, ETCD], groups }))
    text.push('### Expiry', '', 's = from the last grant until every key was deleted (ideal ≈ the TTL); late = s − TTL; ratio = etcd s ÷ etcdlite s.', '',
      '![Lease expiry seconds](results/lease-expiry.svg)', '',
      mdTable(['workload', 'leases', 'TTL s', 'etcd s', 'etcdlite s', 'ratio', 'late s e / l', 'setup s e / l'], rows), '')
  }
  return { title: 'Lease', text }
}

export function startupSection(p: Parsed, charts: Map<ChartFile, string>): Section | undefined {
  if (p.startup.size === 0) return undefined
  const groups: ChartGroup[] = []
  const rows = [...p.startup].map(([w, s]) => {
    const { e, l } = serverPair(s)
    const keys = num(s, 'keys')
    groups.push({ label: `${w}: restart with ${fmtNum(keys, 0)} keys`, values: [num(l, 'startupSeconds'), num(e, 'startupSeconds')] })
    groups.push({ label: `${w}: restart after SIGKILL`, values: [num(l, 'crashStartupSeconds'), num(e, 'crashStartupSeconds')] })
    groups.push({ label: `${w}: start on an empty dir`, values: [num(l, 'readyEmptySeconds'), num(e, 'readyEmptySeconds')] })
    return [
      w, fmtNum(keys, 0), fmtNum(num(e, 'startupSeconds'), 2), fmtNum(num(l, 'startupSeconds'), 2),
      fmtRatio(num(s, 'startupRatio') ?? ratioOf(num(e, 'startupSeconds'), num(l, 'startupSeconds'))),
      pair(fmtNum(num(e, 'crashStartupSeconds'), 2), fmtNum(num(l, 'crashStartupSeconds'), 2)),
      fmtRatio(num(s, 'crashStartupRatio') ?? ratioOf(num(e, 'crashStartupSeconds'), num(l, 'crashStartupSeconds'))),
      pair(fmtNum(num(e, 'readyEmptySeconds'), 2), fmtNum(num(l, 'readyEmptySeconds'), 2)),
      pair(fmtNum(num(e, 'rssPerKeyBytes'), 0), fmtNum(num(l, 'rssPerKeyBytes'), 0)),
      pair(fmtNum(num(e, 'rssPerKeyAfterRestartBytes'), 0), fmtNum(num(l, 'rssPerKeyAfterRestartBytes'), 0)),
      pair(fmtNum(num(e, 'rssAfterRestartMiB'), 0), fmtNum(num(l, 'rssAfterRestartMiB'), 0)),
      pair(fmtNum(num(e, 'loadKeysPerSec'), 0), fmtNum(num(l, 'loadKeysPerSec'), 0)),
    ]
  })
  charts.set('startup.svg', renderBarChart({ title: 'Start-up: seconds until a loaded key is served', unit: 'seconds (lower is better)', series: [LITE, ETCD], groups }))
  return {
    title: 'Start-up',
    text: [
      'start s = spawn of the restarted server until a Range of a loaded key returned its value; ratio = etcd s ÷ etcdlite s (> 1: etcdlite faster). ' +
        'after SIGKILL = the same for the start after killing the loaded server with SIGKILL as soon as the last txn answered (etcd replays ' +
        'its WAL; etcdlite reads the newest index checkpoint it wrote in the background and replays the log past it); the clean start follows ' +
        'a SIGTERM of that server. ' +
        'B/key = (VmRSS − VmRSS of the empty server) ÷ keys, after loading and after the restart (warm page cache).',
      '',
      '![Start-up seconds](results/startup.svg)',
      '',
      mdTable(['workload', 'keys', 'etcd start s', 'etcdlite start s', 'ratio', 'after SIGKILL s e / l', 'after SIGKILL ratio', 'empty-dir start s e / l', 'B/key loaded e / l', 'B/key after restart e / l',
        'RSS after restart MiB e / l', 'load keys/s e / l'], rows),
    ],
  }
}

export function storageSection(p: Parsed): Section | undefined {
  if (p.storage.length === 0) return undefined
  const syncText = (r: Obj): string => {
    const v = r['sync']
    return typeof v === 'boolean' ? (v ? 'yes' : 'no') : '-'
  }
  const keyOf = (r: Obj): string => `${fmtNum(num(r, 'batchSize'), 0)}/${syncText(r)}`
  const keys = [...new Set(p.storage.map(keyOf))]
  const rows = keys.map((k) => {
    const rs = p.storage.filter((r) => keyOf(r) === k)
    const m = (f: string): number | null => medianOf(rs.map((r) => num(r, f)))
    return [fmtNum(m('batchSize'), 0), rs[0] === undefined ? '-' : syncText(rs[0]), fmtNum(m('putsPerSec'), 0), fmtNum(m('batchesPerSec'), 0), fmtNum(m('p50Ms'), 2), fmtNum(m('p99Ms'), 2)]
  })
  return {
    title: 'Storage ceiling',
    text: ['Raw classic-level writes of the records one put writes, one batch in flight, fresh database per row; medians over rounds.', '',
      mdTable(['batch (puts)', 'sync', 'puts/s', 'batches/s', 'batch p50 ms', 'batch p99 ms'], rows)],
  }
}
