// The RPC ceiling, runner side: start rpc-ceiling-server.js and run bench/client.js against it, exactly as
// bench/run.ts runs it against etcd and etcdlite (same arguments, same server-CPU window from the client's
// markers). Importable (startRpcCeilingServer, runRpcCeiling) and a CLI:
//
//   node build/bench/ceilings/rpc-ceiling.js [--workloads put-1,put-16conn,...] [--seconds 5] [--warmup 1]
//     [--key-size 16] [--value-size 64] [--key-space 100000] [--serializable] [--client grpc-js|h2] [--commit [--unsafe-no-fsync]]
// --commit measures the commit ceiling instead (Puts committed to a LevelDB in a temp dir, synced unless
// --unsafe-no-fsync); it answers Range and Txn as the RPC ceiling does.
// prints one JSON line per workload (`"type":"rpc-ceiling"`), then a table; progress goes to stderr.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { killLoadProcessesSync, LoadProcess } from '../lib/child.js'
import { processRssMiB, ServerCpuWindow } from '../lib/servers.js'
import { fmt, printRows } from '../lib/table.js'
import { MEASURE_END, MEASURE_START, WORKLOADS, type ClientResult, type LoadParams, type Workload } from '../lib/workloads.js'
import { killCeilingServersSync, startCeilingServer, type CeilingServer } from './launch.js'
import { LOAD_PARAM_OPTIONS, loadParamArgs, loadParamsOf } from '../lib/args.js'

const CLIENT_JS = fileURLToPath(new URL('../client.js', import.meta.url))
const SERVER_JS = fileURLToPath(new URL('./rpc-ceiling-server.js', import.meta.url))

/** One workload against the RPC ceiling: the client's figures plus the ceiling server's CPU over the window. */
export interface RpcCeilingResult extends ClientResult {
  readonly workload: string
  /** Ceiling server CPU over the measured window, % of one core; null off Linux. */
  readonly serverCpuPct: number | null
  /** Ceiling server CPU µs per request. */
  readonly serverCpuUsPerOp: number | null
  readonly serverRssMiB: number | null
}

/** Start the RPC ceiling server; Range answers one kv of `valueSize` bytes (what bench/client.ts checks). */
export function startRpcCeilingServer(p: Pick<LoadParams, 'keySize' | 'valueSize'>, nodeArgs: readonly string[] = []): Promise<CeilingServer> {
  return startCeilingServer('rpc-ceiling', SERVER_JS, ['--key-size', String(p.keySize), '--value-size', String(p.valueSize)], nodeArgs)
}

/**
 * Start the commit ceiling: the RPC ceiling server committing each Put's record to a LevelDB in `dir` (an
 * empty directory the caller removes afterwards) before answering, synced if `sync` (rpc-ceiling-server.ts).
 */
export function startCommitCeilingServer(p: Pick<LoadParams, 'keySize' | 'valueSize'>, dir: string, sync: boolean, nodeArgs: readonly string[] = []): Promise<CeilingServer> {
  return startCeilingServer('commit-ceiling', SERVER_JS, [
    '--key-size', String(p.keySize), '--value-size', String(p.valueSize), '--commit-dir', dir, ...(sync ? ['--commit-sync'] : []),
  ], nodeArgs)
}

/**
 * Run bench/client.js for workload `w` against a ceiling server from startRpcCeilingServer or
 * startCommitCeilingServer (started with the same keySize/valueSize as `p`). One server can serve every KV
 * workload: the RPC ceiling keeps no state, and the commit ceiling only appends records, as a server does.
 */
export async function runRpcCeiling(server: CeilingServer, w: Workload, p: LoadParams): Promise<RpcCeilingResult> {
  const args = [
    '--endpoint', server.endpoint, '--op', w.op, '--clients', String(w.clients), '--channels', String(w.channels), ...loadParamArgs(p),
  ]
  const cpuWindow = new ServerCpuWindow(server.pid, MEASURE_START, MEASURE_END)
  const child = new LoadProcess(`client for ${w.name} on ${server.name}`, CLIENT_JS, args, (line) => cpuWindow.onLine(line))
  try {
    const result = await child.result<ClientResult>()
    const serverCpuPct = cpuWindow.pct
    const rss = processRssMiB(server.pid)
    return {
      workload: w.name, ...result, serverCpuPct,
      serverCpuUsPerOp: serverCpuPct === null || result.opsPerSec === 0 ? null : Number(((serverCpuPct * 1e4) / result.opsPerSec).toFixed(1)),
      serverRssMiB: rss === undefined ? null : Number(rss.toFixed(1)),
    }
  } finally {
    child.kill()
  }
}

// ---------------------------------------------------------------------------------------------------
// CLI

function parseCli(argv: readonly string[]): { readonly workloads: readonly Workload[]; readonly params: LoadParams; readonly commit: { readonly sync: boolean } | undefined } {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      workloads: { type: 'string' },
      commit: { type: 'boolean', default: false },
      'unsafe-no-fsync': { type: 'boolean', default: false },
      ...LOAD_PARAM_OPTIONS,
    },
    strict: true,
  })
  const names = values.workloads?.split(',').map((x) => x.trim()).filter((x) => x !== '')
  const workloads = names === undefined ? WORKLOADS : names.map((n) => {
    const w = WORKLOADS.find((x) => x.name === n)
    if (w === undefined) throw new Error(`unknown workload ${n}; known: ${WORKLOADS.map((x) => x.name).join(', ')}`)
    return w
  })
  return {
    workloads,
    params: loadParamsOf(values),
    commit: values.commit ? { sync: !values['unsafe-no-fsync'] } : undefined,
  }
}

async function cli(): Promise<void> {
  const { workloads, params, commit } = parseCli(process.argv.slice(2))
  const dir = commit === undefined ? undefined : mkdtempSync(join(tmpdir(), 'etcdlite-commit-ceiling-'))
  const server = commit === undefined || dir === undefined ? await startRpcCeilingServer(params) : await startCommitCeilingServer(params, dir, commit.sync)
  const results: RpcCeilingResult[] = []
  try {
    for (const w of workloads) {
      process.stderr.write(`rpc-ceiling: ${w.name}\n`)
      const r = await runRpcCeiling(server, w, params)
      results.push(r)
      process.stdout.write(`${JSON.stringify({ type: commit === undefined ? 'rpc-ceiling' : 'commit-ceiling', ...r })}\n`)
    }
  } finally {
    await server.dispose()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
  const what = commit === undefined ? 'RPC ceiling' : `commit ceiling (${commit.sync ? 'synced' : 'not synced'})`
  process.stdout.write(`\n${what}: bare grpc-js, canned responses; ${params.seconds} s (+${params.warmupSeconds} s warm-up), key ${params.keySize} B, value ${params.valueSize} B\n\n`)
  printRows(
    ['workload', 'ops/s', 'p50 ms', 'p99 ms', 'errors', 'srv cpu%', 'srv µs/op', 'cli cpu%'],
    results.map((r) => [r.workload, fmt(r.opsPerSec, 0), fmt(r.p50Ms, 3), fmt(r.p99Ms, 3), String(r.errors), fmt(r.serverCpuPct, 0), fmt(r.serverCpuUsPerOp, 1), fmt(r.clientCpuPct, 0)]),
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const killAll = (): void => {
    killLoadProcessesSync()
    killCeilingServersSync()
  }
  process.once('exit', killAll)
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      killAll()
      process.exit(130)
    })
  }
  cli().then(
    () => undefined,
    (err: unknown) => {
      process.stderr.write(`rpc-ceiling: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
      process.exitCode = 1
    },
  )
}
