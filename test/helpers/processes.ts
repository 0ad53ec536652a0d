// Start servers as child processes: the real etcd (reference) and the etcdlite CLI.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import { randomUUID } from 'node:crypto'
import { tempDir } from './tmp.js'

export const ETCDLITE_BIN = fileURLToPath(new URL('../../src/bin/etcdlite.js', import.meta.url))

/** True when a real `etcd` binary is on PATH. */
export function haveEtcd(): boolean {
  return spawnSync('etcd', ['--version'], { stdio: 'ignore' }).status === 0
}

/** True when `etcdctl` is on PATH. */
export function haveEtcdctl(): boolean {
  return spawnSync('etcdctl', ['version'], { stdio: 'ignore', env: { ...process.env, ETCDCTL_API: '3' } }).status === 0
}

export interface ServerProcess {
  /** host:port for clients. */
  readonly endpoint: string
  readonly proc: ChildProcess
  /** Data directory (undefined for in-memory). */
  readonly dataDir: string | undefined
  /** Send a signal and wait for exit; returns the exit code (or null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>
  /** Stop, then delete the data directory if this helper created it. */
  dispose(): Promise<void>
}

async function exited(proc: ChildProcess): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode
  const [code] = (await once(proc, 'exit')) as [number | null]
  return code
}

/** etcd 3.4 logs this (zap, info) once its client listener serves, naming the bound address. */
const ETCD_SERVING = 'serving client traffic insecurely; this is strongly discouraged!'

/**
 * Start the real etcd with a fresh data dir and its own cluster token, every listener on port 0, and read
 * the bound client address from its log: nothing can take a port between choosing and binding it, so
 * parallel tests never reach each other's server. A single member never dials its advertised peer URL, so
 * that URL only has to be well-formed; the grpc-gateway is off because it would dial the literal ":0".
 * Extra flags are appended.
 */
export async function startReferenceEtcd(extra: readonly string[] = []): Promise<ServerProcess> {
  const dir = await tempDir('etcd-ref-')
  const zero = 'http://127.0.0.1:0'
  const proc = spawn('etcd', [
    '--name', 'ref', '--data-dir', dir.path,
    '--listen-client-urls', zero, '--advertise-client-urls', zero,
    '--listen-peer-urls', zero, '--initial-advertise-peer-urls', zero, '--initial-cluster', `ref=${zero}`,
    '--initial-cluster-token', randomUUID(), '--enable-grpc-gateway=false',
    '--logger', 'zap', '--log-level', 'info', ...extra,
  ], { stdio: ['ignore', 'ignore', 'pipe'] })
  let tail = ''
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
    return exited(proc)
  }
  const dispose = async (): Promise<void> => {
    await stop('SIGKILL')
    await dir.remove()
  }
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('etcd not serving after 20 s')), 20000)
      const settle = (f: () => void): void => {
        clearTimeout(timer)
        f()
      }
      proc.once('exit', (code) => settle(() => reject(new Error(`etcd exited with ${String(code)} before serving`))))
      if (proc.stderr === null) throw new Error('etcd stderr is not piped')
      createInterface({ input: proc.stderr }).on('line', (line) => {
        tail = (tail + line + '\n').slice(-4000)
        let entry: { msg?: unknown; address?: unknown }
        try {
          entry = JSON.parse(line) as { msg?: unknown; address?: unknown }
        } catch {
          return
        }
        if (entry.msg === ETCD_SERVING && typeof entry.address === 'string') {
          const address = entry.address
          settle(() => resolve(address))
        }
      })
    })
    return { endpoint, proc, dataDir: dir.path, stop, dispose }
  } catch (e) {
    await dispose()
    throw new Error(`etcd did not start: ${e instanceof Error ? e.message : String(e)}\n${tail}`, { cause: e })
  }
}

export interface EtcdliteProcessOptions {
  /** Use this data dir (kept on dispose); default: a fresh temp dir removed on dispose. */
  readonly dataDir?: string
  readonly memory?: boolean
  readonly args?: readonly string[]
}

/** Start the etcdlite CLI on port 0 and read the bound address from its ready line. */
export async function startEtcdliteProcess(opts: EtcdliteProcessOptions = {}): Promise<ServerProcess> {
  const own = opts.dataDir === undefined && opts.memory !== true ? await tempDir('etcdlite-proc-') : undefined
  const dataDir = opts.memory === true ? undefined : (opts.dataDir ?? own?.path)
  const args = ['--listen-client-urls', 'http://127.0.0.1:0', '--log-level', 'warn', ...(dataDir === undefined ? ['--memory'] : ['--data-dir', dataDir]), ...(opts.args ?? [])]
  const proc = spawn(process.execPath, [ETCDLITE_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  proc.stderr?.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000) })
  const endpoint = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      out += d.toString()
      const m = /ready to serve client requests on http:\/\/(\S+)/.exec(out)
      if (m?.[1] !== undefined) {
        proc.stdout?.off('data', onData)
        resolve(m[1])
      }
    }
    proc.stdout?.on('data', onData)
    proc.once('exit', (code) => reject(new Error(`etcdlite exited with ${code} before ready: ${err}`)))
  })
  proc.stdout?.resume()
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
    return exited(proc)
  }
  return { endpoint, proc, dataDir, stop, dispose: async () => { await stop('SIGKILL'); await own?.remove() } }
}
