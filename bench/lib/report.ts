// bench/RESULTS.md and bench/results/*.svg from the JSON lines of one `npm run bench` run (issue 6,
// scope item 4): the machine, versions and flags; the issue's targets as a checklist computed from the
// lines; a table per group (KV, watch, lease, start-up, storage ceiling) and the charts. Input is read
// defensively: a subset run leaves groups out, and a missing or null figure shows as '-', never a crash.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { arch, cpus, release, totalmem, type } from 'node:os'
import { join } from 'node:path'
import { fanoutOutOfReach, kvOutOfReach, type FanoutRun, type OutOfReach } from './report-reach.js'
import { median } from './stats.js'
import { renderBarChart, type ChartGroup, type ChartSeries } from './svg-chart.js'

/** The machine the run was on (collectMachineInfo() at run time, so a regenerated report keeps it). */
export interface MachineInfo {
  readonly cpuModel: string
  readonly cores: number
  readonly ramGiB: number
  /** e.g. 'Linux 6.1.0-18-amd64'. */
  readonly kernel: string
  readonly arch: string
}

/** What the JSON lines do not say about the run. */
export interface ReportMeta {
  /** The exact command line, flags included (see commandLine()). */
  readonly command: string
  /** First line of `etcd --version` (see etcdVersionLine()); null when unknown. */
  readonly etcdVersion: string | null
  /** Both servers ran with --unsafe-no-fsync; null when unknown (a report regenerated without meta). */
  readonly unsafeNoFsync: boolean | null
  /** ISO date of the run; default: now. */
  readonly date?: string
  /** Default: this machine, now. */
  readonly machine?: MachineInfo
  /** Default: process.version. */
  readonly nodeVersion?: string
  /** Default: the version in package.json. */
  readonly etcdliteVersion?: string
}

/** The files writeReport() writes, relative to its outDir. */
export const RESULTS_FILE = 'RESULTS.md'
export const CHART_DIR = 'results'
/** Every chart the report can draw; charts of this set a run did not produce are removed, nothing else is. */
export const CHART_FILES = ['kv-ops.svg', 'kv-p99.svg', 'watch-events.svg', 'watch-p99.svg', 'lease-churn.svg', 'lease-expiry.svg', 'startup.svg'] as const
type ChartFile = (typeof CHART_FILES)[number]

/** The series colours: the same for a server in every chart. */
const LITE: ChartSeries = { name: 'etcdlite', color: '#2f6fdf' }
const ETCD: ChartSeries = { name: 'etcd', color: '#e8743b' }
const CEILING: ChartSeries = { name: 'ceiling', color: '#9aa1a9' }

// ---------------------------------------------------------------------------------------------------
// Narrowing the JSON lines, once

type Obj = Readonly<Record<string, unknown>>

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x)
/** A finite number field, else null (JSON turns NaN into null; a field may be absent). */
const num = (o: Obj | undefined, k: string): number | null => {
  const v = o?.[k]
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}
const str = (o: Obj | undefined, k: string): string | null => {
  const v = o?.[k]
  return typeof v === 'string' ? v : null
}
const sub = (o: Obj | undefined, k: string): Obj | undefined => {
  const v = o?.[k]
  return isObj(v) ? v : undefined
}
const medianOf = (xs: readonly (number | null)[]): number | null => {
  const got = xs.filter((x): x is number => x !== null)
  return got.length === 0 ? null : median(got)
}
const ratioOf = (a: number | null, b: number | null): number | null => (a === null || b === null || b === 0 ? null : a / b)

/** The lines of one run, sorted by what they describe. A later summary for the same workload wins. */
interface Parsed {
  readonly kv: Map<string, Obj>
  readonly watch: Map<string, Obj>
  readonly lease: Map<string, Obj>
  readonly startup: Map<string, Obj>
  /** Ceiling summaries (`ceilingOf`), keyed `rpc:<workload>` or `push:<workload>`. */
  readonly ceilingOf: Map<string, Obj>
  readonly rpcRounds: Obj[]
  readonly pushRounds: Obj[]
  readonly storage: Obj[]
  readonly kvResults: Obj[]
}

function parseLines(lines: readonly object[]): Parsed {
  const p: Parsed = {
    kv: new Map(), watch: new Map(), lease: new Map(), startup: new Map(), ceilingOf: new Map(), rpcRounds: [], pushRounds: [], storage: [], kvResults: [],
  }
  for (const line of lines) {
    if (!isObj(line)) continue
    const t = str(line, 'type')
    const kind = str(line, 'kind')
    const workload = str(line, 'workload')
    if (t === 'ceiling') {
      if (kind === 'rpc') p.rpcRounds.push(line)
      else if (kind === 'push') p.pushRounds.push(line)
      else if (kind === 'storage') p.storage.push(line)
    } else if (t === 'result') {
      if (workload !== null && str(line, 'op') !== null && str(line, 'server') !== null) p.kvResults.push(line)
    } else if (t === 'summary' && workload !== null) {
      const ceilingOf = str(line, 'ceilingOf')
      if (ceilingOf !== null) p.ceilingOf.set(`${kind ?? '?'}:${ceilingOf}`, line)
      else if (kind === 'fanout' || kind === 'catchup' || kind === 'mem') p.watch.set(workload, line)
      else if (kind === 'churn' || kind === 'expiry') p.lease.set(workload, line)
      else if (workload.startsWith('startup') || 'startupRatio' in line) p.startup.set(workload, line)
      else if (str(line, 'op') !== null) p.kv.set(workload, line)
    }
  }
  return p
}

// ---------------------------------------------------------------------------------------------------
// Formatting

/** `x` with `digits` decimals and comma-grouped thousands (locale-free); '-' when missing. */
export function fmtNum(x: number | null, digits: number): string {
  if (x === null || !Number.isFinite(x)) return '-'
  const [int = '', frac] = x.toFixed(digits).split('.')
  const sign = int.startsWith('-') ? '-' : ''
  const grouped = int.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${sign}${grouped}${frac === undefined ? '' : `.${frac}`}`
}
const fmtRatio = (x: number | null): string => (x === null ? '-' : `${x.toFixed(2)}×`)
const fmtPct = (x: number | null): string => (x === null ? '-' : `${x.toFixed(0)} %`)
/** A latency: '-' when the server was not measured, 'lost' when it was but the quantile never arrived. */
const fmtLatency = (ms: number | null, measured: boolean): string => (ms !== null ? fmtNum(ms, 2) : measured ? 'lost' : '-')
const pair = (a: string, b: string): string => `${a} / ${b}`

const mdCell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ')
/** A GitHub table: the first column left-aligned, the others right-aligned (numbers) unless `textual`. */
function mdTable(header: readonly string[], rows: readonly (readonly string[])[], textual = false): string {
  const line = (cells: readonly string[]): string => `| ${cells.map(mdCell).join(' | ')} |`
  const align = header.map((_, i) => (i === 0 || textual ? ':--' : '--:'))
  return [line(header), `|${align.join('|')}|`, ...rows.map(line)].join('\n')
}
/** Inline code that survives backticks in the text. */
function mdCode(s: string): string {
  const ticks = s.includes('`') ? '``' : '`'
  return `${ticks}${ticks.length > 1 ? ' ' : ''}${s}${ticks.length > 1 ? ' ' : ''}${ticks}`
}

// ---------------------------------------------------------------------------------------------------
// Machine and versions

/** CPU model, cores, RAM, kernel of this machine. */
export function collectMachineInfo(): MachineInfo {
  let cpuModel = cpus()[0]?.model ?? 'unknown'
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))
    if (m?.[1] !== undefined) cpuModel = m[1].trim()
  } catch {
    // not Linux: keep os.cpus()'s model
  }
  return { cpuModel, cores: cpus().length, ramGiB: Number((totalmem() / 2 ** 30).toFixed(1)), kernel: `${type()} ${release()}`, arch: arch() }
}

/** The first line of `<bin> --version` (e.g. 'etcd Version: 3.4.23'), or null when it cannot be run. */
export function etcdVersionLine(bin = 'etcd'): string | null {
  try {
    const out = execFileSync(bin, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 })
    return out.split('\n')[0]?.trim() || null
  } catch {
    return null
  }
}

/** `prefix` and `argv`, each argument shell-quoted when it needs it, as a user would retype it. */
export function commandLine(argv: readonly string[], prefix = 'node build/bench/run.js'): string {
  const q = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)
  // `npm run bench --` with nothing after it is just `npm run bench`.
  return [argv.length === 0 ? prefix.replace(/ --$/, '') : prefix, ...argv.map(q)].join(' ')
}

function packageVersion(): string | null {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'))
    return isObj(pkg) ? str(pkg, 'version') : null
  } catch {
    return null
  }
}

/** The JSON objects among `text`'s lines (a saved `npm run bench` stdout); table rows and broken lines are skipped. */
export function parseJsonLines(text: string): object[] {
  const out: object[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line.startsWith('{')) continue
    try {
      const v: unknown = JSON.parse(line)
      if (isObj(v)) out.push(v)
    } catch {
      // a truncated line: skip it
    }
  }
  return out
}

/** A ReportMeta from untyped JSON (a --meta file or a `"type":"meta"` line); undefined when it is not one. */
export function parseMeta(x: unknown): ReportMeta | undefined {
  if (!isObj(x)) return undefined
  const command = str(x, 'command')
  if (command === null) return undefined
  const m = sub(x, 'machine')
  const machine: MachineInfo | undefined = m === undefined ? undefined : {
    cpuModel: str(m, 'cpuModel') ?? 'unknown', cores: num(m, 'cores') ?? 0, ramGiB: num(m, 'ramGiB') ?? 0,
    kernel: str(m, 'kernel') ?? 'unknown', arch: str(m, 'arch') ?? 'unknown',
  }
  const unsafe = x['unsafeNoFsync']
  const date = str(x, 'date')
  const nodeVersion = str(x, 'nodeVersion')
  const etcdliteVersion = str(x, 'etcdliteVersion')
  return {
    command,
    etcdVersion: str(x, 'etcdVersion'),
    unsafeNoFsync: typeof unsafe === 'boolean' ? unsafe : null,
    ...(date === null ? {} : { date }),
    ...(machine === undefined ? {} : { machine }),
    ...(nodeVersion === null ? {} : { nodeVersion }),
    ...(etcdliteVersion === null ? {} : { etcdliteVersion }),
  }
}

// ---------------------------------------------------------------------------------------------------
// Targets (issue 6, scope item 5)

/** 'out of reach': not met, and the run's own ceilings show no server could meet it here (report-reach.ts). */
export type Verdict = 'yes' | 'no' | 'out of reach' | '-'

export interface TargetRow {
  readonly target: string
  readonly measured: string
  readonly met: Verdict
  readonly note: string
}

const verdict = (ok: boolean | null): Verdict => (ok === null ? '-' : ok ? 'yes' : 'no')

/** The targets of issue 6 scope item 5, each computed from the lines; '-' when the run did not measure it. */
/** `cores`: the run's machine's (default: this one's), for the CPU budgets of report-reach.ts. */
export function computeTargets(lines: readonly object[], cores = collectMachineInfo().cores): TargetRow[] {
  return targetsOf(parseLines(lines), cores)
}

/** A target not met that the bound rules out gets 'out of reach' and the bound's reason as its note. */
function reachable(row: TargetRow, beyond: OutOfReach): TargetRow {
  return row.met === 'no' && beyond !== undefined ? { ...row, met: 'out of reach', note: beyond } : row
}

/** The fan-out CPU budget (report-reach.ts) from the summary, the put-16conn RPC ceiling and the push ceiling. */
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
  return fanoutOutOfReach({
    factor: 1.5, watchers, cores, etcd, lite, ceilingUsPerPut,
    ceilingWriterCoresPerPut: ceilingClient, pushUsPerEvent,
  })
}

function targetsOf(p: Parsed, cores: number): TargetRow[] {
  const rows: TargetRow[] = []
  const opsRatio = (w: string): number | null => {
    const s = p.kv.get(w)
    return num(s, 'opsRatio') ?? ratioOf(num(sub(s, 'etcdlite'), 'opsPerSec'), num(sub(s, 'etcd'), 'opsPerSec'))
  }
  for (const w of ['put-16conn', 'range-16conn']) {
    const r = opsRatio(w)
    const beyond = kvOutOfReach(1.5, num(sub(p.kv.get(w), 'etcd'), 'opsPerSec'), num(p.ceilingOf.get(`rpc:${w}`), 'ceiling'))
    rows.push(reachable({ target: `${w}: etcdlite ops/s ≥ 1.5 × etcd`, measured: fmtRatio(r), met: verdict(r === null ? null : r >= 1.5), note: '' }, beyond))
    if (w === 'put-16conn') {
      const lite = num(sub(p.kv.get(w), 'etcdlite'), 'opsPerSec') ?? num(p.ceilingOf.get(`rpc:${w}`), 'lite')
      const ceiling = num(p.ceilingOf.get(`rpc:${w}`), 'ceiling')
      const share = lite === null || ceiling === null || ceiling <= 0 ? null : (100 * lite) / ceiling
      rows.push({
        target: `${w}: etcdlite ≥ 85 % of the RPC ceiling`,
        measured: share === null ? '-' : `${fmtPct(share)} (${fmtNum(lite, 0)} of ${fmtNum(ceiling, 0)} ops/s)`,
        met: verdict(share === null ? null : share >= 85), note: ceiling === null && p.kv.has(w) ? 'no RPC ceiling in this run' : '',
      })
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

// ---------------------------------------------------------------------------------------------------
// Tables and charts per group

interface Section {
  readonly title: string
  readonly text: string[]
}

const serverPair = (s: Obj | undefined): { e: Obj | undefined; l: Obj | undefined } => ({ e: sub(s, 'etcd'), l: sub(s, 'etcdlite') })

function kvSection(p: Parsed, charts: Map<ChartFile, string>): Section | undefined {
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
    ],
  }
}

function watchSection(p: Parsed, charts: Map<ChartFile, string>): Section | undefined {
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

function leaseSection(p: Parsed, charts: Map<ChartFile, string>): Section | undefined {
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

function startupSection(p: Parsed, charts: Map<ChartFile, string>): Section | undefined {
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

function storageSection(p: Parsed): Section | undefined {
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

// ---------------------------------------------------------------------------------------------------
// The report

export interface Report {
  readonly markdown: string
  /** File name under results/ → SVG text. */
  readonly charts: ReadonlyMap<string, string>
}

/** Build RESULTS.md and the charts in memory (pure apart from the meta defaults: machine, versions, date). */
export function buildReport(lines: readonly object[], meta: ReportMeta): Report {
  const p = parseLines(lines)
  const charts = new Map<ChartFile, string>()
  const m = meta.machine ?? collectMachineInfo()
  const durability = meta.unsafeNoFsync === null
    ? 'unknown (no run metadata)'
    : meta.unsafeNoFsync
      ? '**--unsafe-no-fsync on both servers** (no fsync on commit): not the durable default; the targets are defined for durable mode'
      : 'durable: both servers\' defaults (etcd fsyncs its WAL, etcdlite syncs each LevelDB commit)'
  const header = mdTable(['', ''], [
    ['date', meta.date ?? new Date().toISOString()],
    ['machine', `${m.cpuModel}, ${m.cores} cores, ${fmtNum(m.ramGiB, 1)} GiB RAM, ${m.kernel} (${m.arch})`],
    ['node', meta.nodeVersion ?? process.version],
    ['etcd', meta.etcdVersion ?? '-'],
    ['etcdlite', meta.etcdliteVersion ?? packageVersion() ?? '-'],
    ['command', mdCode(meta.command)],
    ['durability', durability],
  ], true)
  const targets = targetsOf(p, m.cores)
  const measured = targets.filter((t) => t.met !== '-')
  const mark = (v: Verdict): string => (v === 'yes' ? '✅ yes' : v === 'no' ? '❌ no' : v === 'out of reach' ? '⛔ no, out of reach here' : '-')
  const beyond = measured.filter((t) => t.met === 'out of reach').length
  const sections = [kvSection(p, charts), watchSection(p, charts), leaseSection(p, charts), startupSection(p, charts), storageSection(p)]
    .filter((s): s is Section => s !== undefined)
  const md: string[] = [
    '# etcdlite vs etcd: benchmark results',
    '',
    'Generated by `npm run bench` from the JSON lines of one run (regenerate: `node build/bench/report.js <results.jsonl>`). ' +
      'Both servers and every load generator shared this machine: compare only numbers from one run, and read the ratios. ' +
      'See [README.md](README.md) for what each workload does.',
    '',
    header,
    '',
    '## Targets (issue 6)',
    '',
    `${measured.filter((t) => t.met === 'yes').length} of ${measured.length} measured targets met` +
      `${measured.length < targets.length ? ` (${targets.length - measured.length} not measured in this run)` : ''}` +
      `${beyond === 0 ? '' : `; ${beyond} of those not met are out of reach on this machine, by the run's own ceilings (see the notes)`}.`,
    '',
    mdTable(['target', 'measured', 'met', 'note'], targets.map((t) => [t.target, t.measured, mark(t.met), t.note]), true),
    '',
  ]
  for (const s of sections) {
    const text = [...s.text]
    while (text[text.length - 1] === '') text.pop()
    md.push(`## ${s.title}`, '', ...text, '')
  }
  while (md[md.length - 1] === '') md.pop()
  return { markdown: `${md.join('\n')}\n`, charts }
}

/**
 * Write `<outDir>/RESULTS.md` and `<outDir>/results/*.svg` from the JSON lines of one run. Charts of
 * CHART_FILES that this run did not produce (a subset run) are removed, so none is stale; nothing else
 * in results/ is touched. Returns the paths written.
 */
export function writeReport(lines: readonly object[], meta: ReportMeta, outDir: string): string[] {
  const report = buildReport(lines, meta)
  const dir = join(outDir, CHART_DIR)
  mkdirSync(dir, { recursive: true })
  const written: string[] = []
  for (const f of CHART_FILES) {
    const svg = report.charts.get(f)
    const path = join(dir, f)
    if (svg === undefined) rmSync(path, { force: true })
    else {
      writeFileSync(path, svg)
      written.push(path)
    }
  }
  const md = join(outDir, RESULTS_FILE)
  writeFileSync(md, report.markdown)
  return [md, ...written]
}
