// Start servers as child processes: the real etcd (reference) and the etcdlite CLI.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { freePort } from './ports.js'
import { tempDir } from './tmp.js'
import { waitFor } from './wait.js'
import { rawClient } from './grpc-client.js'

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

/** Wait until a KV Range answers on `endpoint`. */
async function waitServing(endpoint: string, proc: ChildProcess, timeoutMs: number): Promise<void> {
  const c = rawClient(endpoint)
  try {
    await waitFor(`server on ${endpoint}`, async () => {
      if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`)
      await c.kv.Range({ key: Buffer.from('health') })
      return true
    }, timeoutMs, 50)
  } finally {
    c.close()
  }
}

/**
 * Start the real etcd on free loopback ports with a fresh data dir. Extra flags are appended.
 */
export async function startReferenceEtcd(extra: readonly string[] = []): Promise<ServerProcess> {
  const dir = await tempDir('etcd-ref-')
  const clientPort = await freePort()
  const peerPort = await freePort()
  const client = `http://127.0.0.1:${clientPort}`
  const peer = `http://127.0.0.1:${peerPort}`
  const proc = spawn('etcd', [
    '--name', 'ref', '--data-dir', dir.path,
    '--listen-client-urls', client, '--advertise-client-urls', client,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `ref=${peer}`,
    '--log-level', 'error', '--logger', 'zap', ...extra,
  ], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  proc.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000) })
  const endpoint = `127.0.0.1:${clientPort}`
  try {
    await waitServing(endpoint, proc, 20000)
  } catch (e) {
    proc.kill('SIGKILL')
    await dir.remove()
    throw new Error(`etcd did not start: ${(e as Error).message}\n${stderr}`)
  }
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
    return exited(proc)
  }
  return { endpoint, proc, dataDir: dir.path, stop, dispose: async () => { await stop('SIGKILL'); await dir.remove() } }
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
