// bench/RESULTS.md from a run's records: the machine, the acceptance table of etcd's benchmark tool (medians
// of the rounds, ratio etcdlite/etcd), the measured ceilings and what each short workload meets, start-up and
// memory, the embedded API, the informer and the micro-benchmarks, with SVG charts next to it. A pure function of its input apart from the files it writes.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BenchRecord, EmbeddedRecord, FirstOpenRecord, MetaRecord, MicroRecord, StartupRecord, SyncFloorRecord, ToolRecord } from './records.js'
import type { ServerName } from './servers.js'
import { median, medianOf } from './stats.js'
import { renderBarChart, type BarChart, type ChartSeries } from './svg-chart.js'
import { toolArgs, type Workload } from './workloads.js'

const SERIES: readonly ChartSeries[] = [{ name: 'etcdlite', color: '#2f6fdf' }, { name: 'etcd', color: '#7a7a7a' }]

/** `x` with `digits` decimals and thousands separators, locale-free; '–' for null. */
export function fmt(x: number | null, digits = 0): string {
  if (x === null || !Number.isFinite(x)) return '–'
  const [int = '', frac] = Math.abs(x).toFixed(digits).split('.')
  return `${x < 0 ? '-' : ''}${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac === undefined ? '' : `.${frac}`}`
}

/** Milliseconds with one decimal and the unit, or '–'. */
const ms = (x: number | null): string => (x === null ? '–' : `${fmt(x, 1)} ms`)

/** etcdlite / etcd, 2 decimals and a ×, or '–' when either is missing. */
export function ratio(a: number | null, b: number | null): string {
  return a === null || b === null || b === 0 ? '–' : `${(a / b).toFixed(2)}×`
}

export interface ReportInput {
  readonly meta: MetaRecord
  readonly records: readonly BenchRecord[]
  /** The workloads the run selected, in table order. */
  readonly workloads: readonly Workload[]
  /** Request counts were multiplied by this (--quick). */
  readonly scale: number
  /** What went wrong during the run (failed parts, failed runs). */
  readonly problems: readonly string[]
}

export interface WorkloadRow {
  readonly workload: Workload
  readonly perSecond: Record<ServerName, number | null>
  /** The front ceiling server's median (bench/ceiling/front.ts); null when it was not run. */
  readonly front: number | null
  /** The same server behind etcdlite's own HTTP/2 front (`--filtered`); null when it was not run. */
  readonly filteredFront: number | null
  readonly p99Ms: Record<ServerName, number | null>
  readonly runs: Record<ServerName, readonly (number | null)[]>
  /** What each request cost in CPU, medians of the rounds; null where no run recorded it. */
  readonly cpu: Record<ServerName, CpuCost | null>
}

/** One server's CPU per request over a run of the tool, and how busy it and the machine were. */
export interface CpuCost {
  /** The server's CPU (all threads) per request, in µs. */
  readonly serverUs: number
  /** The tool's CPU per request, in µs. */
  readonly toolUs: number
  /** The server's main thread's CPU over the run's wall time: 1 = one core all the time. */
  readonly mainBusy: number
  /** The server's and the tool's CPU over the wall time: cores kept busy. */
  readonly coresBusy: number
}

/** The medians, field by field, of the CPU costs of `recs`; null when none has one. */
export function cpuCost(recs: readonly ToolRecord[]): CpuCost | null {
  const each = recs.flatMap((r) => (r.cpu === undefined || r.requests === undefined || r.requests <= 0 || r.cpu.wallMs <= 0 ? [] : [{ ...r.cpu, requests: r.requests }]))
  const med = (f: (c: (typeof each)[number]) => number): number => median(each.map(f))
  if (each.length === 0) return null
  return {
    serverUs: med((c) => (1000 * c.serverMs) / c.requests), toolUs: med((c) => (1000 * c.toolMs) / c.requests),
    mainBusy: med((c) => c.mainMs / c.wallMs), coresBusy: med((c) => (c.serverMs + c.toolMs) / c.wallMs),
  }
}

/** The medians of each workload's runs, per server. */
export function workloadRows(workloads: readonly Workload[], records: readonly BenchRecord[]): WorkloadRow[] {
  const tool = records.filter((r): r is ToolRecord => r.type === 'tool')
  return workloads.map((workload) => {
    const of = (s: ServerName): ToolRecord[] => tool.filter((r) => r.workload === workload.name && r.server === s).sort((a, b) => a.round - b.round)
    const per = (s: ServerName): number | null => medianOf(of(s).map((r) => r.perSecond))
    const p99 = (s: ServerName): number | null => (workload.latency ? medianOf(of(s).map((r) => r.p99Ms)) : null)
    return {
      workload,
      perSecond: { etcdlite: per('etcdlite'), etcd: per('etcd') },
      front: medianOf(tool.filter((r) => r.workload === workload.name && r.server === 'front').map((r) => r.perSecond)),
      filteredFront: medianOf(tool.filter((r) => r.workload === workload.name && r.server === 'front-filtered').map((r) => r.perSecond)),
      p99Ms: { etcdlite: p99('etcdlite'), etcd: p99('etcd') },
      runs: { etcdlite: of('etcdlite').map((r) => r.perSecond), etcd: of('etcd').map((r) => r.perSecond) },
      cpu: { etcdlite: cpuCost(of('etcdlite')), etcd: cpuCost(of('etcd')) },
    }
  })
}

function table(head: readonly string[], rows: readonly (readonly string[])[], align?: readonly ('l' | 'r')[]): string {
  const sep = head.map((_, i) => ((align?.[i] ?? 'l') === 'r' ? '---:' : '---'))
  return [head, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n')
}

function machineSection(m: MetaRecord): string {
  const load = (l: readonly number[]): string => l.map((x) => x.toFixed(2)).join(', ')
  const out = [
    table(['', ''], [
      ['date', m.date], ['command', `\`${m.command}\``], ['CPU', `${m.cpu}, ${m.cores} cores`], ['RAM', `${fmt(m.ramGiB, 1)} GiB`],
      ['kernel', m.kernel], ['node', m.node], ['etcd', m.etcd], ['etcdlite', m.etcdlite], ['benchmark tool', `\`${m.benchmark}\``],
      ['load average (1, 5, 15 min)', `${load(m.loadAvgStart)} at the start, ${load(m.loadAvgEnd)} at the end`],
    ]),
  ]
  // Load of other processes before the run started: the figures below had less than the whole machine.
  if ((m.loadAvgStart[0] ?? 0) > m.cores / 2) {
    out.push('', `**The machine was busy with other work when the run started (load ${load(m.loadAvgStart.slice(0, 1))} on ${m.cores} cores): read the figures as rough.**`)
  }
  return out.join('\n')
}

function toolSection(input: ReportInput, rows: readonly WorkloadRow[], charts: Map<string, BarChart>): string {
  if (rows.length === 0) return 'Not run (`--workloads none`, or `--parts` without `tool`).'
  const { meta } = input
  const lines: string[] = [
    `Each round starts a fresh etcdlite CLI (\`build/dist/etcdlite.js\`, as the package ships it) and a fresh \`etcd\`, each on an empty`,
    `data dir on disk with its default durability (every write synced before it is acknowledged), both on this`,
    `machine, and drives both with etcd's own benchmark tool. Before the round is measured each server gets the`,
    `selected workloads once at a tenth of their request counts, unmeasured, so that V8 has compiled`,
    `etcdlite's hot paths; then each workload runs on etcdlite, then on etcd (A, B, A, B…), on the same two`,
    `servers, so a workload meets the keys the ones before it wrote${rows.some((r) => r.front !== null) ? ' (then on the front ceiling server: see Ceilings)' : ''}. ${meta.rounds} round${meta.rounds === 1 ? '' : 's'}; each figure is the median`,
    `of the rounds; ratio = etcdlite / etcd (> 1: etcdlite serves more); p99 is the 99th percentile of the`,
    `requests' round trips as the tool measures them (none for watch: the tool times each event from the`,
    `arrival of its response, on the client).${input.scale === 1 ? '' : ` Request counts × ${input.scale} (--quick).`}`,
    '',
    table(['workload', 'unit', 'etcdlite', 'etcd', 'ratio', 'p99 etcdlite', 'p99 etcd'], rows.map((r) => [
      r.workload.title, r.workload.unit, fmt(r.perSecond.etcdlite), fmt(r.perSecond.etcd), ratio(r.perSecond.etcdlite, r.perSecond.etcd),
      ms(r.p99Ms.etcdlite), ms(r.p99Ms.etcd),
    ]), ['l', 'l', 'r', 'r', 'r', 'r', 'r']),
    ...cpuTable(rows, meta.cores),
    '',
    '![requests per second](results/throughput.svg)',
    '',
    '![ratio](results/ratio.svg)',
    '',
    '![p99 latency](results/p99.svg)',
    '',
    '<details><summary>Every run and the tool\'s arguments</summary>',
    '',
    table(['workload', 'benchmark arguments', 'etcdlite runs', 'etcd runs'], rows.map((r) => [
      r.workload.name, `\`${toolArgs(r.workload, input.scale).join(' ')}\``, r.runs.etcdlite.map((x) => fmt(x)).join(', '), r.runs.etcd.map((x) => fmt(x)).join(', '),
    ])),
    '',
    '</details>',
  ]
  const group = (f: (r: WorkloadRow, s: ServerName) => number | null) => rows.map((r) => ({ label: r.workload.name, values: [f(r, 'etcdlite'), f(r, 'etcd')] }))
  charts.set('throughput', { title: "etcd's benchmark tool: requests (watch: events) per second", unit: 'per second, higher is better', series: SERIES, groups: group((r, s) => r.perSecond[s]) })
  // With the ceilings part, the front ceiling over etcd beside each ratio: how far any Node front could go.
  const withFront = rows.some((r) => r.front !== null)
  const over = (a: number | null, b: number | null): number | null => (a === null || b === null || b === 0 ? null : a / b)
  charts.set('ratio', {
    title: withFront ? 'etcdlite / etcd, and the front ceilings / etcd' : 'etcdlite / etcd, requests per second', unit: 'ratio, 1 = as fast as etcd', scale: 'linear',
    series: withFront ? [SERIES[0] as ChartSeries, { name: 'front ceiling', color: '#e39b2a' }, { name: 'filtered front', color: '#8e6bbf' }] : [SERIES[0] as ChartSeries],
    groups: rows.map((r) => ({
      label: r.workload.name,
      values: [over(r.perSecond.etcdlite, r.perSecond.etcd), ...(withFront ? [over(r.front, r.perSecond.etcd), over(r.filteredFront, r.perSecond.etcd)] : [])],
    })),
  })
  charts.set('p99', { title: 'p99 latency', unit: 'ms, lower is better', series: SERIES, groups: group((r, s) => r.p99Ms[s]).filter((_, i) => rows[i]?.workload.latency === true) })
  return lines.join('\n')
}

/** The tool's lowest CPU per request (µs) over its runs against the two servers; null where none was measured. */
function toolUs(r: WorkloadRow): number | null {
  const us = [r.cpu.etcdlite?.toolUs, r.cpu.etcd?.toolUs].filter((x): x is number => x !== undefined && x > 0)
  return us.length === 0 ? null : Math.min(...us)
}

/** What the tool could count with every core to itself: `cores` over its lowest CPU per request. */
export function toolLimit(r: WorkloadRow, cores: number): number | null {
  const us = toolUs(r)
  return us === null ? null : (cores * 1e6) / us
}

/**
 * What etcdlite would serve with its main thread busy all the time, at the CPU per request it spent there:
 * that thread runs all of its JavaScript, so no load gets more out of it. Its own ceiling, not Node's or the
 * disk's: less CPU per request on that thread is what lifts it. Null without the thread's CPU.
 */
export function threadLimit(r: WorkloadRow): number | null {
  const busy = r.cpu.etcdlite?.mainBusy
  const lite = r.perSecond.etcdlite
  return busy === undefined || lite === null || busy <= 0 ? null : lite / Math.min(1, busy)
}

/**
 * What etcdlite and the tool together could be counted at with all `cores` busy all the time, at the CPU
 * per request both spent in etcdlite's runs: they share this machine, so no run of them goes further here.
 */
export function machineLimit(r: WorkloadRow, cores: number): number | null {
  const busy = r.cpu.etcdlite?.coresBusy
  const lite = r.perSecond.etcdlite
  return busy === undefined || lite === null || busy <= 0 ? null : lite / Math.min(1, busy / cores)
}

/** What one count of `w` is: an event for watch, a request for the rest. */
const unitOf = (w: Workload): string => (w.unit === 'events/s' ? 'event' : 'request')

/** What each request cost the servers and the tool in CPU, and how busy etcdlite's JavaScript thread was. */
function cpuTable(rows: readonly WorkloadRow[], cores: number): string[] {
  if (rows.every((r) => r.cpu.etcdlite === null && r.cpu.etcd === null)) return []
  const us = (c: CpuCost | null, f: (c: CpuCost) => number): string => (c === null ? '–' : `${fmt(f(c), 1)} µs`)
  const pct = (x: number | undefined): string => (x === undefined ? '–' : `${fmt(100 * x)} %`)
  const server = (c: CpuCost): number => c.serverUs
  const tool = (c: CpuCost): number => c.toolUs
  return [
    '',
    `CPU per request (per event for watch): each process's user and system CPU over the whole run of the tool, all its threads, divided by what the tool counted; from Linux's /proc, medians of the rounds. A Node server runs all its JavaScript on one thread, so where etcdlite's main thread is busy nearly all of a run, its CPU per request is what bounds it, however many cores the machine has. "Machine busy" is the server's and the tool's CPU together over the ${cores} cores' time: near 100 %, they compete for the machine, and the tool's own CPU per request caps what any server can be counted at (see Ceilings).`,
    '',
    table(['workload', 'etcdlite CPU/request', 'etcd CPU/request', 'etcdlite / etcd', 'etcdlite main thread busy', 'tool CPU/request (etcdlite, etcd)', 'machine busy (etcdlite, etcd)'], rows.map((r) => {
      const { etcdlite: l, etcd: e } = r.cpu
      return [
        r.workload.title, us(l, server), us(e, server), ratio(l?.serverUs ?? null, e?.serverUs ?? null), pct(l?.mainBusy),
        `${us(l, tool)}, ${us(e, tool)}`, `${pct(l === null ? undefined : l.coresBusy / cores)}, ${pct(e === null ? undefined : e.coresBusy / cores)}`,
      ]
    }), ['l', 'r', 'r', 'r', 'r', 'r', 'r']),
  ]
}

/** The sync floor's median for each kind of file, null where it was not measured. */
export function syncFloor(records: readonly BenchRecord[]): Record<SyncFloorRecord['file'], number | null> & { recordBytes: number | null } {
  const floor = records.filter((r): r is SyncFloorRecord => r.type === 'sync-floor')
  const of = (file: SyncFloorRecord['file']): number | null => medianOf(floor.filter((r) => r.file === file).map((r) => r.syncsPerSec))
  return { growing: of('growing'), preallocated: of('preallocated'), recordBytes: floor[0]?.recordBytes ?? null }
}

const times = (x: number): string => `${x.toFixed(2)}×`

/**
 * With one client a put waits for its round trip and then for its sync, one after the other, so the two
 * floors add up: the most puts per second a server behind the bare front, on this disk's sync, can serve.
 */
export function serialFloor(r: WorkloadRow, floor: ReturnType<typeof syncFloor>): number | null {
  if (!r.workload.syncBound || r.front === null || floor.growing === null || r.front <= 0 || floor.growing <= 0) return null
  return 1 / (1 / r.front + 1 / floor.growing)
}

/**
 * What stops a workload short of its acceptance figure, worded from the figures: the measured ceilings that
 * are below the target, or, when none is, that the gap is etcdlite's own. Undefined when it meets the target.
 */
export function verdict(r: WorkloadRow, floor: ReturnType<typeof syncFloor>, cores?: number): string | undefined {
  const { workload: w, front, filteredFront } = r
  const { etcdlite: lite, etcd } = r.perSecond
  const head = `**${w.title}**`
  // Neither figure: the servers were not run (`--parts ceilings` alone), so there is nothing to explain.
  if (lite === null && etcd === null) return undefined
  if (lite === null || etcd === null || etcd === 0) return `${head}: no figure for ${lite === null ? 'etcdlite' : 'etcd'}, so no verdict.`
  if (lite / etcd >= w.target) return undefined
  const short = `${head} is at ${times(lite / etcd)} etcd, short of ${times(w.target)}`
  const limits: string[] = []
  // A front that served less than etcdlite bounds nothing: that run of it was disturbed, or it lacks a trick etcdlite has.
  if (front !== null && front >= lite && front / etcd < w.target) {
    const resets = w.resetsEachCall === true
      ? "; this figure includes the reconnects bare node:http2 forces on the client, as nghttp2 closes a connection after about 1,000 cancelled streams, which etcdlite's own front avoids by reading each connection's frames first"
      : ''
    limits.push(`the Node HTTP/2 front: a bare \`node:http2\` server answering with canned bytes serves ${fmt(front)} ${w.unit}, ${times(front / etcd)} etcd, so no server on Node's HTTP/2 reaches ${times(w.target)} here (etcdlite is at ${fmt((100 * lite) / front)} % of that ceiling${resets})`)
  }
  const frontBounds = limits.length > 0
  // The filtered front is a ceiling of etcdlite as built, not of Node: named only where the bare front is not below the target.
  if (!frontBounds && filteredFront !== null && filteredFront >= lite && filteredFront / etcd < w.target) {
    const bare = front === null ? '' : `, where the bare front serves ${times(front / etcd)} etcd`
    limits.push(`etcdlite's own HTTP/2 front: the same canned server behind it (its frame filter, which serves etcdctl's URL-shaped \`:authority\` and takes a client's cancellations over before nghttp2's reset limit closes the connection, and etcd's keep-alive policy) serves ${fmt(filteredFront)} ${w.unit}, ${times(filteredFront / etcd)} etcd${bare}, so nothing behind that front reaches ${times(w.target)} here (etcdlite is at ${fmt((100 * lite) / filteredFront)} % of it)`)
  }
  const growing = w.syncBound ? floor.growing : null
  const syncBounds = growing !== null && growing / etcd < w.target
  if (growing !== null && syncBounds) {
    const pre = floor.preallocated === null ? '' : ` (into a preallocated file, as etcd's WAL writes: ${fmt(floor.preallocated)}/s)`
    limits.push(`the durability floor: one writer appending a ${fmt(floor.recordBytes)}-byte record to a growing file and fdatasync-ing it, as LevelDB's log does, reaches ${fmt(growing)} commits/s${pre}, ${times(growing / etcd)} etcd, and with one client every put waits for one such commit`)
  }
  const serial = serialFloor(r, floor)
  // Each floor alone may leave room that the two together do not: a put's round trip and its sync do not overlap.
  if (serial !== null && growing !== null && front !== null && !frontBounds && !syncBounds && serial >= lite && serial / etcd < w.target) {
    limits.push(`the round trip and the sync together: with one client a put waits for its round trip and then for its sync, one after the other, so the bare front's ${fmt(front)} round trips/s and the growing file's ${fmt(growing)} syncs/s together allow at most ${fmt(serial)} puts/s, ${times(serial / etcd)} etcd (etcdlite is at ${fmt((100 * lite) / serial)} % of that)`)
  }
  const tool = cores === undefined ? null : toolLimit(r, cores)
  if (tool !== null && tool >= lite && tool / etcd < w.target) {
    limits.push(`the load generator: etcd's benchmark tool itself spends ${fmt(toolUs(r), 1)} µs of CPU per ${unitOf(w)}, so even with all ${cores} cores to itself it counts at most ${fmt(tool)} ${w.unit}, ${times(tool / etcd)} etcd`)
  }
  const thread = threadLimit(r)
  if (thread !== null && thread / etcd < w.target) {
    const busy = r.cpu.etcdlite?.mainBusy ?? 1
    const etcdCpu = r.cpu.etcd === null ? '' : ` (etcd spends ${fmt(r.cpu.etcd.serverUs, 1)} µs over all its threads)`
    limits.push(`etcdlite's own JavaScript thread: busy ${fmt(100 * busy)} % of the run at ${fmt(lite)} ${w.unit}, it would serve at most ${fmt(thread)} ${w.unit} busy all the time, ${times(thread / etcd)} etcd, at the CPU it spends per ${unitOf(w)}${etcdCpu}; this ceiling is etcdlite's own cost, and only less CPU per ${unitOf(w)} on that thread lifts it`)
  }
  const machine = cores === undefined ? null : machineLimit(r, cores)
  if (machine !== null && cores !== undefined && machine / etcd < w.target) {
    const busy = Math.min(1, (r.cpu.etcdlite?.coresBusy ?? cores) / cores)
    limits.push(`the machine: etcdlite and the tool together kept its ${cores} cores ${fmt(100 * busy)} % busy at ${fmt(lite)} ${w.unit}, so with every core busy all the time they would be counted at most ${fmt(machine)} ${w.unit}, ${times(machine / etcd)} etcd, at the CPU both spend per ${unitOf(w)}`)
  }
  if (limits.length > 0) return `${short}; it meets a measured ceiling: ${limits.join('; and ')}.`
  if (front === null && growing === null && tool === null) return `${short}; no ceiling was measured for it (\`--parts tool,ceilings\`).`
  const room = [
    ...(front === null ? [] : [front < lite ? `the front server served less than etcdlite (${times(front / etcd)} etcd), so it bounds nothing here` : `the front ceiling is ${times(front / etcd)} etcd and etcdlite reaches ${fmt((100 * lite) / front)} % of it`]),
    ...(filteredFront === null || front === null || front < lite ? [] : [`behind etcdlite's own HTTP/2 front it is ${times(filteredFront / etcd)} etcd`]),
    ...(growing === null ? [] : [`the sync floor is ${times(growing / etcd)} etcd`]),
    ...(serial === null ? [] : [`the round trip and the sync one after the other allow ${times(serial / etcd)} etcd`]),
    ...(tool === null ? [] : [`the tool, with the whole machine to itself, could count ${times(tool / etcd)} etcd`]),
  ]
  const own = front !== null && front >= lite ? ` The gap is in etcdlite's own work, above Node's HTTP/2${growing === null ? '' : ' and the disk'}.` : ''
  return `${short}, and no measured ceiling is below the target: ${room.join('; ')}.${own}${cpuSentence(r, cores)}`
}

/**
 * Where no ceiling is below the target, what etcdlite's CPU says about the gap: one thread runs all of a
 * Node server's JavaScript, so a thread busy nearly all the run is bound by its CPU per request; a server
 * that spends no more CPU per request than etcd and leaves its thread idle is not what is slow.
 */
function cpuSentence(r: WorkloadRow, cores: number | undefined): string {
  const { etcdlite: lite, etcd } = r.cpu
  if (lite === null) return ''
  const per = unitOf(r.workload)
  const head = ` etcdlite spent ${fmt(lite.serverUs, 1)} µs of CPU per ${per}${etcd === null ? '' : ` against etcd's ${fmt(etcd.serverUs, 1)} µs over all its threads`}, and its main thread, which runs all of its JavaScript, was busy ${fmt(100 * lite.mainBusy)} % of the run`
  if (lite.mainBusy >= 0.85) return `${head}: that CPU is what bounds it, and cutting it is what would raise it.`
  if (etcd !== null && lite.serverUs <= etcd.serverUs) {
    const machine = cores === undefined ? '' : `, with the machine's ${cores} cores ${fmt((100 * etcd.coresBusy) / cores)} % busy in etcd's run`
    return `${head}: etcdlite's work is not what holds it back. The tool itself spends ${fmt(toolUs(r), 1)} µs of CPU per ${per}${machine}, and counts both servers alike.`
  }
  return `${head}; the rest of the run it waited, for the disk's syncs or for the clients' next requests.`
}

function ceilingSection(rows: readonly WorkloadRow[], records: readonly BenchRecord[], cores: number): string {
  const floor = syncFloor(records)
  if (rows.every((r) => r.front === null) && floor.growing === null) return 'Not run (`--parts` without `ceilings`).'
  const over = (x: number | null, r: WorkloadRow): string => ratio(x, r.perSecond.etcd)
  const floorText = floor.growing === null
    ? 'The sync floor was not measured.'
    : `The sync floor (\`bench/ceiling/sync-floor.ts\`, in a child process, median of the rounds): one writer appending a ${fmt(floor.recordBytes)}-byte record and fdatasync-ing it before the next reaches ${fmt(floor.growing)} commits/s on a growing file, as LevelDB's log (etcdlite's store) grows, and ${fmt(floor.preallocated)} commits/s into a preallocated, zero-filled file, as etcd's WAL writes into its segments. With one client a put waits for one such commit, so it bounds put with 1 client; with more clients one commit carries many puts.`
  const verdicts = rows.flatMap((r) => verdict(r, floor, cores) ?? [])
  return [
    "The front ceiling (`bench/ceiling/front.ts`) is a gRPC server on bare `node:http2` (no grpc-js, no storage) in a process of its own, driven in the same rounds by the same tool with the same arguments as the two servers: it answers each call with canned, valid protobuf in real gRPC framing, keeps a revision, the leases it granted and its watchers, and fans each put out to the watchers of its key. What it serves is the most a server on Node's HTTP/2, in one process as etcdlite is, can serve that workload on this machine. The filtered front is the same server with every connection behind etcdlite's own HTTP/2 front (`src/grpc/http2-front.ts`: the frame filter and etcd's keep-alive policy, as the CLI runs them), so the gap between the two is what that front costs.",
    '',
    table(['workload', 'target', 'etcdlite / etcd', 'front ceiling', 'front / etcd', 'filtered front / etcd', 'etcdlite / front', 'sync floor / etcd (growing, preallocated)', 'round trip + sync / etcd', 'tool alone / etcd', "etcdlite's thread full / etcd", 'machine full / etcd', 'short of target?'], rows.map((r) => [
      r.workload.title, times(r.workload.target), ratio(r.perSecond.etcdlite, r.perSecond.etcd), fmt(r.front), over(r.front, r), over(r.filteredFront, r),
      ratio(r.perSecond.etcdlite, r.front), r.workload.syncBound ? `${over(floor.growing, r)}, ${over(floor.preallocated, r)}` : '–',
      r.workload.syncBound ? over(serialFloor(r, floor), r) : '–', over(toolLimit(r, cores), r), over(threadLimit(r), r), over(machineLimit(r, cores), r),
      r.perSecond.etcdlite === null || r.perSecond.etcd === null ? '–' : r.perSecond.etcdlite / r.perSecond.etcd >= r.workload.target ? 'no' : 'yes',
    ]), ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l']),
    '',
    floorText,
    '',
    `The load generator's own limit ("tool alone"): etcd's benchmark tool runs on the same ${cores} cores and spends CPU on every request it sends and every answer it reads (see the CPU table above). Given every core, with a server that cost nothing, it could count at most ${cores} cores' time over its CPU per request (the lower of its two runs), so no server on this machine is counted faster than that.`,
    '',
    `etcdlite's own limit ("etcdlite's thread full"): one thread runs all of etcdlite's JavaScript, so at the CPU per request it spent on that thread in a run, it serves at most its rate over that thread's busy share: what it would serve if the thread never waited for a sync or a client. Unlike the others, this ceiling is etcdlite's own cost, and less CPU per request on that thread is what lifts it.`,
    '',
    `The machine's limit ("machine full"): etcdlite and the tool share the ${cores} cores, so at the CPU per request both spent in etcdlite's runs, they are counted at most at etcdlite's rate over the share of the cores they kept busy.`,
    ...(verdicts.length === 0 ? [] : ['', ...verdicts.flatMap((v) => [v, ''])].slice(0, -1)),
  ].join('\n')
}

function nodeSection(records: readonly BenchRecord[], charts: Map<string, BarChart>): string {
  const startup = records.filter((r): r is StartupRecord => r.type === 'startup')
  const open = records.filter((r): r is FirstOpenRecord => r.type === 'first-open')
  const embedded = records.filter((r): r is EmbeddedRecord => r.type === 'embedded')
  const out: string[] = []
  if (startup.length > 0) {
    type Started = StartupRecord['server']
    const ready = (s: Started): number | null => medianOf(startup.filter((r) => r.server === s).map((r) => r.readyMs))
    const rss = (s: Started): number | null => medianOf(startup.filter((r) => r.server === s).map((r) => r.idleRssMiB))
    const floors: string[][] = (['node', 'node+libs'] as const).filter((f) => ready(f) !== null).map((f) => [
      f === 'node' ? 'floor: an empty node process' : 'floor: node with grpc-js and LevelDB loaded, a server bound',
      `${fmt(ready(f))} ms`, ratio(ready(f), ready('etcd')), `${fmt(rss(f), 1)} MiB`, ratio(rss(f), rss('etcd')),
    ])
    const n = startup.filter((r) => r.server === 'etcdlite').length
    out.push(
      `Start-up: spawn of the command on an empty data dir until it logs that it serves clients; idle RSS: the`,
      `process's resident memory 2 s later. Medians of ${n} starts each, alternating.`, '',
      table(['', 'etcdlite', 'etcd', 'etcdlite / etcd'], [
        ['start-up to serving', `${fmt(ready('etcdlite'))} ms`, `${fmt(ready('etcd'))} ms`, ratio(ready('etcdlite'), ready('etcd'))],
        ['idle RSS after start', `${fmt(rss('etcdlite'), 1)} MiB`, `${fmt(rss('etcd'), 1)} MiB`, ratio(rss('etcdlite'), rss('etcd'))],
      ], ['l', 'r', 'r', 'r']), '',
      ...(floors.length === 0 ? [] : [
        'What any server written on Node with these libraries pays before its own code runs (`bench/node/startup-floor.ts`),',
        'started in the same alternation:', '',
        table(['', 'start-up', '/ etcd', 'idle RSS', '/ etcd'], floors, ['l', 'r', 'r', 'r', 'r']), '',
      ]),
      '![start-up](results/startup.svg)', '',
    )
    charts.set('startup', { title: 'Start-up on an empty data dir, until serving', unit: 'ms, lower is better', series: SERIES, groups: [{ label: 'start-up', values: [ready('etcdlite'), ready('etcd')] }] })
  }
  if (open.length > 0) {
    const importMs = medianOf(open.map((r) => r.importMs))
    const openMs = medianOf(open.map((r) => r.openMs))
    out.push(`In a fresh node process (median of ${open.length}): \`import('etcdlite')\` ${fmt(importMs)} ms, then the first \`openEtcd({ memory: true })\` ${fmt(openMs)} ms.`, '')
  }
  if (embedded.length > 0) {
    const keys = [...new Set(embedded.map((r) => `${r.op}|${r.storage}|${r.inFlight}`))]
    out.push(
      'The embedded API in-process (`bench/node/embedded.ts`): random keys of a space of 100,000 and 256-byte values',
      '(range: one key), the given number of requests in flight, medians of the rounds. On disk every put waits for its',
      'commit to be synced, as with the CLI.', '',
      table(['call', 'storage', 'in flight', 'ops/s'], keys.map((k) => {
        const [op = '', storage = '', inFlight = ''] = k.split('|')
        const v = medianOf(embedded.filter((r) => `${r.op}|${r.storage}|${r.inFlight}` === k).map((r) => r.opsPerSec))
        return [op, storage, inFlight, fmt(v)]
      }), ['l', 'l', 'r', 'r']), '',
    )
  }
  return out.length === 0 ? 'Not run.' : out.join('\n').trimEnd()
}

function microSection(records: readonly BenchRecord[]): string {
  const micro = records.filter((r): r is MicroRecord => r.type === 'micro')
  if (micro.length === 0) return 'Not run.'
  return [
    'tinybench, in-process, per operation (`npm run bench:micro`, sources in `bench/micro/`); ± is the relative margin of',
    "error of the mean. p99 is over the tool's samples, each the mean of a batch of operations where the task batches them.", '',
    table(['task', 'ops/s', 'mean', 'p99', '±'], micro.map((r) => [r.name, fmt(r.opsPerSec), `${fmt(r.meanNs)} ns`, `${fmt(r.p99Ns)} ns`, `${fmt(r.rme, 1)} %`]), ['l', 'r', 'r', 'r', 'r']),
  ].join('\n')
}

/** The Markdown of RESULTS.md and the charts it links (name → chart, written as results/<name>.svg). */
export function buildReport(input: ReportInput): { markdown: string; charts: Map<string, BarChart> } {
  const charts = new Map<string, BarChart>()
  const rows = workloadRows(input.workloads, input.records)
  const informer = input.records.flatMap((r) => (r.type === 'informer' ? [r.line] : []))
  const parts = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (bench/run.ts); how to run it and what each part measures: [README.md](README.md).',
    "Compare figures only within one run: the servers and the load generator share this machine's cores. Raw",
    'figures: [results.jsonl](results.jsonl).',
    '',
    '## Machine',
    '',
    machineSection(input.meta),
    '',
    "## etcd's benchmark tool: etcdlite vs etcd",
    '',
    toolSection(input, rows, charts),
    '',
    '## Ceilings: what stops a workload short of its target',
    '',
    ceilingSection(rows, input.records, input.meta.cores),
    '',
    '## Start-up, memory and the embedded API',
    '',
    nodeSection(input.records, charts),
    '',
    '## Informer (`bench/informer.ts`)',
    '',
    informer.length === 0 ? 'Not run.' : ['```', ...informer, '```'].join('\n'),
    '',
    '## Micro-benchmarks',
    '',
    microSection(input.records),
    '',
  ]
  if (input.problems.length > 0) parts.push('## Problems during the run', '', ...input.problems.map((p) => `- ${p.replace(/\n/g, ' ')}`), '')
  return { markdown: parts.join('\n'), charts }
}

/** Write RESULTS.md, results.jsonl and results/<chart>.svg into `dir`. */
export function writeReport(dir: string, input: ReportInput): void {
  const { markdown, charts } = buildReport(input)
  mkdirSync(join(dir, 'results'), { recursive: true })
  for (const [name, chart] of charts) writeFileSync(join(dir, 'results', `${name}.svg`), renderBarChart(chart))
  writeFileSync(join(dir, 'results.jsonl'), [input.meta, ...input.records].map((r) => JSON.stringify(r)).join('\n') + '\n')
  writeFileSync(join(dir, 'RESULTS.md'), markdown)
}
