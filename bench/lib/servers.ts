// The servers under test, as child processes: the etcdlite CLI and the real etcd, each on a fresh temp data
// dir on disk with its default (durable) settings and its client listener on port 0, and the front ceiling
// server (bench/ceiling/front.ts: Node's HTTP/2 with canned answers, bare or behind etcdlite's own HTTP/2
// front; its data dir stays empty). All log etcd's
// "serving client traffic" line once they serve; the bound address comes from it, and the time from spawn()
// to that line is the server's start-up time.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { errorMessage } from '../../src/pkg/as-error.js'
import { ETCDLITE_BIN, etcdServingAddress, referenceEtcdArgs } from '../../test/helpers/processes.js'

export type ServerName = 'etcdlite' | 'etcd'
/** What etcd's benchmark tool is pointed at: a server under test, or the front ceiling server, bare or filtered. */
export type Target = ServerName | 'front' | 'front-filtered'

/** A front ceiling server: canned answers, no storage, nothing to put before a range. */
export const isFront = (t: Target): t is 'front' | 'front-filtered' => t === 'front' || t === 'front-filtered'

const FRONT_BIN = fileURLToPath(new URL('../ceiling/front.js', import.meta.url))

/** A running server whose data dir this module created and removes. */
export interface BenchServer {
  readonly name: Target
  /** host:port for gRPC clients. */
  readonly endpoint: string
  readonly pid: number
  readonly dataDir: string
  /** Milliseconds from spawn() to the "serving client traffic" line. */
  readonly readyMs: number
  /** SIGTERM (SIGKILL after 10 s), then remove the data dir. Idempotent. */
  dispose(): Promise<void>
  /** Synchronous last resort for exit paths: SIGKILL and remove the data dir. Idempotent. */
  killSync(): void
}

export interface ServerLaunch {
  /** The etcd binary (default `etcd` on PATH). */
  readonly etcdBin?: string
}

const running = (proc: ChildProcess): boolean => proc.exitCode === null && proc.signalCode === null

/** Start `name` on a fresh temp data dir and resolve once it serves clients. */
export async function startServer(name: Target, launch: ServerLaunch = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-bench-`))
  const t0 = performance.now()
  const node = (script: string, scriptArgs: readonly string[]): ChildProcess =>
    spawn(process.execPath, [script, ...scriptArgs], { stdio: ['ignore', 'pipe', 'pipe'] })
  const proc = name === 'etcd'
    ? spawn(launch.etcdBin ?? 'etcd', referenceEtcdArgs(dataDir), { stdio: ['ignore', 'pipe', 'pipe'] })
    : name === 'front' ? node(FRONT_BIN, ['--port', '0'])
    : name === 'front-filtered' ? node(FRONT_BIN, ['--port', '0', '--filtered'])
    : node(ETCDLITE_BIN, ['--listen-client-urls', 'http://127.0.0.1:0', '--data-dir', dataDir])
  // The log is read for the ready line (stderr) and dropped.
  proc.stdout?.resume()
  const killSync = (): void => {
    if (running(proc)) proc.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  }
  let endpoint: string
  try {
    endpoint = await serving(proc, 30_000)
  } catch (e) {
    killSync()
    throw new Error(`${name}: ${errorMessage(e)}`, { cause: e })
  }
  const readyMs = performance.now() - t0
  const pid = proc.pid
  if (pid === undefined) {
    killSync()
    throw new Error(`${name}: no pid`)
  }
  let disposed = false
  return {
    name, endpoint, pid, dataDir, readyMs, killSync,
    dispose: async () => {
      if (disposed) return
      disposed = true
      if (running(proc)) {
        const exit = once(proc, 'exit')
        proc.kill('SIGTERM')
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
        await exit.finally(() => clearTimeout(timer))
      }
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** The client address once `proc` logs that it serves (stderr, read to the end so the pipe never fills); the log's tail on failure. */
function serving(proc: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let tail = ''
    let done = false
    const settle = (f: () => void): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      f()
    }
    const timer = setTimeout(() => settle(() => reject(new Error(`not serving after ${timeoutMs / 1000} s:\n${tail}`))), timeoutMs)
    proc.once('error', (e) => settle(() => reject(e)))
    proc.once('exit', (code, signal) => settle(() => reject(new Error(`exited (${String(code ?? signal)}) before serving:\n${tail}`))))
    if (proc.stderr === null) throw new Error('stderr is not piped')
    createInterface({ input: proc.stderr }).on('line', (line) => {
      if (done) return
      tail = (tail + line + '\n').slice(-4000)
      const address = etcdServingAddress(line)
      if (address !== undefined) settle(() => resolve(address))
    })
  })
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
