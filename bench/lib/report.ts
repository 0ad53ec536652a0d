// bench/RESULTS.md and bench/results/*.svg from the JSON lines of one `npm run bench` run: the machine,
// versions and flags; the benchmark's targets as a checklist computed from the
// lines; a table per group (KV, watch, lease, start-up, storage ceiling) and the charts. Input is read
// defensively: a subset run leaves groups out, and a missing or null figure shows as '-', never a crash.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fmtNum, mdCode, mdTable, parseLines } from './report-lines.js'
import { collectMachineInfo, packageVersion, type ReportMeta, type RunWarmup } from './report-meta.js'
import { CHART_DIR, CHART_FILES, kvSection, leaseSection, RESULTS_FILE, startupSection, storageSection, UNSAFE_NO_FSYNC_DIR, watchSection, type ChartFile, type Section } from './report-sections.js'
import { targetsOf, type Verdict } from './report-targets.js'

// ---------------------------------------------------------------------------------------------------
// The report

export interface Report {
  readonly markdown: string
  /** File name under results/ → SVG text. */
  readonly charts: ReadonlyMap<string, string>
}

/** The header's warm-up row: what each server ran before it was measured. */
function warmupText(w: RunWarmup): string {
  const before = `${fmtNum(w.seconds, 1)} s of load before each measurement`
  if (w.serverSeconds <= 0) return `${before}; no server warm-up (--server-warmup 0): etcdlite's first measurements ran partly unoptimized (V8 compiles hot code as it runs)`
  return `${before}; before its first measurement every server got unmeasured load so that V8 had compiled etcdlite's hot paths ` +
    `(--server-warmup ${fmtNum(w.serverSeconds, 1)}): the KV servers ran every KV workload in turn and the RPC and commit ceilings those they answer, ` +
    `and fan-out and churn workloads, each on a fresh server, warmed up for ${fmtNum(Math.max(w.seconds, w.serverSeconds), 1)} s. Both servers got the same.`
}

/** The header's watch-clients row: the flow-control window the watcher processes grant. */
export function watchWindowText(bytes: number): string {
  const size = bytes % (1024 * 1024) === 0 ? `${fmtNum(bytes / (1024 * 1024), 0)} MiB` : bytes % 1024 === 0 ? `${fmtNum(bytes / 1024, 0)} KiB` : `${fmtNum(bytes, 0)} B`
  return `the watcher processes grant a ${size} HTTP/2 flow-control window per stream and per connection ` +
    `(grpc-js's default is 64 KiB, grpc-java's 1 MiB; grpc-go, under etcd's clientv3, grows its window up to 16 MiB); see bench/README.md`
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
  // The report sits in bench/ (durable) or bench/unsafe-no-fsync/ (see reportDirFor): links go from there.
  const toBench = meta.unsafeNoFsync === true ? '../' : ''
  const otherMode = meta.unsafeNoFsync === null
    ? []
    : meta.unsafeNoFsync
      ? [['durable run', `the same workloads with both servers' durable defaults, where the targets apply: [RESULTS.md](${toBench}RESULTS.md)`]]
      : [['--unsafe-no-fsync run', `the same workloads with --unsafe-no-fsync on both servers (\`npm run bench -- --unsafe-no-fsync\`), reported apart: [${UNSAFE_NO_FSYNC_DIR}/RESULTS.md](${UNSAFE_NO_FSYNC_DIR}/RESULTS.md)`]]
  const header = mdTable(['', ''], [
    ['date', meta.date ?? new Date().toISOString()],
    ['machine', `${m.cpuModel}, ${m.cores} cores, ${fmtNum(m.ramGiB, 1)} GiB RAM, ${m.kernel} (${m.arch})`],
    ['node', meta.nodeVersion ?? process.version],
    ['etcd', meta.etcdVersion ?? '-'],
    ['etcdlite', meta.etcdliteVersion ?? packageVersion() ?? '-'],
    ['command', mdCode(meta.command)],
    ['durability', durability],
    ...otherMode,
    ...(meta.warmup === undefined ? [] : [['warm-up', warmupText(meta.warmup)]]),
    ...(meta.watchWindowBytes === undefined ? [] : [['watch clients', watchWindowText(meta.watchWindowBytes)]]),
    ...(p.stealPct === null ? [] : [['CPU steal', `${fmtNum(p.stealPct, 1)} % of the machine's CPU time went to other guests of the hypervisor during the run (/proc/stat); the higher, the noisier the figures`]]),
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
      `See [README.md](${toBench}README.md) for what each workload does.`,
    '',
    header,
    '',
    meta.unsafeNoFsync === true ? '## Targets, for comparison only' : '## Targets',
    '',
    ...(meta.unsafeNoFsync === true ? ['The targets are defined for durable mode and this run is not: the checklist shows where the figures without fsync would stand.', ''] : []),
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
