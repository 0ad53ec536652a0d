// Start servers as child processes: the real etcd (reference) and the etcdlite CLI.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import { randomUUID } from 'node:crypto'
import { tempDir } from './tmp.js'
import { errorMessage } from '../../src/pkg/as-error.js'

/** The etcdlite command as the package ships it: package.json's bin, the bundle `npm run build` writes. */
export const ETCDLITE_BIN = shippedBin()

function shippedBin(): string {
  const pkgUrl = new URL('../../../package.json', import.meta.url)
  const pkg = JSON.parse(readFileSync(pkgUrl, 'utf8')) as { bin: { etcdlite: string } }
  return fileURLToPath(new URL(pkg.bin.etcdlite, pkgUrl))
}

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
  /** Send a signal and wait for exit; resolves with the exit code, or the signal that ended the process. */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals | null>
  /** Stop, then delete the data directory if this helper created it. */
  dispose(): Promise<void>
}

async function exited(proc: ChildProcess): Promise<number | NodeJS.Signals | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode ?? proc.signalCode
  const [code, signal] = (await once(proc, 'exit')) as [number | null, NodeJS.Signals | null]
  return code ?? signal
}

/**
 * etcd (3.4 with --logger=zap, 3.5) and etcdlite log one of these (info) per client listener once it
 * serves, naming the bound address.
 */
const ETCD_SERVING = 'serving client traffic insecurely; this is strongly discouraged!'
const ETCD_SERVING_TLS = 'serving client traffic securely'

/** The bound client address in the "serving client traffic" log line (plaintext or TLS listener), if `line` is one. */
export function etcdServingAddress(line: string, tls = false): string | undefined {
  let entry: { msg?: unknown; address?: unknown }
  try {
    entry = JSON.parse(line) as { msg?: unknown; address?: unknown }
  } catch {
    return undefined
  }
  return entry.msg === (tls ? ETCD_SERVING_TLS : ETCD_SERVING) && typeof entry.address === 'string' ? entry.address : undefined
}

/**
 * The flags of a one-member etcd on `dataDir` with every listener on port 0 (see startReferenceEtcd), the
 * client listener plaintext or TLS (then `extra` carries the certificate flags); `extra` appended.
 */
export function referenceEtcdArgs(dataDir: string, extra: readonly string[] = [], clientScheme: 'http' | 'https' = 'http'): string[] {
  const zero = 'http://127.0.0.1:0'
  const client = `${clientScheme}://127.0.0.1:0`
  return [
    '--name', 'ref', '--data-dir', dataDir,
    '--listen-client-urls', client, '--advertise-client-urls', client,
    '--listen-peer-urls', zero, '--initial-advertise-peer-urls', zero, '--initial-cluster', `ref=${zero}`,
    '--initial-cluster-token', randomUUID(), '--enable-grpc-gateway=false',
    '--logger', 'zap', '--log-level', 'info', ...extra,
  ]
}

/**
 * Resolve with the client address once etcd or etcdlite (stderr piped, logging at info) logs that its
 * plaintext (or, with `tls`, its TLS) client listener serves; reject if it exits first or after
 * `timeoutMs`. `onLine` sees every stderr line (for error tails).
 */
export function etcdServing(proc: ChildProcess, timeoutMs: number, onLine: (line: string) => void = () => undefined, tls = false): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not serving after ${timeoutMs / 1000} s`)), timeoutMs)
    const settle = (f: () => void): void => {
      clearTimeout(timer)
      f()
    }
    proc.once('exit', (code, signal) => settle(() => reject(new Error(`exited with ${String(code ?? signal)} before serving`))))
    if (proc.stderr === null) throw new Error('stderr is not piped')
    createInterface({ input: proc.stderr }).on('line', (line) => {
      onLine(line)
      const address = etcdServingAddress(line, tls)
      if (address !== undefined) settle(() => resolve(address))
    })
  })
}

/**
 * Start the real etcd with a fresh data dir and its own cluster token, every listener on port 0, and read
 * the bound client address from its log: nothing can take a port between choosing and binding it, so
 * parallel tests never reach each other's server. A single member never dials its advertised peer URL, so
 * that URL only has to be well-formed; the grpc-gateway is off because it would dial the literal ":0".
 * Extra flags are appended.
 */
export async function startReferenceEtcd(extra: readonly string[] = []): Promise<ServerProcess> {
  const dir = await tempDir('etcd-ref-')
  const proc = spawn('etcd', referenceEtcdArgs(dir.path, extra), { stdio: ['ignore', 'ignore', 'pipe'] })
  return supervise(proc, 'etcd', dir.path, () => dir.remove())
}

/**
 * A started server process as a ServerProcess, once it logs that it serves clients: `dispose` kills it and
 * runs `cleanup`. Rejects (with the end of its log) if it does not start.
 */
export async function supervise(proc: ChildProcess, what: string, dataDir: string | undefined, cleanup: () => Promise<void> = () => Promise.resolve()): Promise<ServerProcess> {
  let tail = ''
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | NodeJS.Signals | null> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
    return exited(proc)
  }
  const dispose = async (): Promise<void> => {
    await stop('SIGKILL')
    await cleanup()
  }
  try {
    const endpoint = await etcdServing(proc, 20_000, (line) => {
      tail = (tail + line + '\n').slice(-4000)
    })
    return { endpoint, proc, dataDir, stop, dispose }
  } catch (e) {
    await dispose()
    throw new Error(`${what} did not start: ${errorMessage(e)}\n${tail}`, { cause: e })
  }
}

export interface EtcdliteProcessOptions {
  /** Use this data dir (kept on dispose); default: a fresh temp dir removed on dispose. */
  readonly dataDir?: string
  readonly memory?: boolean
  readonly args?: readonly string[]
  /** Append the server's stdout and stderr to this file. */
  readonly output?: string
}

/**
 * The etcdlite CLI on port 0, logging at info as etcd does by default: the bound address comes from etcd's
 * "serving client traffic" line on stderr.
 */
export async function startEtcdliteProcess(opts: EtcdliteProcessOptions = {}): Promise<ServerProcess> {
  const own = opts.dataDir === undefined && opts.memory !== true ? await tempDir('etcdlite-proc-') : undefined
  const dataDir = opts.memory === true ? undefined : (opts.dataDir ?? own?.path)
  const args = ['--listen-client-urls', 'http://127.0.0.1:0', ...(dataDir === undefined ? ['--memory'] : ['--data-dir', dataDir]), ...(opts.args ?? [])]
  const proc = spawn(process.execPath, [ETCDLITE_BIN, ...args], { stdio: ['ignore', opts.output === undefined ? 'ignore' : 'pipe', 'pipe'] })
  if (opts.output !== undefined) {
    const file = createWriteStream(opts.output, { flags: 'a' })
    // The copy is a diagnostic: a file that cannot be written must not take the caller down. pipe() pauses
    // a source whose destination fails; stderr must keep flowing (it carries the ready line, and a full pipe
    // would block the server) and stdout must keep draining.
    file.on('error', () => {
      proc.stdout?.resume()
      proc.stderr?.resume()
    })
    proc.stdout?.pipe(file, { end: false })
    proc.stderr?.pipe(file, { end: false })
    proc.once('close', () => file.end())
  }
  return supervise(proc, 'etcdlite', dataDir, async () => {
    await own?.remove()
  })
}
