// `npm run bench:micro`: micro-benchmarks of etcdlite's hot paths with tinybench, in-process, no server and
// no etcd. Prints a table, or with --json one JSON line per task (what bench/run.ts reads).
//   node build/bench/micro/run.js [--time 200] [--filter watch] [--json]
// --time: measured ms per task (after a warm-up of a third of it); --filter: only tasks whose name holds it.
import { parseArgs } from 'node:util'
import { Bench } from 'tinybench'
import type { MicroRecord } from '../lib/records.js'
import { intervalTree } from './interval-tree.js'
import { kvCodec } from './kv-codec.js'
import { mvccPut } from './mvcc-put.js'
import type { MicroSuite } from './suite.js'
import { watchEncoding } from './watch-encoding.js'

const SUITES: readonly MicroSuite[] = [kvCodec, watchEncoding, intervalTree, mvccPut]

const { values } = parseArgs({ options: { time: { type: 'string', default: '200' }, filter: { type: 'string' }, json: { type: 'boolean', default: false } } })
const time = Number(values.time)
if (!(time > 0)) throw new TypeError(`--time must be a number of ms > 0, got ${values.time}`)

/** The figures of a finished task, per operation (a task's call does `batch` of them). */
function record(name: string, batch: number, bench: Bench): MicroRecord | string {
  const r = bench.getTask(name)?.result
  if (r === undefined || (r.state !== 'completed' && r.state !== 'aborted-with-statistics')) {
    return `${name}: ${r?.state === 'errored' ? String(r.error) : (r?.state ?? 'not run')}`
  }
  const l = r.latency
  return { type: 'micro', name, opsPerSec: (batch * 1000) / l.mean, meanNs: (l.mean * 1e6) / batch, p99Ns: (l.p99 * 1e6) / batch, rme: l.rme, samples: l.samplesCount }
}

const fmt = (x: number, digits = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

const rows: MicroRecord[] = []
let failed = false
for (const suite of SUITES) {
  const tasks = (await suite.tasks()).map((t) => ({ ...t, name: `${suite.name}: ${t.name}` }))
  const chosen = tasks.filter((t) => values.filter === undefined || t.name.includes(values.filter))
  if (chosen.length === 0) {
    await suite.close?.()
    continue
  }
  const bench = new Bench({ time, warmupTime: time / 3, warmupIterations: 16, iterations: 16 })
  for (const t of chosen) bench.add(t.name, t.fn)
  await bench.run()
  await suite.close?.()
  for (const t of chosen) {
    const r = record(t.name, t.batch ?? 1, bench)
    if (typeof r === 'string') {
      failed = true
      process.stderr.write(`${r}\n`)
    } else if (values.json) {
      process.stdout.write(`${JSON.stringify(r)}\n`)
    } else {
      rows.push(r)
    }
  }
}
if (!values.json) {
  const w = Math.max(...rows.map((r) => r.name.length), 4)
  process.stdout.write(`${'task'.padEnd(w)}  ${'ops/s'.padStart(12)}  ${'mean'.padStart(10)}  ${'p99'.padStart(10)}  ${'±'.padStart(6)}  samples\n`)
  for (const r of rows) {
    process.stdout.write(`${r.name.padEnd(w)}  ${fmt(r.opsPerSec).padStart(12)}  ${`${fmt(r.meanNs)} ns`.padStart(10)}  ${`${fmt(r.p99Ns)} ns`.padStart(10)}  ${`${fmt(r.rme, 1)}%`.padStart(6)}  ${r.samples}\n`)
  }
}
if (failed) process.exitCode = 1
