// `npm run bench`: etcdlite against a real etcd on this machine, driven by etcd's own benchmark tool, with
// the ceilings each workload can meet (Node's bare HTTP/2 front, the disk's sync rate), plus the figures
// only Node can give (start-up, memory, the embedded API, the informer, micro-benchmarks).
// Writes bench/RESULTS.md, bench/results.jsonl and the charts in bench/results/. See bench/README.md.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { connect } from '../src/index.js'
import { errorMessage } from '../src/pkg/as-error.js'
import { numberArg } from '../test/helpers/args.js'
import { benchmarkPath, missingTool, runTool } from './lib/benchmark-tool.js'
import { cpuSample, cpuSince } from './lib/cpu-time.js'
import { collectMeta, commandLine, endMeta } from './lib/machine.js'
import type { BenchRecord, EmbeddedRecord, FirstOpenRecord, MicroRecord, SyncFloorRecord, ToolRecord } from './lib/records.js'
import { writeReport } from './lib/report.js'
import { isFront, processRssMiB, startServer, type BenchServer, type Target } from './lib/servers.js'
import { RANGE_KEY, selectWorkloads, toolArgs, WORKLOADS, type Workload } from './lib/workloads.js'

const PARTS = ['tool', 'ceilings', 'startup', 'embedded', 'informer', 'micro'] as const
type Part = (typeof PARTS)[number]

const HELP = `npm run bench -- [flags]
  --benchmark PATH   etcd's benchmark tool (default: $ETCD_BENCHMARK, else /tmp/etcd-benchmark/benchmark)
  --etcd PATH        the etcd binary (default: etcd on PATH)
  --rounds N         rounds of the tool's workloads and of the embedded API (default 3; --quick: 1)
  --workloads LIST   comma-separated names (default all; see --list), or none
  --starts N         start-ups of each server, and fresh processes for the first openEtcd (default 5; --quick: 2)
  --parts LIST       of ${PARTS.join(',')} (default all); ceilings puts the front ceiling server
                     beside the two servers in the tool's rounds and measures the disk's sync floor
  --quick            a smoke run: 1 round, a tenth of the requests, short Node measurements
  --out DIR          where RESULTS.md, results.jsonl and results/ go (default: bench/ of this checkout)
  --list             print the workloads and exit
  --from FILE        write the report again from a run's results.jsonl, running nothing`

const { values } = parseArgs({
  options: {
    benchmark: { type: 'string' }, etcd: { type: 'string', default: 'etcd' }, rounds: { type: 'string' }, workloads: { type: 'string' }, starts: { type: 'string' },
    parts: { type: 'string' }, from: { type: 'string' }, quick: { type: 'boolean', default: false }, out: { type: 'string' }, list: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
})
if (values.help) {
  process.stdout.write(`${HELP}\n`)
  process.exit(0)
}
if (values.list) {
  for (const w of WORKLOADS) process.stdout.write(`${w.name.padEnd(20)} benchmark ${toolArgs(w).join(' ')}\n`)
  process.exit(0)
}

const root = new URL('../../', import.meta.url)
const outDir = values.out ?? fileURLToPath(new URL('bench/', root))
if (values.from !== undefined) {
  // The lines this program wrote: the meta line first, then the records in the order they were measured.
  const [meta, ...records] = readFileSync(values.from, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as BenchRecord)
  if (meta?.type !== 'meta') throw new Error(`${values.from}: no meta line first`)
  const names = new Set(records.flatMap((r) => (r.type === 'tool' ? [r.workload] : [])))
  const problems = records.flatMap((r) => (r.type === 'tool' && r.error !== undefined ? [`round ${r.round}, ${r.workload} on ${r.server}: ${r.error}`] : []))
  writeReport(outDir, { meta, records, workloads: WORKLOADS.filter((w) => names.has(w.name)), scale: meta.quick ? 0.1 : 1, problems })
  process.exit(0)
}

const quick = values.quick
const rounds = Math.floor(numberArg('--rounds', values.rounds ?? (quick ? '1' : '3'), 1))
const starts = Math.floor(numberArg('--starts', values.starts ?? (quick ? '2' : '5'), 1))
const scale = quick ? 0.1 : 1
const workloads: Workload[] = values.workloads === 'none' ? [] : selectWorkloads(values.workloads)
const parts = new Set<Part>(values.parts === undefined ? PARTS : values.parts.split(',').map((p) => {
  const part = PARTS.find((x) => x === p.trim())
  if (part === undefined) throw new Error(`unknown part ${p}; one of: ${PARTS.join(', ')}`)
  return part
}))
const tool = benchmarkPath(values.benchmark)
// The tool drives etcdlite and etcd for `tool`, and the front ceiling server, bare and behind etcdlite's own
// HTTP/2 front, for `ceilings`, in the same rounds.
const targets: Target[] = [...(parts.has('tool') ? ['etcdlite', 'etcd'] as const : []), ...(parts.has('ceilings') ? ['front', 'front-filtered'] as const : [])]
const runTheTool = targets.length > 0 && workloads.length > 0
if (runTheTool) {
  const missing = missingTool(tool)
  if (missing !== undefined) {
    process.stderr.write(`${missing}\n(or leave it out: --parts ${PARTS.filter((p) => p !== 'tool' && p !== 'ceilings').join(',')})\n`)
    process.exit(2)
  }
}

const meta = collectMeta({
  command: commandLine(process.env['npm_lifecycle_event'] === 'bench' ? 'npm run bench --' : 'node build/bench/run.js', process.argv.slice(2)).replace(/ --$/, ''),
  etcdBin: values.etcd, benchmark: tool, rounds, quick, root: root.href,
})
const records: BenchRecord[] = []
const problems: string[] = []
const log = (s: string): void => void process.stderr.write(`${s}\n`)

// Servers still running: killed on the way out whatever happens.
const live = new Set<BenchServer>()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const s of live) s.killSync()
    process.exit(130)
  })
}

async function start(name: Target): Promise<BenchServer> {
  const s = await startServer(name, { etcdBin: values.etcd })
  live.add(s)
  return s
}

async function stop(s: BenchServer): Promise<void> {
  await s.dispose()
  live.delete(s)
}

/** A node script of this build in a child process; its stdout lines. */
function runNode(script: string, args: readonly string[], nodeArgs: readonly string[] = []): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...nodeArgs, fileURLToPath(new URL(script, import.meta.url)), ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 900_000 })
    let out = ''
    let err = ''
    proc.stdout.on('data', (d: Buffer) => void (out += d.toString()))
    proc.stderr.on('data', (d: Buffer) => void (err = (err + d.toString()).slice(-2000)))
    proc.once('error', reject)
    proc.once('close', (code, signal) => {
      if (code === 0) resolve(out.split('\n').filter((l) => l.trim() !== ''))
      else reject(new Error(`${script} exited with ${String(code ?? signal)}: ${err.trim()}`))
    })
  })
}

/** The JSON lines of type `type` among a child's output lines. */
function recordsOf<T extends BenchRecord>(lines: readonly string[], type: T['type']): T[] {
  return lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as T).filter((r) => r.type === type)
}

/** One round of the tool's workloads: fresh servers, a warm-up pass, then each workload on A, then B (then the fronts). */
async function toolRound(round: number): Promise<void> {
  const servers: BenchServer[] = []
  try {
    for (const t of targets) servers.push(await start(t))
    for (const s of servers) {
      // A front answers every range with the key it asked for: it has nothing to put.
      if (!isFront(s.name) && workloads.some((w) => w.needsRangeKey)) {
        const client = await connect({ endpoints: [s.endpoint] })
        await client.put({ key: RANGE_KEY, value: new Uint8Array(256).fill(0x61) })
        await client.close()
      }
      for (const w of workloads) await runTool(tool, s.endpoint, toolArgs(w, scale / 10))
    }
    for (const w of workloads) {
      for (const s of servers) {
        let rec: ToolRecord
        try {
          const before = cpuSample(s.pid)
          const r = await runTool(tool, s.endpoint, toolArgs(w, scale))
          const cpu = cpuSince(before, s.pid)
          rec = {
            type: 'tool', workload: w.name, server: s.name, round, perSecond: r.perSecond, p99Ms: r.p99Ms,
            ...(r.seconds === null ? {} : { requests: Math.round(r.perSecond * r.seconds) }), ...(cpu === undefined ? {} : { cpu }),
          }
          log(`[round ${round}/${rounds}] ${w.name} ${s.name}: ${r.perSecond.toFixed(0)} ${w.unit}, p99 ${r.p99Ms?.toFixed(1) ?? '?'} ms`)
        } catch (e) {
          rec = { type: 'tool', workload: w.name, server: s.name, round, perSecond: null, p99Ms: null, error: errorMessage(e) }
          problems.push(`round ${round}, ${w.name} on ${s.name}: ${errorMessage(e)}`)
          log(`[round ${round}/${rounds}] ${w.name} ${s.name}: failed: ${errorMessage(e)}`)
        }
        records.push(rec)
      }
    }
  } finally {
    for (const s of servers) await stop(s)
  }
}

/**
 * Start each CLI on an empty data dir, and the two floors under etcdlite's start (node/startup-floor.ts),
 * alternating; the time to serving (to "ready" for a floor) and the RSS once idle.
 */
async function startups(n: number): Promise<void> {
  for (let round = 1; round <= n; round++) {
    for (const name of ['etcdlite', 'etcd', 'node', 'node+libs'] as const) {
      const s = name === 'node' || name === 'node+libs' ? await startFloor(name === 'node' ? 'node' : 'libs') : await start(name)
      await sleep(2000)
      records.push({ type: 'startup', server: name, round, readyMs: s.readyMs, idleRssMiB: processRssMiB(s.pid) ?? null })
      log(`[start-up ${round}/${n}] ${name}: ${s.readyMs.toFixed(0)} ms`)
      await ('dispose' in s ? stop(s) : s.stop())
    }
  }
}

/** A start-up floor process: spawned until it prints "ready". */
async function startFloor(mode: 'node' | 'libs'): Promise<{ readonly readyMs: number; readonly pid: number; stop(): Promise<void> }> {
  const t0 = performance.now()
  const proc = spawn(process.execPath, [fileURLToPath(new URL('node/startup-floor.js', import.meta.url)), mode], { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on('data', (d: Buffer) => void (d.toString().includes('ready') && resolve()))
    proc.once('error', reject)
    void exited.then(() => reject(new Error(`startup-floor ${mode} exited before it was ready`)))
  })
  const readyMs = performance.now() - t0
  if (proc.pid === undefined) throw new Error('startup-floor: no pid')
  return { readyMs, pid: proc.pid, stop: async () => void (proc.kill('SIGTERM'), await exited) }
}

/** Run `part` if selected; a failure is reported, and the run goes on with the next part. */
async function part(name: Part, fn: () => Promise<void>): Promise<void> {
  if (!parts.has(name)) return
  try {
    await fn()
  } catch (e) {
    problems.push(`${name}: ${errorMessage(e)}`)
    log(`${name}: failed: ${errorMessage(e)}`)
  }
}

try {
  // The sync floor is measured after each round of the tool, so that it sees the disk as the servers saw it.
  for (let round = 1; round <= rounds; round++) {
    if (runTheTool) {
      try {
        await toolRound(round)
      } catch (e) {
        problems.push(`round ${round}: ${errorMessage(e)}`)
        log(`round ${round}: failed: ${errorMessage(e)}`)
      }
    }
    await part('ceilings', async () => {
      records.push(...recordsOf<SyncFloorRecord>(await runNode('ceiling/sync-floor.js', ['--seconds', quick ? '0.5' : '3', '--round', String(round)]), 'sync-floor'))
      log(`[sync floor ${round}/${rounds}] done`)
    })
  }
  await part('startup', () => startups(starts))
  await part('startup', async () => {
    for (let round = 1; round <= starts; round++) {
      for (const r of recordsOf<FirstOpenRecord>(await runNode('node/first-open.js', []), 'first-open')) records.push({ ...r, round })
    }
  })
  await part('embedded', async () => {
    for (let round = 1; round <= rounds; round++) {
      records.push(...recordsOf<EmbeddedRecord>(await runNode('node/embedded.js', ['--seconds', quick ? '0.5' : '2', '--round', String(round)]), 'embedded'))
      log(`[embedded ${round}/${rounds}] done`)
    }
  })
  await part('informer', async () => {
    const sizes = quick ? ['--events', '2000', '--sync', '5000', '--memory', '20000', '--grpc', '5000'] : ['--events', '20000', '--sync', '100000', '--memory', '200000', '--grpc', '50000']
    for (const line of await runNode('informer.js', sizes, ['--expose-gc'])) records.push({ type: 'informer', line })
    log('[informer] done')
  })
  await part('micro', async () => {
    records.push(...recordsOf<MicroRecord>(await runNode('micro/run.js', ['--json', '--time', quick ? '100' : '300']), 'micro'))
    log('[micro] done')
  })
} finally {
  for (const s of live) s.killSync()
}
writeReport(outDir, { meta: endMeta(meta), records, workloads: runTheTool ? workloads : [], scale, problems })
log(`wrote ${join(outDir, 'RESULTS.md')}${problems.length === 0 ? '' : ` (${problems.length} problem${problems.length === 1 ? '' : 's'}: see its last section)`}`)
