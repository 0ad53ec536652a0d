// The benchmark's targets as a checklist computed from the JSON lines of one run, with a target
// not met marked out of reach when the run's own ceilings rule it out (report-reach.ts).
import { commitOutOfReach, commitShareOutOfReach, fanoutCommitOutOfReach, fanoutOutOfReach, kvOutOfReach, type FanoutRun, type OutOfReach } from './report-reach.js'
import { collectMachineInfo } from './report-meta.js'
import {
  clientMainPct, fmtNum, isClientBound, fmtPct, fmtRatio, medianOf, num, parseLines, ratioOf, str, sub, type Obj, type Parsed,
} from './report-lines.js'

// ---------------------------------------------------------------------------------------------------
// Targets

/** 'out of reach': not met, and the run's own ceilings show no server could meet it here (report-reach.ts). */
export type Verdict = 'yes' | 'no' | 'out of reach' | '-'

export interface TargetRow {
  readonly target: string
  readonly measured: string
  readonly met: Verdict
  readonly note: string
}

export const verdict = (ok: boolean | null): Verdict => (ok === null ? '-' : ok ? 'yes' : 'no')

/** The benchmark's targets, each computed from the lines; '-' when the run did not measure it. */
/** `cores`: the run's machine's (default: this one's), for the CPU budgets of report-reach.ts. */
export function computeTargets(lines: readonly object[], cores = collectMachineInfo().cores): TargetRow[] {
  return targetsOf(parseLines(lines), cores)
}

/** A target not met that the bound rules out gets 'out of reach' and the bound's reason as its note. */
function reachable(row: TargetRow, beyond: OutOfReach): TargetRow {
  return row.met === 'no' && beyond !== undefined ? { ...row, met: 'out of reach', note: beyond } : row
}

/**
 * Whether a fan-out target is out of reach (report-reach.ts): the CPU budget from the summary, the put-16conn
 * RPC ceiling and the push ceiling; failing that, for a writer at full speed, the put-16conn commit ceiling.
 */
function fanoutBeyond(p: Parsed, w: string, s: Obj | undefined, cores: number): OutOfReach {
  const run = (o: Obj | undefined): FanoutRun | undefined => {
    const ev = num(o, 'eventsPerSec')
    const puts = num(o, 'putsPerSec')
    const writer = num(o, 'writerCpuPct')
    const client = num(o, 'clientUsPerEvent')
    return ev === null || puts === null || writer === null || client === null ? undefined : { eventsPerSec: ev, putsPerSec: puts, writerCpuPct: writer, clientUsPerEvent: client }
  }
  const etcd = run(sub(s, 'etcd'))
  const lite = run(sub(s, 'etcdlite'))
  const watchers = num(s, 'watchers')
  if (etcd === undefined || lite === undefined || watchers === null) return undefined
  // The writer is put-16conn's load: that workload's RPC ceiling is what answering its puts costs at least.
  const ceilingRounds = p.rpcRounds.filter((r) => str(r, 'workload') === 'put-16conn')
  const ceilingUsPerPut = medianOf(ceilingRounds.map((r) => num(r, 'serverCpuUsPerOp')))
  const ceilingClient = medianOf(ceilingRounds.map((r) => {
    const cpu = num(r, 'clientCpuPct')
    const ops = num(r, 'opsPerSec')
    return cpu === null || ops === null || ops <= 0 ? null : cpu / 100 / ops
  }))
  const pushUsPerEvent = medianOf(p.pushRounds.filter((r) => str(r, 'workload') === w).map((r) => num(r, 'serverUsPerEvent')))
  const cpu = fanoutOutOfReach({
    factor: 1.5, watchers, cores, etcd, lite, ceilingUsPerPut,
    ceilingWriterCoresPerPut: ceilingClient, pushUsPerEvent,
  })
  // A writer at full speed is put-16conn's load, so its puts are bounded by that workload's commit ceiling too.
  const fullSpeed = s !== undefined && s.rate === null
  return cpu ?? (fullSpeed ? fanoutCommitOutOfReach(1.5, watchers, etcd.eventsPerSec, num(p.ceilingOf.get('commit:put-16conn'), 'ceiling')) : undefined)
}

/**
 * When the RPC ceiling of `w` was measured with the load generator's main thread at CLIENT_BOUND_PCT or more (isClientBound):
 * that ceiling is the client's limit on this machine, not grpc-js's server's. '' otherwise.
 */
function clientBoundNote(p: Parsed, w: string): string {
  const main = clientMainPct(p.rpcRounds.filter((r) => str(r, 'workload') === w))
  if (main === null || !isClientBound(main)) return ''
  return `the load generator's main thread was ${fmtNum(main, 0)} % busy while the RPC ceiling was measured: the ceiling is the client's limit here, not the server's`
}

export function targetsOf(p: Parsed, cores: number): TargetRow[] {
  const rows: TargetRow[] = []
  const opsRatio = (w: string): number | null => {
    const s = p.kv.get(w)
    return num(s, 'opsRatio') ?? ratioOf(num(sub(s, 'etcdlite'), 'opsPerSec'), num(sub(s, 'etcd'), 'opsPerSec'))
  }
  for (const w of ['put-16conn', 'range-16conn']) {
    const r = opsRatio(w)
    const etcdOps = num(sub(p.kv.get(w), 'etcd'), 'opsPerSec')
    // The commit ceiling (put workloads only) bounds a put more tightly than the RPC ceiling when it is lower.
    const commit = num(p.ceilingOf.get(`commit:${w}`), 'ceiling')
    const beyond = kvOutOfReach(1.5, etcdOps, num(p.ceilingOf.get(`rpc:${w}`), 'ceiling')) ?? commitOutOfReach(1.5, etcdOps, commit)
    rows.push(reachable({ target: `${w}: etcdlite ops/s ≥ 1.5 × etcd`, measured: fmtRatio(r), met: verdict(r === null ? null : r >= 1.5), note: '' }, beyond))
    if (w === 'put-16conn') {
      const lite = num(sub(p.kv.get(w), 'etcdlite'), 'opsPerSec') ?? num(p.ceilingOf.get(`rpc:${w}`), 'lite')
      const ceiling = num(p.ceilingOf.get(`rpc:${w}`), 'ceiling')
      const share = lite === null || ceiling === null || ceiling <= 0 ? null : (100 * lite) / ceiling
      const ofCommit = lite === null || commit === null || commit <= 0 ? '' : `; ${fmtPct((100 * lite) / commit)} of the commit ceiling (${fmtNum(commit, 0)} ops/s)`
      rows.push(reachable({
        target: `${w}: etcdlite ≥ 85 % of the RPC ceiling`,
        measured: share === null ? '-' : `${fmtPct(share)} (${fmtNum(lite, 0)} of ${fmtNum(ceiling, 0)} ops/s)${ofCommit}`,
        met: verdict(share === null ? null : share >= 85), note: ceiling === null && p.kv.has(w) ? 'no RPC ceiling in this run' : clientBoundNote(p, w),
      }, commitShareOutOfReach(0.85, ceiling, commit)))
    }
  }
  for (const w of ['watch-fanout-100', 'watch-fanout-10k']) {
    const s = p.watch.get(w)
    const e = sub(s, 'etcd')
    const l = sub(s, 'etcdlite')
    const evRatio = num(s, 'eventsRatio') ?? ratioOf(num(l, 'eventsPerSec'), num(e, 'eventsPerSec'))
    const bothRan = num(e, 'eventsPerSec') !== null && num(l, 'eventsPerSec') !== null
    const ep99 = num(e, 'p99Ms')
    const lp99 = num(l, 'p99Ms')
    // A null p99 of a server that ran is "lost" (the quantile never arrived): worse than any number.
    const p99Ok = !bothRan ? null : lp99 === null ? false : ep99 === null ? true : ep99 / lp99 >= 1
    const p99Text = !bothRan ? '-' : lp99 === null ? 'etcdlite p99 lost' : ep99 === null ? 'etcd p99 lost' : `p99 ${fmtRatio(ep99 / lp99)}`
    rows.push(reachable({
      target: `${w}: events/s ≥ 1.5 × etcd at no worse p99`,
      measured: evRatio === null ? '-' : `events ${fmtRatio(evRatio)}, ${p99Text}`,
      met: verdict(evRatio === null || p99Ok === null ? null : evRatio >= 1.5 && p99Ok),
      note: '',
    }, fanoutBeyond(p, w, s, cores)))
  }
  const bpw = num(sub(p.watch.get('watch-mem-100k'), 'etcdlite'), 'bytesPerWatcher')
  rows.push({ target: 'watch-mem-100k: etcdlite memory per watcher ≤ 1 KiB', measured: bpw === null ? '-' : `${fmtNum(bpw, 0)} B`, met: verdict(bpw === null ? null : bpw <= 1024), note: '' })
  const st = p.startup.get('startup-1m') ?? [...p.startup.values()][0]
  const eS = num(sub(st, 'etcd'), 'startupSeconds')
  const lS = num(sub(st, 'etcdlite'), 'startupSeconds')
  const sr = num(st, 'startupRatio') ?? ratioOf(eS, lS)
  const keys = num(st, 'keys')
  rows.push({
    target: 'startup-1m: start-up with 1M keys no slower than etcd (etcd s ÷ etcdlite s ≥ 1)',
    measured: sr === null ? '-' : `${fmtRatio(sr)} (etcd ${fmtNum(eS, 2)} s, etcdlite ${fmtNum(lS, 2)} s)`,
    met: verdict(sr === null ? null : sr >= 1),
    note: keys !== null && keys !== 1_000_000 ? `measured with ${fmtNum(keys, 0)} keys, not 1,000,000` : 'after a clean stop (etcdlite reads its index checkpoint)',
  })
  const eK = num(sub(st, 'etcd'), 'crashStartupSeconds')
  const lK = num(sub(st, 'etcdlite'), 'crashStartupSeconds')
  const kr = num(st, 'crashStartupRatio') ?? ratioOf(eK, lK)
  rows.push({
    target: 'startup-1m after SIGKILL: the same, restarting after a crash',
    measured: kr === null ? '-' : `${fmtRatio(kr)} (etcd ${fmtNum(eK, 2)} s, etcdlite ${fmtNum(lK, 2)} s)`,
    met: verdict(kr === null ? null : kr >= 1),
    note: 'killed right after loading: etcd replays its WAL, etcdlite reads its newest background index checkpoint and replays the log past it',
  })
  return rows
}
