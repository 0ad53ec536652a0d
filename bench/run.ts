// `npm run bench`: etcd vs etcdlite over gRPC on this machine, in one run. Both servers write durably to
// fresh temp data dirs; every workload runs in a separate client process (bench/client.ts), the same code
// for both servers; the server order alternates to spread drift. Prints JSON lines, then a table.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { median } from './lib/stats.js'
import { processCpuSeconds, processRssMiB, startEtcd, startEtcdlite, type BenchServer, type ServerName } from './lib/servers.js'
import { MEASURE_END, MEASURE_START, WORKLOADS, type ClientResult, type LoadParams, type Workload } from './lib/workloads.js'

const CLIENT_JS = fileURLToPath(new URL('./client.js', import.meta.url))

const USAGE = `usage: npm run bench -- [options]
  --seconds N          measured seconds per workload (default: $BENCH_SECONDS or 5)
  --warmup N           warm-up seconds before each measurement (default 1)
  --rounds N           repeat everything N times, alternating server order; report medians (default 1)
  --workloads a,b      only these workloads (default: all): ${WORKLOADS.map((w) => w.name).join(', ')}
  --key-size N         key size in bytes (default 16)
  --value-size N       value size in bytes (default 128)
  --key-space N        distinct keys the put workloads cycle through (default 10000)
  --serializable       send Range with serializable=true (default: linearizable, as clients do)
  --etcdlite-node-args="..." node flags for the etcdlite process, e.g. --etcdlite-node-args="--cpu-prof --cpu-prof-dir=prof"
  --etcdlite-args="..."      extra etcdlite flags;  --etcd-args="..."  extra etcd flags (use the = form)
  --help`

interface RunArgs extends LoadParams {
  readonly rounds: number
  readonly workloads: readonly Workload[]
  readonly etcdliteNodeArgs: readonly string[]
  readonly etcdliteArgs: readonly string[]
  readonly etcdArgs: readonly string[]
}

function splitArgs(s: string | undefined): string[] {
  return s === undefined ? [] : s.split(/\s+/).filter((x) => x !== '')
}

function parseRunArgs(argv: readonly string[]): RunArgs | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seconds: { type: 'string' },
      warmup: { type: 'string', default: '1' },
      rounds: { type: 'string', default: '1' },
      workloads: { type: 'string' },
      'key-size': { type: 'string', default: '16' },
      'value-size': { type: 'string', default: '128' },
      'key-space': { type: 'string', default: '10000' },
      serializable: { type: 'boolean', default: false },
      'etcdlite-node-args': { type: 'string' },
      'etcdlite-args': { type: 'string' },
      'etcd-args': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  })
  if (values.help) return undefined
  const num = (name: string, v: string | undefined, min: number): number => {
    const n = Number(v)
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number ≥ ${min}, got ${String(v)}`)
    return n
  }
  let workloads = WORKLOADS
  if (values.workloads !== undefined) {
    const names = values.workloads.split(',').map((s) => s.trim()).filter((s) => s !== '')
    const unknown = names.filter((n) => !WORKLOADS.some((w) => w.name === n))
    if (unknown.length > 0) throw new Error(`unknown workload(s) ${unknown.join(', ')}; known: ${WORKLOADS.map((w) => w.name).join(', ')}`)
    workloads = WORKLOADS.filter((w) => names.includes(w.name))
  }
  return {
    seconds: num('seconds', values.seconds ?? process.env['BENCH_SECONDS'] ?? '5', 0.1),
    warmupSeconds: num('warmup', values.warmup, 0),
    rounds: Math.floor(num('rounds', values.rounds, 1)),
    workloads,
    keySize: Math.floor(num('key-size', values['key-size'], 2)),
    valueSize: Math.floor(num('value-size', values['value-size'], 0)),
    keySpace: Math.floor(num('key-space', values['key-space'], 1)),
    serializable: values.serializable,
    etcdliteNodeArgs: splitArgs(values['etcdlite-node-args']),
    etcdliteArgs: splitArgs(values['etcdlite-args']),
    etcdArgs: splitArgs(values['etcd-args']),
  }
}

/** One measurement: a client result plus what the runner saw of the server during the window. */
interface Measurement extends ClientResult {
  readonly round: number
  readonly workload: string
  readonly server: ServerName
  /** Server CPU over the measured window, in % of one core; null when /proc is unavailable. */
  readonly serverCpuPct: number | null
  /** Server CPU time per completed request, in µs (efficiency even when the client is the bottleneck). */
  readonly serverCpuUsPerOp: number | null
  readonly serverRssMiB: number | null
}

/** Live child processes, so every exit path can kill them. */
const liveClients = new Set<ChildProcess>()
const liveServers: BenchServer[] = []

function killEverythingSync(): void {
  for (const c of liveClients) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  for (const s of liveServers) s.killSync()
}

/** Run bench/client.js for one workload against one server and wait for its JSON result. */
async function runClient(server: BenchServer, w: Workload, p: LoadParams): Promise<{ result: ClientResult; serverCpuPct: number | null }> {
  const args = [
    CLIENT_JS, '--endpoint', server.endpoint, '--op', w.op, '--clients', String(w.clients), '--channels', String(w.channels),
    '--seconds', String(p.seconds), '--warmup', String(p.warmupSeconds), '--key-size', String(p.keySize),
    '--value-size', String(p.valueSize), '--key-space', String(p.keySpace), ...(p.serializable ? ['--serializable'] : []),
  ]
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  liveClients.add(child)
  let stdout = ''
  let stderrTail = ''
  let cpuAt: { cpu: number; wall: number } | undefined
  let serverCpuPct: number | null = null
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString()
  })
  let pending = ''
  child.stderr?.on('data', (d: Buffer) => {
    pending += d.toString()
    let nl: number
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl)
      pending = pending.slice(nl + 1)
      if (line === MEASURE_START) {
        const cpu = processCpuSeconds(server.pid)
        if (cpu !== undefined) cpuAt = { cpu, wall: performance.now() }
      } else if (line === MEASURE_END) {
        const cpu = processCpuSeconds(server.pid)
        if (cpu !== undefined && cpuAt !== undefined) {
          const wall = (performance.now() - cpuAt.wall) / 1000
          serverCpuPct = wall > 0 ? Number((((cpu - cpuAt.cpu) / wall) * 100).toFixed(1)) : null
        }
      } else {
        stderrTail = (stderrTail + line + '\n').slice(-4000)
      }
    }
  })
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (c) => resolve(c))
  })
  liveClients.delete(child)
  if (code !== 0) throw new Error(`client for ${w.name} on ${server.name} exited with ${String(code)}:\n${stderrTail}`)
  const result = JSON.parse(stdout.trim()) as ClientResult
  return { result, serverCpuPct }
}

const SERVER_ORDER: readonly ServerName[] = ['etcd', 'etcdlite']

interface Summary {
  readonly opsPerSec: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly serverCpuPct: number | null
  readonly serverCpuUsPerOp: number | null
  readonly clientCpuPct: number
  readonly errors: number
}

function summarize(ms: readonly Measurement[]): Summary {
  const present = (xs: readonly (number | null)[]): number | null => {
    const got = xs.filter((x): x is number => x !== null)
    return got.length === 0 ? null : median(got)
  }
  return {
    opsPerSec: median(ms.map((m) => m.opsPerSec)),
    p50Ms: median(ms.map((m) => m.p50Ms)),
    p99Ms: median(ms.map((m) => m.p99Ms)),
    serverCpuPct: present(ms.map((m) => m.serverCpuPct)),
    serverCpuUsPerOp: present(ms.map((m) => m.serverCpuUsPerOp)),
    clientCpuPct: median(ms.map((m) => m.clientCpuPct)),
    errors: ms.reduce((a, m) => a + m.errors, 0),
  }
}

function fmt(x: number | null, digits: number): string {
  return x === null || Number.isNaN(x) ? '-' : x.toFixed(digits)
}

function printTable(args: RunArgs, rows: readonly { w: Workload; etcd: Summary; lite: Summary }[]): void {
  const header = ['workload', 'etcd ops/s', 'lite ops/s', 'ops ratio', 'etcd p50', 'lite p50', 'etcd p99', 'lite p99', 'p99 ratio', 'etcd cpu%', 'lite cpu%', 'etcd µs/op', 'lite µs/op', 'client cpu% e/l']
  const body = rows.map(({ w, etcd, lite }) => [
    w.name,
    fmt(etcd.opsPerSec, 0), fmt(lite.opsPerSec, 0), fmt(lite.opsPerSec / etcd.opsPerSec, 2),
    fmt(etcd.p50Ms, 2), fmt(lite.p50Ms, 2), fmt(etcd.p99Ms, 2), fmt(lite.p99Ms, 2), fmt(etcd.p99Ms / lite.p99Ms, 2),
    fmt(etcd.serverCpuPct, 0), fmt(lite.serverCpuPct, 0), fmt(etcd.serverCpuUsPerOp, 0), fmt(lite.serverCpuUsPerOp, 0), `${fmt(etcd.clientCpuPct, 0)}/${fmt(lite.clientCpuPct, 0)}`,
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')
  const out = process.stdout
  out.write('\n')
  out.write(`etcd vs etcdlite — ${args.rounds} round(s) × ${args.seconds} s (+${args.warmupSeconds} s warm-up), key ${args.keySize} B, value ${args.valueSize} B, ` +
    `range ${args.serializable ? 'serializable' : 'linearizable'}; medians over rounds; latencies in ms\n`)
  out.write('ops ratio = etcdlite/etcd ops/s; p99 ratio = etcd/etcdlite p99 (both: > 1 means etcdlite is better)\n')
  out.write('NxKconn = N concurrent requests over K gRPC connections; cpu% = server CPU in % of one core during the window;\n' +
    'µs/op = server CPU time per request; client cpu% near 100 × cores means the load generator is the limit\n\n')
  out.write(`${line(header)}\n`)
  for (const r of body) out.write(`${line(r)}\n`)
  const errs = rows.filter((r) => r.etcd.errors + r.lite.errors > 0)
  if (errs.length > 0) out.write(`\nWARNING: request errors in ${errs.map((r) => r.w.name).join(', ')} (see JSON lines)\n`)
}

async function main(): Promise<number> {
  const args = parseRunArgs(process.argv.slice(2))
  if (args === undefined) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const log = (msg: string): void => {
    process.stderr.write(`bench: ${msg}\n`)
  }

  log('starting etcd and etcdlite (fresh temp data dirs, durable writes)')
  liveServers.push(await startEtcd(args.etcdArgs))
  liveServers.push(await startEtcdlite({ nodeArgs: args.etcdliteNodeArgs, args: args.etcdliteArgs }))
  const byName = (n: ServerName): BenchServer => {
    const s = liveServers.find((x) => x.name === n)
    if (s === undefined) throw new Error(`no server ${n}`)
    return s
  }

  const results: Measurement[] = []
  try {
    for (let round = 0; round < args.rounds; round++) {
      for (const [wi, w] of args.workloads.entries()) {
        // Alternate which server goes first, per workload and per round, so slow drift hits both equally.
        const order = (round + wi) % 2 === 0 ? SERVER_ORDER : [...SERVER_ORDER].reverse()
        for (const name of order) {
          const server = byName(name)
          log(`round ${round + 1}/${args.rounds} ${w.name} on ${name}`)
          const { result, serverCpuPct } = await runClient(server, w, args)
          const rss = processRssMiB(server.pid)
          const serverCpuUsPerOp = serverCpuPct === null || result.opsPerSec === 0 ? null : Number(((serverCpuPct * 1e4) / result.opsPerSec).toFixed(1))
          const m: Measurement = {
            round: round + 1, workload: w.name, server: name, ...result,
            serverCpuPct, serverCpuUsPerOp, serverRssMiB: rss === undefined ? null : Number(rss.toFixed(1)),
          }
          results.push(m)
          process.stdout.write(`${JSON.stringify({ type: 'result', ...m })}\n`)
        }
      }
    }
  } finally {
    log('stopping servers')
    await Promise.all(liveServers.map((s) => s.dispose()))
  }

  const rows = args.workloads.map((w) => {
    const pick = (n: ServerName): Summary => summarize(results.filter((r) => r.workload === w.name && r.server === n))
    return { w, etcd: pick('etcd'), lite: pick('etcdlite') }
  })
  for (const { w, etcd, lite } of rows) {
    const ratio = (a: number, b: number): number => Number((a / b).toFixed(3))
    process.stdout.write(`${JSON.stringify({
      type: 'summary', workload: w.name, op: w.op, clients: w.clients, channels: w.channels, rounds: args.rounds, seconds: args.seconds,
      keySize: args.keySize, valueSize: args.valueSize, etcd, etcdlite: lite,
      opsRatio: ratio(lite.opsPerSec, etcd.opsPerSec), p99Ratio: ratio(etcd.p99Ms, lite.p99Ms),
    })}\n`)
  }
  printTable(args, rows)
  return 0
}

// Every way out kills the servers and clients and removes the temp dirs.
process.once('exit', killEverythingSync)
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(sig, () => {
    process.stderr.write(`bench: ${sig}, stopping servers\n`)
    killEverythingSync()
    process.exit(130)
  })
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    killEverythingSync()
    process.exitCode = 1
  },
)
