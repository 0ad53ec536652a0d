// etcd's own benchmark tool (tools/benchmark in etcd's repository): a Go program on raw gRPC stubs, so the
// load generator spends little CPU per request and the figures are about the server. This module finds it,
// runs one workload and reads its summary.
import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { asError } from '../../src/pkg/as-error.js'

export const DEFAULT_BENCHMARK = '/tmp/etcd-benchmark/benchmark'

/** The tool's path: the --benchmark flag, else $ETCD_BENCHMARK, else DEFAULT_BENCHMARK. */
export function benchmarkPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ?? (env['ETCD_BENCHMARK'] || DEFAULT_BENCHMARK)
}

/** Undefined when `path` is an executable file; else what to do about it. */
export function missingTool(path: string): string | undefined {
  try {
    accessSync(path, constants.X_OK)
    return undefined
  } catch {
    return [
      `etcd's benchmark tool is not at ${path}.`,
      "Build etcd's tools/benchmark from an etcd checkout with `go build ./tools/benchmark`",
      '(e.g. git clone --branch v3.4.23 https://github.com/etcd-io/etcd && cd etcd && go build ./tools/benchmark),',
      'then pass its path with --benchmark PATH or ETCD_BENCHMARK=PATH.',
    ].join('\n')
  }
}

/** One run's summary, as the tool prints it. */
export interface ToolSummary {
  /** Requests/sec of the last summary (for watch: the events received, after the watch creation one). */
  readonly perSecond: number
  /** "99% in X secs" of that summary, in ms; null when it printed no latency distribution. */
  readonly p99Ms: number | null
  /** "Total: X secs." of that summary. */
  readonly seconds: number | null
}

/** The last summary in the tool's output; throws when there is none. */
export function parseToolOutput(text: string): ToolSummary {
  // The progress bar redraws with \r; a summary starts with a line "Summary:".
  const lines = text.replace(/\r/g, '\n')
  const start = lines.lastIndexOf('Summary:')
  if (start < 0) throw new Error(`no summary in the benchmark output: ${lines.trim().split('\n').slice(-3).join(' | ')}`)
  const last = lines.slice(start)
  const rps = /Requests\/sec:\s*([0-9.]+)/.exec(last)?.[1]
  if (rps === undefined) throw new Error('no Requests/sec in the benchmark summary')
  const p99 = /\b99% in ([0-9.]+) secs/.exec(last)?.[1]
  const total = /Total:\s*([0-9.]+) secs/.exec(last)?.[1]
  return { perSecond: Number(rps), p99Ms: p99 === undefined ? null : Number(p99) * 1000, seconds: total === undefined ? null : Number(total) }
}

/** Run the tool against `endpoint` with `args`; its summary, or an error with the end of its output. */
export function runTool(tool: string, endpoint: string, args: readonly string[], timeoutMs = 600_000): Promise<ToolSummary> {
  return new Promise<ToolSummary>((resolve, reject) => {
    const proc = spawn(tool, ['--endpoints', endpoint, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' })
    // The summaries are at the end; the progress bar before them can be long.
    let out = ''
    const keep = (d: Buffer): void => {
      out = (out + d.toString()).slice(-200_000)
    }
    proc.stdout.on('data', keep)
    proc.stderr.on('data', keep)
    proc.once('error', reject)
    proc.once('close', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`benchmark ${args.join(' ')} exited with ${String(code ?? signal)}: ${out.replace(/\r/g, '\n').trim().split('\n').slice(-4).join(' | ')}`))
        return
      }
      try {
        resolve(parseToolOutput(out))
      } catch (e) {
        reject(asError(e))
      }
    })
  })
}
