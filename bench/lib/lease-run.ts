// The runner's side of the lease workloads: start the load process (bench/lease-client.ts) against one
// fresh server, sample the server's CPU and RSS from /proc at the markers it prints, turn its result into
// one set of figures per workload and server; then medians over rounds, the summary JSON lines and the table.
import { fileURLToPath } from 'node:url'
import { LoadProcess } from './child.js'
import { processCpuSeconds, processRssMiB, ServerCpuWindow, type BenchServer, type ServerName } from './servers.js'
import { median } from './stats.js'
import { fmt, present, printRows, ratio } from './table.js'
import { MEASURE_END, MEASURE_START } from './workloads.js'
import {
  MARK_EXPIRED, MARK_GRANTS_DONE, MARK_SETUP_START,
  type ChurnResult, type ChurnWorkload, type ExpiryResult, type ExpiryWorkload, type LeaseClientConfig, type LeaseWorkload,
} from './lease-workloads.js'

const LEASE_CLIENT_JS = fileURLToPath(new URL('../lease-client.js', import.meta.url))

export interface LeaseParams {
  readonly seconds: number
  readonly warmupSeconds: number
  readonly keySize: number
  readonly valueSize: number
  /** Override the expiry workload's lease count and TTL (--expiry-leases, --expiry-ttl). */
  readonly expiryLeases: number | undefined
  readonly expiryTtlSeconds: number | undefined
}

export type ChurnFigures = ChurnResult & {
  readonly kind: 'churn'
  /** Server CPU over the window, in % of one core; null when /proc is unavailable. */
  readonly serverCpuPct: number | null
  /** Server CPU µs per completed cycle (grant + keep-alive + revoke). */
  readonly serverUsPerCycle: number | null
  readonly serverRssMiB: number | null
}

export type ExpiryFigures = ExpiryResult & {
  readonly kind: 'expiry'
  /** Server CPU seconds while granting and putting, and from the end of that until every key was gone. */
  readonly serverCpuSetupSeconds: number | null
  readonly serverCpuExpirySeconds: number | null
  /** Server RSS with every lease and key live (at the end of setup), and at the end. */
  readonly serverRssLiveMiB: number | null
  readonly serverRssEndMiB: number | null
}

export type LeaseFigures = ChurnFigures | ExpiryFigures

const round3 = (x: number): number => Number(x.toFixed(3))
const rssOf = (pid: number): number | null => {
  const r = processRssMiB(pid)
  return r === undefined ? null : Number(r.toFixed(1))
}

/** The expiry workload with the --expiry-* overrides applied. */
export function effectiveExpiry(w: ExpiryWorkload, p: LeaseParams): ExpiryWorkload {
  return { ...w, leases: p.expiryLeases ?? w.leases, ttlSeconds: p.expiryTtlSeconds ?? w.ttlSeconds }
}

async function runChurn(server: BenchServer, w: ChurnWorkload, p: LeaseParams, label: string): Promise<ChurnFigures> {
  const cfg: LeaseClientConfig = {
    role: 'churn', endpoint: server.endpoint, clients: w.clients, channels: w.channels, seconds: p.seconds, warmupSeconds: p.warmupSeconds,
  }
  const cpuWindow = new ServerCpuWindow(server.pid, MEASURE_START, MEASURE_END)
  const child = new LoadProcess(`${label} lease client`, LEASE_CLIENT_JS, ['--config', JSON.stringify(cfg)], (line) => cpuWindow.onLine(line))
  try {
    const r = await child.result<ChurnResult>()
    const cpuPct = cpuWindow.pct
    return {
      ...r, kind: 'churn', serverCpuPct: cpuPct,
      serverUsPerCycle: cpuPct === null || r.cyclesPerSec === 0 ? null : Number(((cpuPct * 1e4) / r.cyclesPerSec).toFixed(1)),
      serverRssMiB: rssOf(server.pid),
    }
  } finally {
    child.kill()
  }
}

async function runExpiry(server: BenchServer, w: ExpiryWorkload, p: LeaseParams, label: string): Promise<ExpiryFigures> {
  const cfg: LeaseClientConfig = {
    role: 'expiry', endpoint: server.endpoint, leases: w.leases, ttlSeconds: w.ttlSeconds, keySize: p.keySize, valueSize: p.valueSize,
  }
  const cpu: Partial<Record<string, number>> = {}
  let rssLive: number | null = null
  const child = new LoadProcess(`${label} lease client`, LEASE_CLIENT_JS, ['--config', JSON.stringify(cfg)], (line) => {
    if (line === MARK_SETUP_START || line === MARK_GRANTS_DONE || line === MARK_EXPIRED) cpu[line] = processCpuSeconds(server.pid)
    if (line === MARK_GRANTS_DONE) rssLive = rssOf(server.pid)
  })
  try {
    const r = await child.result<ExpiryResult>()
    const span = (a: string, b: string): number | null => {
      const x = cpu[a]
      const y = cpu[b]
      return x === undefined || y === undefined ? null : round3(y - x)
    }
    return {
      ...r, kind: 'expiry',
      serverCpuSetupSeconds: span(MARK_SETUP_START, MARK_GRANTS_DONE),
      serverCpuExpirySeconds: span(MARK_GRANTS_DONE, MARK_EXPIRED),
      serverRssLiveMiB: rssLive,
      serverRssEndMiB: rssOf(server.pid),
    }
  } finally {
    child.kill()
  }
}

/** Run one lease workload against one (fresh) server. `label` names the load process in errors. */
export function runLeaseWorkload(server: BenchServer, w: LeaseWorkload, p: LeaseParams, label: string): Promise<LeaseFigures> {
  switch (w.kind) {
    case 'churn': return runChurn(server, w, p, label)
    case 'expiry': return runExpiry(server, effectiveExpiry(w, p), p, label)
  }
}

// ---------------------------------------------------------------------------------------------------
// Summaries over rounds, JSON summary lines and the table

/** One lease measurement as bench/run.ts records it. */
export type LeaseMeasurement = LeaseFigures & { readonly round: number; readonly workload: string; readonly server: ServerName }

interface ChurnSummary {
  readonly cyclesPerSec: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly grantP50Ms: number
  readonly keepAliveP50Ms: number
  readonly revokeP50Ms: number
  readonly serverCpuPct: number | null
  readonly serverUsPerCycle: number | null
  readonly clientCpuPct: number
  readonly errors: number
}

interface ExpirySummary {
  readonly setupSeconds: number
  /** null when at least half the rounds did not see every key go. */
  readonly expirySeconds: number | null
  readonly overdueSeconds: number | null
  readonly firstDeleteSeconds: number | null
  readonly deletes: number
  readonly deletesDuringSetup: number
  readonly deleteRevisions: number
  readonly remainingKeys: number
  readonly grantedTtlSeconds: number
  readonly serverCpuSetupSeconds: number | null
  readonly serverCpuExpirySeconds: number | null
  readonly serverRssLiveMiB: number | null
  readonly errors: number
}

export type LeaseSummary =
  | { readonly kind: 'churn'; readonly w: ChurnWorkload; readonly etcd: ChurnSummary; readonly lite: ChurnSummary }
  | { readonly kind: 'expiry'; readonly w: ExpiryWorkload; readonly etcd: ExpirySummary; readonly lite: ExpirySummary }

function summarizeChurn(ms: readonly ChurnFigures[]): ChurnSummary {
  return {
    cyclesPerSec: median(ms.map((m) => m.cyclesPerSec)),
    p50Ms: median(ms.map((m) => m.p50Ms)),
    p99Ms: median(ms.map((m) => m.p99Ms)),
    grantP50Ms: median(ms.map((m) => m.grant.p50Ms)),
    keepAliveP50Ms: median(ms.map((m) => m.keepAlive.p50Ms)),
    revokeP50Ms: median(ms.map((m) => m.revoke.p50Ms)),
    serverCpuPct: present(ms.map((m) => m.serverCpuPct)),
    serverUsPerCycle: present(ms.map((m) => m.serverUsPerCycle)),
    clientCpuPct: median(ms.map((m) => m.clientCpuPct)),
    errors: ms.reduce((a, m) => a + m.errors, 0),
  }
}

function summarizeExpiry(ms: readonly ExpiryFigures[]): ExpirySummary {
  // An unfinished round (null) sorts as +∞: it wins the median when at least half the rounds had it.
  const time = (xs: readonly (number | null)[]): number | null =>
    xs.length === 0 || xs.filter((x) => x === null).length * 2 >= xs.length ? null : median(xs.map((x) => x ?? Number.POSITIVE_INFINITY))
  return {
    setupSeconds: median(ms.map((m) => m.setupSeconds)),
    expirySeconds: time(ms.map((m) => m.expirySeconds)),
    overdueSeconds: time(ms.map((m) => m.overdueSeconds)),
    firstDeleteSeconds: present(ms.map((m) => m.firstDeleteSeconds)),
    deletes: median(ms.map((m) => m.deletes)),
    deletesDuringSetup: median(ms.map((m) => m.deletesDuringSetup)),
    deleteRevisions: median(ms.map((m) => m.deleteRevisions)),
    remainingKeys: median(ms.map((m) => m.remainingKeys)),
    grantedTtlSeconds: median(ms.map((m) => m.grantedTtlSeconds)),
    serverCpuSetupSeconds: present(ms.map((m) => m.serverCpuSetupSeconds)),
    serverCpuExpirySeconds: present(ms.map((m) => m.serverCpuExpirySeconds)),
    serverRssLiveMiB: present(ms.map((m) => m.serverRssLiveMiB)),
    errors: ms.reduce((a, m) => a + m.errors, 0),
  }
}

/** Medians over rounds of workload `w` (with the --expiry-* overrides applied) for both servers. */
export function summarizeLease(w: LeaseWorkload, p: LeaseParams, results: readonly LeaseMeasurement[]): LeaseSummary {
  const of = (n: ServerName): LeaseMeasurement[] => results.filter((r) => r.workload === w.name && r.server === n)
  switch (w.kind) {
    case 'churn': {
      const pick = (n: ServerName): ChurnFigures[] => of(n).filter((m): m is LeaseMeasurement & ChurnFigures => m.kind === 'churn')
      return { kind: 'churn', w, etcd: summarizeChurn(pick('etcd')), lite: summarizeChurn(pick('etcdlite')) }
    }
    case 'expiry': {
      const pick = (n: ServerName): ExpiryFigures[] => of(n).filter((m): m is LeaseMeasurement & ExpiryFigures => m.kind === 'expiry')
      return { kind: 'expiry', w: effectiveExpiry(w, p), etcd: summarizeExpiry(pick('etcd')), lite: summarizeExpiry(pick('etcdlite')) }
    }
  }
}

/**
 * The summary JSON line's ratios, every one > 1 when etcdlite is better: throughput etcdlite/etcd; times
 * and CPU per cycle etcd/etcdlite.
 */
export function leaseRatios(s: LeaseSummary): Record<string, number | null> {
  switch (s.kind) {
    case 'churn': return {
      cyclesRatio: ratio(s.lite.cyclesPerSec, s.etcd.cyclesPerSec),
      p99Ratio: ratio(s.etcd.p99Ms, s.lite.p99Ms),
      cpuPerCycleRatio: ratio(s.etcd.serverUsPerCycle, s.lite.serverUsPerCycle),
    }
    case 'expiry': return { timeRatio: ratio(s.etcd.expirySeconds, s.lite.expirySeconds) }
  }
}

export function describeLease(w: LeaseWorkload): string {
  switch (w.kind) {
    case 'churn': return `${w.clients} client(s) on ${w.channels} connection(s), each cycle grant → 1 keep-alive on its stream → revoke`
    case 'expiry': return `${w.leases} leases of TTL ${w.ttlSeconds} s, one key each, left to expire`
  }
}

export function printLeaseTables(p: LeaseParams & { readonly rounds: number }, sums: readonly LeaseSummary[]): void {
  const out = process.stdout
  const churn = sums.filter((s): s is Extract<LeaseSummary, { kind: 'churn' }> => s.kind === 'churn')
  const expiry = sums.filter((s): s is Extract<LeaseSummary, { kind: 'expiry' }> => s.kind === 'expiry')
  out.write(`\nlease: etcd vs etcdlite — ${p.rounds} round(s), fresh server per measurement; medians over rounds\n`)
  for (const s of sums) out.write(`  ${s.w.name}: ${describeLease(s.w)}\n`)
  out.write('ratios: throughput = etcdlite/etcd; times and CPU per op = etcd/etcdlite. Every ratio > 1 means etcdlite is better.\n')
  if (churn.length > 0) {
    out.write(`\nchurn (${p.seconds} s window after ${p.warmupSeconds} s warm-up). cyc/s = grant+keep-alive+revoke cycles per second; ` +
      'p50/p99 = cycle latency in ms;\ngrant/ka/rev = each RPC\'s p50 in ms; µs/cyc = server CPU per cycle; cpu ratio = etcd µs/cyc ÷ etcdlite µs/cyc.\n\n')
    printRows(
      ['workload', 'etcd cyc/s', 'lite cyc/s', 'ratio', 'etcd p50', 'lite p50', 'etcd p99', 'lite p99', 'p99 ratio',
        'grant/ka/rev etcd', 'grant/ka/rev lite', 'srv cpu% e/l', 'etcd µs/cyc', 'lite µs/cyc', 'cpu ratio', 'cli cpu% e/l'],
      churn.map(({ w, etcd, lite }) => [
        w.name, fmt(etcd.cyclesPerSec, 0), fmt(lite.cyclesPerSec, 0), fmt(ratio(lite.cyclesPerSec, etcd.cyclesPerSec), 2),
        fmt(etcd.p50Ms, 2), fmt(lite.p50Ms, 2), fmt(etcd.p99Ms, 2), fmt(lite.p99Ms, 2), fmt(ratio(etcd.p99Ms, lite.p99Ms), 2),
        `${fmt(etcd.grantP50Ms, 2)}/${fmt(etcd.keepAliveP50Ms, 2)}/${fmt(etcd.revokeP50Ms, 2)}`,
        `${fmt(lite.grantP50Ms, 2)}/${fmt(lite.keepAliveP50Ms, 2)}/${fmt(lite.revokeP50Ms, 2)}`,
        `${fmt(etcd.serverCpuPct, 0)}/${fmt(lite.serverCpuPct, 0)}`,
        fmt(etcd.serverUsPerCycle, 0), fmt(lite.serverUsPerCycle, 0), fmt(ratio(etcd.serverUsPerCycle, lite.serverUsPerCycle), 2),
        `${fmt(etcd.clientCpuPct, 0)}/${fmt(lite.clientCpuPct, 0)}`,
      ]),
    )
  }
  if (expiry.length > 0) {
    out.write('\nexpiry: s = from the last grant\'s response until the watch saw every key deleted (ideal ≈ the TTL); ratio = etcd s ÷ etcdlite s\n' +
      '(> 1: etcdlite faster); late = s − granted TTL; first = first DELETE, from the last grant (< 0: during setup);\n' +
      'revs = distinct revisions of the DELETEs; left = keys still there at the end; setup = grant+put phase; cpu s = server CPU in setup/expiry.\n' +
      'etcd 3.4 revokes at most 500 expired leases per 500 ms tick (leaseRevokeRate 1000/s), so N leases need ≈ N/1000 s past the first expiry.\n\n')
    printRows(
      ['workload', 'etcd s', 'lite s', 'ratio', 'late e/l', 'first e/l', 'deletes e/l', 'revs e/l', 'left e/l', 'setup s e/l', 'cpu s etcd', 'cpu s lite', 'RSS live MiB e/l'],
      expiry.map(({ w, etcd, lite }) => [
        w.name, fmt(etcd.expirySeconds, 2), fmt(lite.expirySeconds, 2), fmt(ratio(etcd.expirySeconds, lite.expirySeconds), 2),
        `${fmt(etcd.overdueSeconds, 2)}/${fmt(lite.overdueSeconds, 2)}`, `${fmt(etcd.firstDeleteSeconds, 2)}/${fmt(lite.firstDeleteSeconds, 2)}`,
        `${fmt(etcd.deletes, 0)}/${fmt(lite.deletes, 0)}`, `${fmt(etcd.deleteRevisions, 0)}/${fmt(lite.deleteRevisions, 0)}`,
        `${fmt(etcd.remainingKeys, 0)}/${fmt(lite.remainingKeys, 0)}`, `${fmt(etcd.setupSeconds, 2)}/${fmt(lite.setupSeconds, 2)}`,
        `${fmt(etcd.serverCpuSetupSeconds, 2)}/${fmt(etcd.serverCpuExpirySeconds, 2)}`, `${fmt(lite.serverCpuSetupSeconds, 2)}/${fmt(lite.serverCpuExpirySeconds, 2)}`,
        `${fmt(etcd.serverRssLiveMiB, 0)}/${fmt(lite.serverRssLiveMiB, 0)}`,
      ]),
    )
  }
  const errs = sums.filter((s) => s.etcd.errors + s.lite.errors > 0)
  if (errs.length > 0) out.write(`\nWARNING: lease errors in ${errs.map((s) => s.w.name).join(', ')} (see JSON lines: firstError)\n`)
}
