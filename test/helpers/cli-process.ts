// The etcdlite CLI as a child process with everything a test needs to explain a failure: its stderr, how
// and when it exited, and whether it exited on its own.
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { ETCDLITE_BIN, etcdServingAddress } from './processes.js'

export interface CliProcess {
  /** host:port from etcd's "serving client traffic" line. */
  readonly endpoint: string
  readonly proc: ChildProcess
  /** The last 16 KiB of stderr. */
  stderr(): string
  /** Set once the process has exited: its code, or the signal that ended it. */
  exit(): { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined
  /** Send `signal` (if still running) and wait for the exit; resolves with the exit code, or the signal that ended it. */
  stop(signal: NodeJS.Signals): Promise<number | NodeJS.Signals | null>
}

export interface CliOptions {
  /** Working directory (default: this process's). */
  readonly cwd?: string
  /** Ready timeout in ms (default 20 s). */
  readonly readyTimeoutMs?: number
  /** The environment (default: this process's). */
  readonly env?: NodeJS.ProcessEnv
  /** The client URL scheme, for the "serving client traffic" line to wait for (default http). */
  readonly scheme?: 'http' | 'https'
}

/**
 * Start `etcdlite` with `--listen-client-urls http://127.0.0.1:0` followed by `args`, logging at info as etcd
 * does by default, and resolve once it logs that its client listener serves. Rejects (with its stderr) if
 * it exits or times out first.
 */
export async function spawnEtcdlite(args: readonly string[], opts: CliOptions = {}): Promise<CliProcess> {
  const scheme = opts.scheme ?? 'http'
  const proc = spawn(process.execPath, [ETCDLITE_BIN, '--listen-client-urls', `${scheme}://127.0.0.1:0`, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    ...(opts.env !== undefined ? { env: opts.env } : {}),
  })
  let err = ''
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  const exited = new Promise<void>((resolve) => {
    proc.once('exit', (code, signal) => {
      exit = { code, signal }
      resolve()
    })
  })
  proc.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-16384)))
  let timer: NodeJS.Timeout | undefined
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      if (proc.stderr !== null) {
        createInterface({ input: proc.stderr }).on('line', (line) => {
          const address = etcdServingAddress(line, scheme === 'https')
          if (address !== undefined) resolve(address)
        })
      }
      void exited.then(() => reject(new Error(`etcdlite exited (${JSON.stringify(exit)}) before it was ready; stderr:\n${err}`)))
      timer = setTimeout(() => reject(new Error(`etcdlite not ready after ${opts.readyTimeoutMs ?? 20000} ms; stderr:\n${err}`)), opts.readyTimeoutMs ?? 20000)
    })
    return {
      endpoint,
      proc,
      stderr: () => err,
      exit: () => exit,
      stop: async (signal) => {
        if (exit === undefined) proc.kill(signal)
        await exited
        return exit?.code ?? exit?.signal ?? null
      },
    }
  } catch (e) {
    if (exit === undefined) proc.kill('SIGKILL')
    await exited
    throw e
  } finally {
    clearTimeout(timer)
  }
}
