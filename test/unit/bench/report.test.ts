// The bench's own logic, without servers: reading etcd's benchmark tool's summary, choosing workloads, the
// medians and ratios of the report, and the SVG charts. No timings are asserted.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { benchmarkPath, DEFAULT_BENCHMARK, missingTool, parseToolOutput } from '../../../bench/lib/benchmark-tool.js'
import { commandLine } from '../../../bench/lib/machine.js'
import type { BenchRecord, MetaRecord } from '../../../bench/lib/records.js'
import { buildReport, fmt, ratio, workloadRows, writeReport } from '../../../bench/lib/report.js'
import { median, medianOf } from '../../../bench/lib/stats.js'
import { escapeXml, formatValue, renderBarChart } from '../../../bench/lib/svg-chart.js'
import { selectWorkloads, toolArgs, WORKLOADS } from '../../../bench/lib/workloads.js'

/** What the tool prints for `watch`: the watch creation summary, then the events received one. */
const WATCH_OUTPUT = [
  '\r 0 / 1000    0.00%\r 1000 / 1000  100.00% 0s', '', 'Watch creation summary:', '', 'Summary:', '  Total:\t0.2470 secs.',
  '  Requests/sec:\t4048.3908', '', 'Latency distribution:', '  99% in 0.0200 secs.', '', 'Watch events received summary:', '',
  'Summary:', '  Total:\t1.6966 secs.', '  Slowest:\t0.0768 secs.', '  Requests/sec:\t294713.9470', '', 'Latency distribution:',
  '  10% in 0.0004 secs.', '  99% in 0.0521 secs.', '  99.9% in 0.0700 secs.', '',
].join('\n')

const META: MetaRecord = {
  type: 'meta', date: '2026-01-02T03:04:05.000Z', command: 'npm run bench -- --quick', cpu: 'Test CPU', cores: 2, ramGiB: 3.8,
  kernel: 'Linux 6.1.0-test', node: 'v20.0.0', etcd: 'etcd Version: 3.4.23', etcdlite: '0.1.0 (abc1234)', benchmark: '/x/benchmark',
  loadAvgStart: [0.5, 0.4, 0.3], loadAvgEnd: [1.5, 1, 0.5], rounds: 3, quick: false,
}

describe('etcd benchmark tool output', () => {
  it('reads the last summary: events received for watch, with its p99 in ms', () => {
    const s = parseToolOutput(WATCH_OUTPUT)
    assert.equal(s.perSecond, 294713.947)
    assert.equal(s.p99Ms, 52.1)
    assert.equal(s.seconds, 1.6966)
  })

  it('gives a null p99 when the summary has no latency distribution, and throws without a summary', () => {
    assert.equal(parseToolOutput('Summary:\n  Total:\t1 secs.\n  Requests/sec:\t10\n').p99Ms, null)
    assert.throws(() => parseToolOutput('Error: context deadline exceeded\n'), /no summary/)
    assert.throws(() => parseToolOutput('Summary:\n  Total:\t1 secs.\n'), /no Requests\/sec/)
  })

  it('takes the path from the flag, then ETCD_BENCHMARK, then the default, and says how to build a missing tool', () => {
    assert.equal(benchmarkPath('/a', { ETCD_BENCHMARK: '/b' }), '/a')
    assert.equal(benchmarkPath(undefined, { ETCD_BENCHMARK: '/b' }), '/b')
    assert.equal(benchmarkPath(undefined, {}), DEFAULT_BENCHMARK)
    assert.match(missingTool('/nonexistent/benchmark') ?? '', /go build \.\/tools\/benchmark/)
    assert.equal(missingTool(process.execPath), undefined)
  })
})

describe('workloads', () => {
  it('selects by name in table order and refuses unknown names', () => {
    assert.deepEqual(selectWorkloads('watch,put-1').map((w) => w.name), ['put-1', 'watch'])
    assert.equal(selectWorkloads(undefined).length, WORKLOADS.length)
    assert.throws(() => selectWorkloads('put-1,nope'), /unknown workload nope/)
  })

  it('passes the acceptance table to the tool, scaling only the request count', () => {
    const by = (n: string) => WORKLOADS.find((w) => w.name === n) ?? assert.fail(n)
    assert.equal(toolArgs(by('put-1')).join(' '), '--conns 1 --clients 1 put --total 3000 --key-space-size 100000 --val-size 256')
    assert.equal(toolArgs(by('put-100'), 0.1).join(' '), '--conns 10 --clients 100 put --total 6000 --key-space-size 100000 --val-size 256')
    assert.equal(toolArgs(by('watch')).join(' '), '--conns 10 --clients 100 watch --streams 10 --watch-per-stream 100 --put-total 5000 --put-rate 100000 --key-space-size 1')
    assert.equal(toolArgs(by('put-1'), 0.001)[6], '100', 'at least 100 requests')
  })
})

describe('report', () => {
  const tool = (workload: string, server: 'etcd' | 'etcdlite', round: number, perSecond: number | null, p99Ms: number | null = null): BenchRecord =>
    ({ type: 'tool', workload, server, round, perSecond, p99Ms })
  const records: BenchRecord[] = [
    tool('put-1', 'etcdlite', 1, 900, 2), tool('put-1', 'etcd', 1, 1000, 1), tool('put-1', 'etcdlite', 2, 700, 4), tool('put-1', 'etcd', 2, 1200, 3),
    tool('put-1', 'etcdlite', 3, 800, 3), tool('put-1', 'etcd', 3, 1100, 2), tool('watch', 'etcdlite', 1, 300_000, 50), tool('watch', 'etcd', 1, null),
    { type: 'startup', server: 'etcdlite', round: 1, readyMs: 300, idleRssMiB: 60 }, { type: 'startup', server: 'etcd', round: 1, readyMs: 600, idleRssMiB: 30 },
    { type: 'first-open', round: 1, importMs: 500, openMs: 50 },
    { type: 'embedded', round: 1, op: 'put', storage: 'memory', inFlight: 16, opsPerSec: 30_000 },
    { type: 'informer', line: 'events: 20000 puts -> handler <fast>' },
    { type: 'micro', name: 'kv-codec: encode | KeyValue', opsPerSec: 1_000_000, meanNs: 1000, p99Ns: 2000, rme: 1.5, samples: 100 },
  ]
  const workloads = selectWorkloads('put-1,watch')

  it('reports medians per server and the ratio of the medians; a failed run counts for nothing', () => {
    const [put, watch] = workloadRows(workloads, records)
    assert.deepEqual(put?.perSecond, { etcdlite: 800, etcd: 1100 })
    assert.deepEqual(put?.p99Ms, { etcdlite: 3, etcd: 2 })
    assert.deepEqual(put?.runs.etcd, [1000, 1200, 1100])
    assert.deepEqual(watch?.perSecond, { etcdlite: 300_000, etcd: null })
    assert.deepEqual(watch?.p99Ms, { etcdlite: null, etcd: null }, "the tool's per-event times are not a server latency")
    assert.equal(ratio(800, 1100), '0.73×')
    assert.equal(ratio(800, null), '–')
    assert.equal(median([3, 1, 2, 10]), 2.5)
    assert.equal(medianOf([null, Number.NaN]), null)
    assert.equal(fmt(1234567.891, 2), '1,234,567.89')
    assert.equal(fmt(-1234), '-1,234')
  })

  it('writes RESULTS.md with every section, the raw lines and well-formed charts', async () => {
    const { markdown, charts } = buildReport({ meta: META, records, workloads, scale: 1, problems: ['round 2: etcd did not start'] })
    for (const s of ['| put, 1 client | requests/s | 800 | 1,100 | 0.73× | 3.0 ms | 2.0 ms |', '0.50, 0.40, 0.30 at the start, 1.50, 1.00, 0.50 at the end', 'etcd Version: 3.4.23', '`npm run bench -- --quick`',
      '| start-up to serving | 300 ms | 600 ms | 0.50× |', '`import(\'etcdlite\')` 500 ms', '| put | memory | 16 | 30,000 |',
      'events: 20000 puts -> handler <fast>', '| kv-codec: encode | KeyValue | 1,000,000 | 1,000 ns | 2,000 ns | 1.5 % |', '- round 2: etcd did not start']) {
      assert.ok(markdown.includes(s), `${s} in:\n${markdown}`)
    }
    assert.deepEqual([...charts.keys()].sort(), ['p99', 'ratio', 'startup', 'throughput'])
    assert.ok(!markdown.includes('was busy'))
    assert.ok(buildReport({ meta: { ...META, loadAvgStart: [3, 2, 1] }, records, workloads, scale: 1, problems: [] }).markdown.includes('was busy with other work'))
    const dir = await mkdtemp(join(tmpdir(), 'bench-report-'))
    try {
      writeReport(`${dir}/`, { meta: META, records, workloads, scale: 0.1, problems: [] })
      assert.ok((await readFile(join(dir, 'RESULTS.md'), 'utf8')).includes('Request counts × 0.1 (--quick).'))
      const lines = (await readFile(join(dir, 'results.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as BenchRecord)
      assert.deepEqual(lines, [META, ...records])
      for (const name of charts.keys()) {
        const svg = await readFile(join(dir, 'results', `${name}.svg`), 'utf8')
        assert.match(svg, /^<svg [^>]*>[\s\S]*<\/svg>\n$/)
        assert.equal(svg.match(/<text\b/g)?.length, svg.match(/<\/text>/g)?.length)
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('writes the same report again from the saved lines (run.js --from), running nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-from-'))
    try {
      writeReport(dir, { meta: META, records, workloads, scale: 1, problems: [] })
      const first = await readFile(join(dir, 'RESULTS.md'), 'utf8')
      const again = join(dir, 'again')
      const run = fileURLToPath(new URL('../../../bench/run.js', import.meta.url))
      await promisify(execFile)(process.execPath, [run, '--from', join(dir, 'results.jsonl'), '--out', again])
      assert.equal(await readFile(join(again, 'RESULTS.md'), 'utf8'), first)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('svg chart and command line', () => {
  it('renders nulls as notes, escapes text and formats values without the locale', () => {
    const svg = renderBarChart({ title: 'a<b', unit: 'u', series: [{ name: 'x&y', color: '#000' }], groups: [{ label: 'g', values: [null], notes: ['lost'] }, { label: 'h', values: [1500] }] })
    assert.ok(svg.includes('<title>a&lt;b</title>') && svg.includes('x&amp;y: lost') && svg.includes('>1500</text>'), svg)
    const cases: readonly [number, string][] = [[0, '0'], [1234, '1234'], [12_345, '12.3k'], [999.6, '1000'], [0.01234, '0.0123'], [2_500_000, '2.5M']]
    for (const [x, want] of cases) assert.equal(formatValue(x), want, String(x))
    assert.equal(escapeXml('<a & "b">\''), '&lt;a &amp; &quot;b&quot;&gt;&#39;')
    assert.equal(commandLine('npm run bench --', ['--workloads', 'a,b', "it's"]), "npm run bench -- --workloads a,b 'it'\\''s'")
  })
})
