import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildReport, watchWindowText, writeReport } from '../../../bench/lib/report.js'
import { fmtNum, isClientBound } from '../../../bench/lib/report-lines.js'
import { commandLine, parseJsonLines, parseMeta, type ReportMeta } from '../../../bench/lib/report-meta.js'
import { computeTargets, type TargetRow, type Verdict } from '../../../bench/lib/report-targets.js'
import { reportDirFor } from '../../../bench/lib/report-sections.js'
import { escapeXml, formatValue, renderBarChart } from '../../../bench/lib/svg-chart.js'

const META: ReportMeta = {
  command: 'node build/bench/run.js --seconds 1 --workloads put-16conn',
  etcdVersion: 'etcd Version: 3.4.23',
  unsafeNoFsync: false,
  date: '2025-01-02T03:04:05.000Z',
  machine: { cpuModel: 'Test CPU @ 1 GHz', cores: 2, ramGiB: 3.8, kernel: 'Linux 6.1.0-test', arch: 'x64' },
  nodeVersion: 'v20.0.0',
  etcdliteVersion: '0.1.0',
}

const kvSide = (ops: number | null, p99: number | null): object => ({
  opsPerSec: ops, p50Ms: p99 === null ? null : p99 / 2, p99Ms: p99, serverCpuPct: 90, serverCpuUsPerOp: ops === null ? null : 150, clientCpuPct: 80, errors: 0,
})
const WEIRD = 'odd<&>"\'|name'

/** A subset run: two KV workloads (one with etcdlite missing), ceilings, two watch, one lease, start-up with 1,000 keys. */
const LINES: readonly object[] = [
  { type: 'meta', command: 'ignored by writeReport' },
  {},
  { type: 'summary' },
  { type: 'result', round: 1, workload: 'put-16conn', server: 'etcd', op: 'put', opsPerSec: 1000, serverRssMiB: 40 },
  { type: 'result', round: 1, workload: 'put-16conn', server: 'etcdlite', op: 'put', opsPerSec: 1600, serverRssMiB: 70.25 },
  { type: 'ceiling', kind: 'rpc', round: 1, workload: 'put-16conn', opsPerSec: 1800, p99Ms: 3 },
  { type: 'ceiling', kind: 'storage', round: 1, batchSize: 1, sync: true, putsPerSec: 500, batchesPerSec: 500, p50Ms: 1.9, p99Ms: 4 },
  { type: 'ceiling', kind: 'storage', round: 1, batchSize: 16, sync: false, putsPerSec: 90000, batchesPerSec: 5625, p50Ms: 0.1, p99Ms: 0.3 },
  { type: 'summary', workload: 'put-16conn', op: 'put', clients: 16, channels: 16, rounds: 1, seconds: 1, keySize: 16, valueSize: 64,
    etcd: kvSide(1000, 20), etcdlite: kvSide(1600, 10), opsRatio: 1.6, p99Ratio: 2 },
  { type: 'summary', workload: 'range-16conn', op: 'range', clients: 16, channels: 16, rounds: 1, seconds: 1, keySize: 16, valueSize: 64,
    etcd: kvSide(3000, 8), etcdlite: kvSide(null, null), opsRatio: null, p99Ratio: null },
  { type: 'summary', workload: WEIRD, op: 'put', etcd: kvSide(10, 1), etcdlite: 'not an object', opsRatio: 'x' },
  { type: 'summary', workload: 'watch-fanout-100', kind: 'fanout', name: 'watch-fanout-100', watchers: 100, streams: 10, rate: null,
    etcd: { eventsPerSec: 10000, p99Ms: 50, undeliveredPct: 0 }, etcdlite: { eventsPerSec: 20000, p99Ms: null, undeliveredPct: 3.5 }, eventsRatio: 2, p99Ratio: null },
  { type: 'summary', workload: 'watch-mem-100k', kind: 'mem', name: 'watch-mem-100k', etcd: { bytesPerWatcher: 2100, rssBeforeMiB: 30, rssAfterMiB: 230 },
    etcdlite: { bytesPerWatcher: 812, rssBeforeMiB: 60, rssAfterMiB: null }, memRatio: 2.586 },
  { type: 'summary', workload: 'lease-churn-16', kind: 'churn', name: 'lease-churn-16', etcd: { cyclesPerSec: 900, p99Ms: 40, serverUsPerCycle: 700 },
    etcdlite: { cyclesPerSec: 1200, p99Ms: 30, serverUsPerCycle: 400 }, cyclesRatio: 1.333 },
  { type: 'summary', workload: 'startup-1m', keys: 1000, etcd: { startupSeconds: 1.2, crashStartupSeconds: 1.3, readyEmptySeconds: 0.5, rssPerKeyBytes: 300 },
    etcdlite: { startupSeconds: 0.8, crashStartupSeconds: 2.6, readyEmptySeconds: 0.3, rssPerKeyBytes: null }, startupRatio: 1.5 },
  { type: 'summary', ceilingOf: 'put-16conn', kind: 'rpc', workload: 'put-16conn', ceiling: 1800, etcd: 1000, lite: 1600 },
  { type: 'steal', stealPct: 12.5, seconds: 60 },
]

/** Balanced tags, quoted attributes, one <svg> root, every `&` an entity: enough to catch broken output. */
function assertWellFormedSvg(svg: string): void {
  assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'), 'starts with the svg root')
  assert.equal(/&(?!(?:amp|lt|gt|quot|#39);)/.exec(svg), null, 'every & is an entity')
  const stack: string[] = []
  let roots = 0
  for (const tok of svg.match(/<[^>]*>|[^<]+/g) ?? []) {
    if (!tok.startsWith('<')) {
      assert.ok(!tok.includes('>'), `raw > in text: ${tok}`)
      if (stack.length === 0) assert.equal(tok.trim(), '', 'no text outside the root')
      continue
    }
    const m = /^<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<>]*")*)\s*(\/?)>$/.exec(tok)
    assert.ok(m !== null, `malformed tag: ${tok}`)
    const [, close, name = '', , self] = m
    if (close === '/') assert.equal(stack.pop(), name, `unbalanced </${name}>`)
    else if (self !== '/') {
      if (stack.length === 0) roots++
      stack.push(name)
    }
  }
  assert.deepEqual(stack, [], 'every tag closed')
  assert.equal(roots, 1, 'one root element')
}

/** The markdown table row whose first cell starts with `first`. */
function row(md: string, first: string): string[] {
  const line = md.split('\n').find((l) => l.startsWith(`| ${first}`))
  assert.ok(line !== undefined, `no row starting with ${first}`)
  return line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim())
}

describe('bench report', () => {
  it('computes the benchmark targets from the lines', () => {
    const want: readonly { readonly prefix: string; readonly met: Verdict }[] = [
      { prefix: 'put-16conn: etcdlite ops/s', met: 'yes' },
      { prefix: 'put-16conn: etcdlite ≥ 85 %', met: 'yes' }, // 1600 of 1800 = 89 %
      { prefix: 'range-16conn', met: '-' }, // etcdlite missing
      { prefix: 'watch-fanout-100:', met: 'no' }, // 2× events, but etcdlite's p99 was lost
      { prefix: 'watch-fanout-10k', met: '-' }, // not in this run
      { prefix: 'watch-mem-100k', met: 'yes' },
      { prefix: 'startup-1m:', met: 'yes' },
      { prefix: 'startup-1m after SIGKILL', met: 'no' }, // 1.3 ÷ 2.6 = 0.5
    ]
    const targets = computeTargets(LINES)
    assert.equal(targets.length, want.length)
    for (const [i, w] of want.entries()) {
      assert.ok(targets[i]?.target.startsWith(w.prefix), `${targets[i]?.target} starts with ${w.prefix}`)
      assert.equal(targets[i]?.met, w.met, w.prefix)
    }
    assert.match(targets[6]?.note ?? '', /1,000 keys/)
    assert.match(targets[3]?.measured ?? '', /etcdlite p99 lost/)
    assert.match(targets[7]?.measured ?? '', /^0\.50×/)
  })

  it("marks a target not met as out of reach when the run's own ceilings rule it out", () => {
    // put-16conn: etcdlite 1.1× etcd, and the RPC ceiling only 1.2× etcd: 1.5× is out of reach.
    // watch-fanout-100: 1.5 × 100,000 events/s = 1,500 puts/s; writer 0.75 cores (0.0005/put), watchers
    // 150,000 × 4 µs = 0.6, answering 1,500 × 400 µs = 0.6, pushing 150,000 × 1 µs = 0.15: 2.1 of 2 cores.
    const lines: readonly object[] = [
      { type: 'summary', workload: 'put-16conn', op: 'put', etcd: kvSide(1000, 20), etcdlite: kvSide(1100, 10), opsRatio: 1.1 },
      { type: 'ceiling', kind: 'rpc', round: 1, workload: 'put-16conn', opsPerSec: 1200, serverCpuUsPerOp: 400, clientCpuPct: 90 },
      { type: 'summary', ceilingOf: 'put-16conn', kind: 'rpc', workload: 'put-16conn', ceiling: 1200, etcd: 1000, lite: 1100 },
      { type: 'summary', workload: 'watch-fanout-100', kind: 'fanout', watchers: 100, eventsRatio: 0.9,
        etcd: { eventsPerSec: 100_000, putsPerSec: 1000, writerCpuPct: 50, clientUsPerEvent: 4, p99Ms: 50 },
        etcdlite: { eventsPerSec: 90_000, putsPerSec: 900, writerCpuPct: 60, clientUsPerEvent: 5, p99Ms: 20 } },
      { type: 'ceiling', kind: 'push', round: 1, workload: 'watch-fanout-100', serverUsPerEvent: 1 },
    ]
    const targets = computeTargets(lines, 2)
    const put = targets.find((t) => t.target.startsWith('put-16conn: etcdlite ops/s'))
    assert.equal(put?.met, 'out of reach')
    assert.match(put?.note ?? '', /RPC ceiling \(canned answers\) reached 1,200 ops\/s, 1\.20× etcd/)
    // The 85 % target is a share of that ceiling: 1,100 of 1,200 is met, and never "out of reach".
    assert.equal(targets.find((t) => t.target.startsWith('put-16conn: etcdlite ≥ 85 %'))?.met, 'yes')
    const fan = targets.find((t) => t.target.startsWith('watch-fanout-100:'))
    assert.equal(fan?.met, 'out of reach')
    assert.match(fan?.note ?? '', /writer needs 0\.75 cores, the watcher processes 0\.60, a server answering the puts with canned responses 0\.60 and pushing the events pre-encoded 0\.15: 2\.10 of the machine's 2 cores/)
    // On 4 cores the same run rules nothing out for fan-out: a plain "no".
    assert.equal(computeTargets(lines, 4).find((t) => t.target.startsWith('watch-fanout-100:'))?.met, 'no')
    const { markdown: md } = buildReport(lines, META) // META's machine has 2 cores
    assert.ok(md.includes('2 of those not met are out of reach on this machine'), md.split('\n').find((l) => l.includes('measured targets')))
    assert.deepEqual(row(md, 'put-16conn: etcdlite ops/s').slice(2, 3), ['⛔ no, out of reach here'])
  })

  it('bounds a full-speed fan-out target by the put-16conn commit ceiling when its CPU budget fits the cores', () => {
    // etcd 300,000 events/s to 100 watchers: 1.5× takes 4,500 puts/s; the commit ceiling made 4,000. The CPU
    // budget (writer 0.0001 cores·s/put × 4,500 = 0.45, watchers 450,000 × 0.5 µs = 0.225, answering
    // 4,500 × 80 µs = 0.36, pushing 450,000 × 0.2 µs = 0.09: 1.125) fits 2 cores and rules nothing out.
    const fanout = (rate: number | null): object => ({
      type: 'summary', workload: 'watch-fanout-100', kind: 'fanout', watchers: 100, rate, eventsRatio: 0.9,
      etcd: { eventsPerSec: 300_000, putsPerSec: 3000, writerCpuPct: 30, clientUsPerEvent: 0.5, p99Ms: 100 },
      etcdlite: { eventsPerSec: 270_000, putsPerSec: 2700, writerCpuPct: 30, clientUsPerEvent: 0.6, p99Ms: 15 },
    })
    const rest: readonly object[] = [
      { type: 'ceiling', kind: 'rpc', round: 1, workload: 'put-16conn', opsPerSec: 6000, serverCpuUsPerOp: 80, clientCpuPct: 90 },
      { type: 'summary', ceilingOf: 'put-16conn', kind: 'rpc', workload: 'put-16conn', ceiling: 6000, etcd: 4000, lite: 4000 },
      { type: 'ceiling', kind: 'push', round: 1, workload: 'watch-fanout-100', serverUsPerEvent: 0.2 },
    ]
    const commit = { type: 'summary', ceilingOf: 'put-16conn', kind: 'commit', workload: 'put-16conn', ceiling: 4000, etcd: 4000, lite: 4000 }
    const fan = (lines: readonly object[]): TargetRow | undefined => computeTargets(lines, 2).find((t) => t.target.startsWith('watch-fanout-100:'))
    const out = fan([fanout(null), ...rest, commit])
    assert.equal(out?.met, 'out of reach')
    assert.match(out?.note ?? '', /^out of reach here: 450,000 events\/s to 100 watchers take at least 4,500 puts\/s from the writer \(put-16conn's load\), and on that load the commit ceiling .* reached 4,000 ops\/s with no watchers$/)
    // Without the commit ceiling, or a commit ceiling of 4,500 puts/s, or a writer at a fixed rate: a plain "no".
    assert.equal(fan([fanout(null), ...rest])?.met, 'no')
    assert.equal(fan([fanout(null), ...rest, { ...commit, ceiling: 4500 }])?.met, 'no')
    assert.equal(fan([fanout(500), ...rest, commit])?.met, 'no')
  })

  it('bounds the put targets by the commit ceiling when that is the lower one, and tabulates it', () => {
    // RPC ceiling 4,000 (2.0× etcd) rules nothing out; the commit ceiling, 2,700 (1.35× etcd, 67.5 % of the
    // RPC ceiling), rules out both 1.5× etcd (3,000) and 85 % of the RPC ceiling (3,400).
    const lines: readonly object[] = [
      { type: 'summary', workload: 'put-16conn', op: 'put', etcd: kvSide(2000, 20), etcdlite: kvSide(2400, 10), opsRatio: 1.2 },
      { type: 'summary', ceilingOf: 'put-16conn', kind: 'rpc', workload: 'put-16conn', ceiling: 4000, etcd: 2000, lite: 2400 },
      { type: 'ceiling', kind: 'commit', round: 1, workload: 'put-16conn', opsPerSec: 2700, p50Ms: 4.5, p99Ms: 12, serverCpuUsPerOp: 250 },
      { type: 'summary', ceilingOf: 'put-16conn', kind: 'commit', workload: 'put-16conn', ceiling: 2700, etcd: 2000, lite: 2400 },
    ]
    const targets = computeTargets(lines, 2)
    const put = targets.find((t) => t.target.startsWith('put-16conn: etcdlite ops/s'))
    assert.equal(put?.met, 'out of reach')
    assert.match(put?.note ?? '', /commit ceiling \(canned answers once each put's record is committed to LevelDB\) reached 2,700 ops\/s, 1\.35× etcd, below the 3,000 ops\/s/)
    const share = targets.find((t) => t.target.startsWith('put-16conn: etcdlite ≥ 85 %'))
    assert.equal(share?.met, 'out of reach')
    assert.equal(share?.measured, '60 % (2,400 of 4,000 ops/s); 89 % of the commit ceiling (2,700 ops/s)')
    assert.match(share?.note ?? '', /reached 2,700 ops\/s, 68 % of the RPC ceiling's 4,000, below the 3,400 ops\/s asked for/)
    // Met targets stay met, whatever the commit ceiling says; without one, the RPC ceiling's verdicts stand.
    const noCommit = computeTargets(lines.filter((l) => !('kind' in l && l.kind === 'commit')), 2)
    assert.equal(noCommit.find((t) => t.target.startsWith('put-16conn: etcdlite ops/s'))?.met, 'no')
    assert.equal(noCommit.find((t) => t.target.startsWith('put-16conn: etcdlite ≥ 85 %'))?.met, 'no')
    const md = buildReport(lines, META).markdown
    assert.ok(md.includes('Commit ceiling = the RPC ceiling\'s server committing each Put\'s record to LevelDB'))
    assert.deepEqual(row(md, 'put-16conn | 4,000 | 2,700'), ['put-16conn', '4,000', '2,700', '68 %', '4.50', '12.00', '0.250', '74 %', '89 %'])
    assert.ok(!buildReport(LINES, META).markdown.includes('Commit ceiling ='), 'no commit table for a run without the commit ceiling')
  })

  it("tabulates the load generator's main thread and the CPU steal per KV workload, and flags a client-bound RPC ceiling", () => {
    const res = (server: string, round: number, main: number, steal: number): object =>
      ({ type: 'result', round, workload: 'put-16conn', server, op: 'put', opsPerSec: 2000, clientMainCpuPct: main, stealPct: steal })
    const lines: readonly object[] = [
      res('etcd', 1, 70, 0.5), res('etcd', 2, 74, 0.1), res('etcd', 3, 72, 0.2),
      res('etcdlite', 1, 80, 0.3), res('etcdlite', 2, 88, 4.25), res('etcdlite', 3, 84, 0),
      { type: 'ceiling', kind: 'rpc', round: 1, workload: 'put-16conn', opsPerSec: 3000, clientMainCpuPct: 95, stealPct: 0.1 },
      { type: 'ceiling', kind: 'rpc', round: 2, workload: 'put-16conn', opsPerSec: 3200, clientMainCpuPct: 91, stealPct: 0.2 },
      { type: 'ceiling', kind: 'commit', round: 1, workload: 'put-16conn', opsPerSec: 2800, clientMainCpuPct: 89.4, stealPct: null },
      { type: 'summary', workload: 'put-16conn', op: 'put', etcd: kvSide(2000, 20), etcdlite: kvSide(2000, 10), opsRatio: 1 },
      { type: 'summary', ceilingOf: 'put-16conn', kind: 'rpc', workload: 'put-16conn', ceiling: 3100, etcd: 2000, lite: 2000 },
      { type: 'summary', ceilingOf: 'put-16conn', kind: 'commit', workload: 'put-16conn', ceiling: 2800, etcd: 2000, lite: 2000 },
      // A workload measured without the fields (an older run's lines): a row of dashes would say nothing.
      { type: 'summary', workload: 'range-16conn', op: 'range', etcd: kvSide(3000, 8), etcdlite: kvSide(3300, 8), opsRatio: 1.1 },
    ]
    const md = buildReport(lines, META).markdown
    assert.ok(md.includes('⚑ = 90 % or more: the client, not the server, was the limit'))
    // Medians per server and ceiling (the RPC ceiling's 93 % is flagged, the commit ceiling's 89.4 % is not, and 89.5 % would be: it prints as 90 %), the highest steal.
    assert.deepEqual(row(md, 'put-16conn | 72 %'), ['put-16conn', '72 %', '84 %', '93 % ⚑', '89 %', '4.3 %'])
    assert.ok(!md.includes('| range-16conn | -'), 'no row for a workload without the fields')
    assert.deepEqual([89.4, 89.5, 90, 100].map(isClientBound), [false, true, true, true])
    const share = computeTargets(lines, 2).find((t) => t.target.startsWith('put-16conn: etcdlite ≥ 85 %'))
    assert.equal(share?.met, 'no')
    assert.equal(share?.note, "the load generator's main thread was 93 % busy while the RPC ceiling was measured: the ceiling is the client's limit here, not the server's")
    // Below 90 %, or without the field, the note says nothing of the client; a run without any gets no table.
    const calm = lines.map((l) => ('kind' in l && l.kind === 'rpc' && 'clientMainCpuPct' in l ? { ...l, clientMainCpuPct: 85 } : l))
    assert.equal(computeTargets(calm, 2).find((t) => t.target.startsWith('put-16conn: etcdlite ≥ 85 %'))?.note, '')
    assert.ok(!buildReport(LINES, META).markdown.includes('Load generator:'), 'no table for a run without the fields')
    // The client is named: grpc-js when the lines do not say (runs before --client), else as they say.
    assert.ok(md.includes('runs every client of the workload (grpc-js) on its main thread'))
    const h2 = lines.map((l) => ('clientMainCpuPct' in l ? { ...l, client: 'h2' } : l))
    assert.ok(buildReport(h2, META).markdown.includes('runs every client of the workload (bare node:http2, `--client h2`) on its main thread'))
  })

  it('writes the header, the checklist and one table per group present', () => {
    const { markdown: md } = buildReport(LINES, META)
    for (const s of ['Test CPU @ 1 GHz, 2 cores, 3.8 GiB RAM, Linux 6.1.0-test (x64)', 'etcd Version: 3.4.23', '`node build/bench/run.js --seconds 1 --workloads put-16conn`',
      '| durability | durable', '2025-01-02T03:04:05.000Z', '4 of 6 measured targets met (2 not measured in this run)',
      "| CPU steal | 12.5 % of the machine's CPU time"]) {
      assert.ok(md.includes(s), `markdown has ${s}`)
    }
    assert.deepEqual(row(md, 'put-16conn: etcdlite ops/s').slice(1, 3), ['1.60×', '✅ yes'])
    assert.deepEqual(row(md, 'watch-fanout-100:').slice(2, 3), ['❌ no'])
    // KV: ops, ratio, CPU s/1k ops = µs/op / 1000, RSS from the result lines, ceiling and shares.
    const put = row(md, 'put-16conn |')
    assert.deepEqual(put.slice(9), ['0.150', '0.150', '40.0', '70.3', '1,800', '56 %', '89 %'])
    const range = row(md, 'range-16conn |')
    assert.deepEqual([range[1], range[2], range[3], range[7]], ['3,000', '-', '-', '-'])
    assert.ok(md.includes('odd<&>"\'\\|name'), 'a pipe in a cell is escaped')
    assert.deepEqual(row(md, 'watch-fanout-100 |').slice(1, 8), ['10,000', '20,000', '2.00×', '50.00', 'lost', '-', '0.0 / 3.5'])
    assert.deepEqual(row(md, 'watch-mem-100k |').slice(1, 6), ['2,100', '812', '2.59×', '30.0 → 230.0', '60.0 → -'])
    assert.deepEqual(row(md, 'startup-1m |').slice(1, 7), ['1,000', '1.20', '0.80', '1.50×', '1.30 / 2.60', '0.50×'])
    assert.deepEqual(row(md, '16 |'), ['16', 'no', '90,000', '5,625', '0.10', '0.30'])
    for (const h of ['## KV', '## Watch', '### Fan-out', '### Memory per watcher', '## Lease', '### Churn', '## Start-up', '## Storage ceiling']) assert.ok(md.includes(h), h)
    for (const h of ['### Catch-up', '### Expiry']) assert.ok(!md.includes(h), `no ${h} in a subset run`)
    assert.doesNotMatch(md, /NaN|undefined|null|Infinity/)
  })

  it('draws well-formed charts, linked relatively, only for the groups present', () => {
    const { markdown, charts } = buildReport(LINES, META)
    assert.deepEqual([...charts.keys()].sort(), ['kv-ops.svg', 'kv-p99.svg', 'lease-churn.svg', 'startup.svg', 'watch-events.svg', 'watch-p99.svg'])
    for (const [name, svg] of charts) {
      assertWellFormedSvg(svg)
      assert.ok(markdown.includes(`](results/${name})`), `${name} linked`)
    }
    const ops = charts.get('kv-ops.svg') ?? ''
    assert.ok(ops.includes('odd&lt;&amp;&gt;&quot;&#39;|name'), 'labels escaped')
    assert.ok(ops.includes('>ceiling</text>'), 'ceiling series in the legend')
    assert.ok((charts.get('watch-p99.svg') ?? '').includes('etcdlite: lost'), 'a lost p99 is labelled')
  })

  it('is deterministic and removes its own stale charts only', () => {
    assert.equal(buildReport(LINES, META).markdown, buildReport([...LINES], META).markdown)
    const dir = mkdtempSync(join(tmpdir(), 'etcdlite-report-'))
    try {
      writeReport(LINES, META, dir)
      const first = readFileSync(join(dir, 'results', 'kv-ops.svg'))
      writeFileSync(join(dir, 'results', 'keep-me.txt'), 'x')
      const paths = writeReport(LINES, META, dir)
      assert.ok(paths.includes(join(dir, 'RESULTS.md')))
      assert.ok(first.equals(readFileSync(join(dir, 'results', 'kv-ops.svg'))), 'same bytes')
      writeReport(LINES.filter((l) => !('kind' in l && l.kind === 'churn')), META, dir)
      assert.ok(!existsSync(join(dir, 'results', 'lease-churn.svg')), 'stale chart removed')
      assert.ok(existsSync(join(dir, 'results', 'keep-me.txt')), 'other files kept')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('survives an empty run', () => {
    const { markdown, charts } = buildReport([], { command: 'x', etcdVersion: null, unsafeNoFsync: null })
    assert.equal(charts.size, 0)
    assert.ok(markdown.includes('0 of 0 measured targets met (8 not measured in this run)'))
    assert.match(markdown, /\| etcd \| - \|/)
    assert.ok(!markdown.includes('CPU steal'), 'no steal row when the run did not measure it')
    assert.ok(!markdown.includes('| warm-up |'), 'no warm-up row for a run that predates --server-warmup')
    assert.ok(!markdown.includes('| watch clients |'), 'no watch-clients row for a run that predates the window setting')
  })

  it('links a durable report and a --unsafe-no-fsync report to each other, from where each is written', () => {
    assert.equal(reportDirFor(false), 'bench')
    assert.equal(reportDirFor(true), join('bench', 'unsafe-no-fsync'))
    const row = (md: string, name: string): string => md.split('\n').find((l) => l.startsWith(`| ${name} |`)) ?? ''
    const durable = buildReport(LINES, { ...META, unsafeNoFsync: false }).markdown
    assert.match(row(durable, '--unsafe-no-fsync run'), /\[unsafe-no-fsync\/RESULTS\.md\]\(unsafe-no-fsync\/RESULTS\.md\)/)
    assert.ok(durable.includes('See [README.md](README.md)'))
    assert.ok(durable.includes('\n## Targets\n'))
    assert.equal(row(durable, 'durable run'), '')
    const unsafe = buildReport(LINES, { ...META, unsafeNoFsync: true }).markdown
    assert.match(row(unsafe, 'durable run'), /where the targets apply: \[RESULTS\.md\]\(\.\.\/RESULTS\.md\)/)
    assert.ok(unsafe.includes('See [README.md](../README.md)'))
    assert.ok(unsafe.includes('\n## Targets, for comparison only\n\nThe targets are defined for durable mode'))
    assert.equal(row(unsafe, '--unsafe-no-fsync run'), '')
    const unknown = buildReport(LINES, { ...META, unsafeNoFsync: null }).markdown
    assert.equal(row(unknown, 'durable run') + row(unknown, '--unsafe-no-fsync run'), '', 'no cross-link when the mode is unknown')
  })

  it("states the watcher processes' flow-control window", () => {
    const line = (bytes: number): string => buildReport(LINES, { ...META, watchWindowBytes: bytes }).markdown.split('\n').find((l) => l.startsWith('| watch clients |')) ?? ''
    assert.match(line(1024 * 1024), /grant a 1 MiB HTTP\/2 flow-control window per stream and per connection/)
    assert.match(line(65_536), /grant a 64 KiB HTTP\/2/)
    assert.match(line(65_535), /grant a 65,535 B HTTP\/2/)
    assert.equal(watchWindowText(2 * 1024 * 1024).startsWith('the watcher processes grant a 2 MiB'), true)
  })

  it('states the warm-up each server had before it was measured', () => {
    const warm = buildReport(LINES, { ...META, warmup: { seconds: 1, serverSeconds: 5 } }).markdown
    const line = warm.split('\n').find((l) => l.startsWith('| warm-up |')) ?? ''
    assert.match(line, /1\.0 s of load before each measurement/)
    assert.match(line, /--server-warmup 5\.0/)
    assert.match(line, /fan-out and churn workloads, each on a fresh server, warmed up for 5\.0 s/)
    const cold = buildReport(LINES, { ...META, warmup: { seconds: 2, serverSeconds: 0 } }).markdown
    assert.match(cold.split('\n').find((l) => l.startsWith('| warm-up |')) ?? '', /2\.0 s of load before each measurement; no server warm-up \(--server-warmup 0\)/)
  })

  it('draws an empty chart, a log axis and non-positive values without breaking', () => {
    const cases = [
      { groups: [], scale: 'auto' as const, has: 'no data' },
      { groups: [{ label: 'a', values: [1, 1000, 100_000] }], scale: 'auto' as const, has: 'log scale' },
      { groups: [{ label: 'a', values: [0, -5, null] }], scale: 'log' as const, has: 'x: -' },
      { groups: [{ label: 'a', values: [3, 4] }], scale: 'auto' as const, has: '>0</text>' },
    ]
    for (const c of cases) {
      const svg = renderBarChart({ title: 't', unit: 'u', scale: c.scale, series: [{ name: 'x', color: '#000' }, { name: 'y', color: '#111' }, { name: 'x', color: '#222' }], groups: c.groups })
      assertWellFormedSvg(svg)
      assert.ok(svg.includes(c.has), `${c.has} in ${svg}`)
    }
  })

  it('formats numbers without the locale', () => {
    const cases: readonly [number, string][] = [[0, '0'], [1234, '1234'], [12_345, '12.3k'], [999.6, '1000'], [0.01234, '0.0123'], [2_500_000, '2.5M'], [100, '100']]
    for (const [x, want] of cases) assert.equal(formatValue(x), want, String(x))
    assert.equal(fmtNum(1234567.891, 2), '1,234,567.89')
    assert.equal(fmtNum(-1234, 0), '-1,234')
    assert.equal(fmtNum(null, 1), '-')
    assert.equal(escapeXml('<a & "b">\''), '&lt;a &amp; &quot;b&quot;&gt;&#39;')
  })

  it('reads saved stdout and run metadata', () => {
    const text = ['table header  x', '{"type":"summary","workload":"w","op":"put"}', '{broken', '[1,2]', '  {"type":"meta","command":"c","unsafeNoFsync":true}'].join('\n')
    const objs = parseJsonLines(text)
    assert.equal(objs.length, 2)
    assert.deepEqual(parseMeta(objs[1]), { command: 'c', etcdVersion: null, unsafeNoFsync: true })
    assert.equal(parseMeta({ nope: 1 }), undefined)
    assert.deepEqual(parseMeta({ command: 'c', warmup: { seconds: 1, serverSeconds: 5 } })?.warmup, { seconds: 1, serverSeconds: 5 })
    assert.equal(parseMeta({ command: 'c', warmup: { seconds: 1 } })?.warmup, undefined, 'a half-given warm-up is left out')
    assert.equal(parseMeta({ command: 'c', watchWindowBytes: 1_048_576 })?.watchWindowBytes, 1_048_576)
    assert.equal(parseMeta({ command: 'c' })?.watchWindowBytes, undefined)
    assert.equal(commandLine([], 'npm run bench --'), 'npm run bench')
    assert.equal(commandLine(['--workloads', 'a,b', '--etcd-args=--x y', "it's"]), "node build/bench/run.js --workloads a,b '--etcd-args=--x y' 'it'\\''s'")
  })
})
