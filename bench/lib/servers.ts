// Server processes under test for bench/run.ts: the real etcd (through the test helper) and the etcdlite
// CLI (started here so extra node flags such as --cpu-prof can be passed), plus /proc sampling.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { ETCDLITE_BIN, etcdServingAddress, startReferenceEtcd } from '../../test/helpers/processes.js'
import { statCpuTicks, USER_HZ } from './proc-stat.js'

export type ServerName = 'etcd' | 'etcdlite'

/** A running server with a data dir on disk that this module owns. */
export interface BenchServer {
  readonly name: ServerName
  /** host:port for gRPC clients. */
  readonly endpoint: string
  readonly pid: number
  readonly dataDir: string
  /** Stop gracefully (SIGTERM, SIGKILL after `graceMs`) and remove the data dir. Idempotent. */
  dispose(graceMs?: number): Promise<void>
  /** Synchronous last resort for exit paths: SIGKILL and remove the data dir. Idempotent. */
  killSync(): void
}

function running(proc: ChildProcess): boolean {
  return proc.exitCode === null && proc.signalCode === null
}

async function stopProcess(proc: ChildProcess, graceMs: number): Promise<void> {
  if (!running(proc)) return
  const exit = once(proc, 'exit')
  proc.kill('SIGTERM')
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs)
  try {
    await exit
  } finally {
    clearTimeout(timer)
  }
}

/** Start the real etcd with a fresh temp data dir and etcd's default (durable) settings. */
export async function startEtcd(extraArgs: readonly string[]): Promise<BenchServer> {
  const s = await startReferenceEtcd(extraArgs)
  const pid = s.proc.pid
  const dataDir = s.dataDir
  if (pid === undefined || dataDir === undefined) throw new Error('etcd: no pid or data dir')
  let disposed = false
  return {
    name: 'etcd',
    endpoint: s.endpoint,
    pid,
    dataDir,
    dispose: async (graceMs = 5000) => {
      if (disposed) return
      disposed = true
      await stopProcess(s.proc, graceMs)
      rmSync(dataDir, { recursive: true, force: true })
    },
    killSync: () => {
      if (running(s.proc)) s.proc.kill('SIGKILL')
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export interface EtcdliteLaunch {
  /** Flags for node itself, before the script (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`). */
  readonly nodeArgs: readonly string[]
  /** Extra etcdlite flags (appended). The default is an on-disk data dir with durable writes. */
  readonly args: readonly string[]
  /** The etcdlite CLI script to run (default: this checkout's build), e.g. another build to compare with. */
  readonly bin?: string
  /**
   * Append the process's stdout and stderr to this file (every etcdlite of the run, one after another), e.g.
   * what node prints for `--trace-gc-nvp`; by default its output is read for the ready line and dropped.
   */
  readonly output?: string
}

/** Append `proc`'s stdout and stderr to `launch.output`, if set (see EtcdliteLaunch). */
export function teeOutput(proc: ChildProcess, launch: EtcdliteLaunch): void {
  if (launch.output === undefined) return
  const out = createWriteStream(launch.output, { flags: 'a' })
  // A file that cannot be written must not take the run down: the output is only a diagnostic.
  out.on('error', () => undefined)
  proc.stdout?.pipe(out, { end: false })
  proc.stderr?.pipe(out, { end: false })
  // 'close' comes once the process has exited and both streams have ended.
  proc.once('close', () => out.end())
}

/**
 * node's arguments for the etcdlite CLI on `dataDir`, its client listener on port 0 (the bench's servers):
 * `launch.nodeArgs`, then the CLI and its flags.
 */
export function etcdliteArgs(launch: EtcdliteLaunch, dataDir: string): string[] {
  return [
    ...launch.nodeArgs, launch.bin ?? ETCDLITE_BIN,
    '--listen-client-urls', 'http://127.0.0.1:0', '--data-dir', dataDir, ...launch.args,
  ]
}

/**
 * Wait until `proc` says on stdout that it serves: `parse` returns the value once the output so far holds
 * it; resolves to that value and the process's pid. When the process exits first, after `timeoutMs`, or
 * without a pid, calls `killSync` and rejects; `stderr()` gives its stderr tail for the message. Stdout is
 * drained from then on.
 */
export async function readyFromStdout<T>(
  proc: ChildProcess, name: string, parse: (out: string) => T | undefined, timeoutMs: number, stderr: () => string, killSync: () => void,
): Promise<{ ready: T; pid: number }> {
  let ready: T
  try {
    ready = await readyLine(proc, name, parse, timeoutMs, stderr)
  } catch (e) {
    killSync()
    throw e
  }
  if (proc.pid === undefined) {
    killSync()
    throw new Error(`${name}: no pid`)
  }
  return { ready, pid: proc.pid }
}

function readyLine<T>(proc: ChildProcess, name: string, parse: (out: string) => T | undefined, timeoutMs: number, stderr: () => string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`${name}: no ready line within ${timeoutMs / 1000} s: ${stderr()}`)), timeoutMs)
    const onData = (d: Buffer): void => {
      out += d.toString()
      const v = parse(out)
      if (v !== undefined) {
        clearTimeout(timer)
        proc.stdout?.off('data', onData)
        proc.stdout?.resume()
        resolve(v)
      }
    }
    proc.stdout?.on('data', onData)
    proc.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited (${String(code ?? signal)}) before ready: ${stderr()}`))
    })
  })
}

/**
 * The bound client address in a line of etcdlite's output: etcd's "serving client traffic" log line (on
 * stderr), or the stdout ready line of etcdlite builds from before it logged etcd's lines (a `bin` to
 * compare with).
 */
export function etcdliteServingAddress(line: string): string | undefined {
  return etcdServingAddress(line) ?? /ready to serve client requests on http:\/\/(\S+)/.exec(line)?.[1]
}

/** Resolve with the client address once etcdlite says it serves (either stream); reject if it exits first or after `timeoutMs`. */
export function etcdliteServing(proc: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within ${timeoutMs / 1000} s`)), timeoutMs)
    const settle = (f: () => void): void => {
      clearTimeout(timer)
      f()
    }
    proc.once('exit', (code, signal) => settle(() => reject(new Error(`exited (${String(code ?? signal)}) before ready`))))
    for (const stream of [proc.stdout, proc.stderr]) {
      if (stream === null) continue
      createInterface({ input: stream }).on('line', (line) => {
        const address = etcdliteServingAddress(line)
        if (address !== undefined) settle(() => resolve(address))
      })
    }
  })
}

/** Start the etcdlite CLI on port 0 with a fresh temp data dir on disk (not --memory) and default durability. */
export async function startEtcdlite(launch: EtcdliteLaunch): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'etcdlite-bench-'))
  const proc = spawn(process.execPath, etcdliteArgs(launch, dataDir), { stdio: ['ignore', 'pipe', 'pipe'] })
  teeOutput(proc, launch)
  let stderr = ''
  proc.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000)
  })
  const killSync = (): void => {
    if (running(proc)) proc.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  }
  let endpoint: string
  try {
    endpoint = await etcdliteServing(proc, 20_000)
  } catch (e) {
    killSync()
    throw new Error(`etcdlite: ${e instanceof Error ? e.message : String(e)}: ${stderr}`, { cause: e })
  }
  const pid = proc.pid
  if (pid === undefined) {
    killSync()
    throw new Error('etcdlite: no pid')
  }
  let disposed = false
  return {
    name: 'etcdlite',
    endpoint,
    pid,
    dataDir,
    dispose: async (graceMs = 10_000) => {
      if (disposed) return
      disposed = true
      // SIGTERM lets etcdlite close cleanly (and node write a --cpu-prof profile).
      await stopProcess(proc, graceMs)
      rmSync(dataDir, { recursive: true, force: true })
    },
    killSync,
  }
}

/** CPU seconds (user + system) used so far by process `pid`, from /proc; undefined off Linux. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    const ticks = statCpuTicks(readFileSync(`/proc/${pid}/stat`, 'latin1'))
    return ticks === undefined ? undefined : ticks / USER_HZ
  } catch {
    return undefined
  }
}

/** Resident set size of `pid` in MiB, from /proc; undefined off Linux. */
export function processRssMiB(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))
    return m?.[1] === undefined ? undefined : Number(m[1]) / 1024
  } catch {
    return undefined
  }
}

/**
 * A server's CPU use over a client's measurement window: feed it the client's output lines; it samples the
 * server's CPU at the start and end markers (`startMarker`/`endMarker`, the client's MEASURE_START/END).
 */
export class ServerCpuWindow {
  private at: { cpu: number; wall: number } | undefined
  /** Server CPU in % of one core during the window; null until the window has ended (or off Linux). */
  pct: number | null = null

  constructor(private readonly pid: number, private readonly startMarker: string, private readonly endMarker: string) {}

  onLine(line: string): void {
    if (line !== this.startMarker && line !== this.endMarker) return
    const cpu = processCpuSeconds(this.pid)
    if (cpu === undefined) return
    if (line === this.startMarker) this.at = { cpu, wall: performance.now() }
    else if (this.at !== undefined) {
      const wall = (performance.now() - this.at.wall) / 1000
      this.pct = wall > 0 ? Number((((cpu - this.at.cpu) / wall) * 100).toFixed(1)) : null
    }
  }
}
