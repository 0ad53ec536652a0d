// A server process (the etcdlite CLI on disk, or the real etcd) that a test can kill and start again on
// the same data dir and the same client port, so a client's endpoint stays valid across the restart.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { randomUUID } from 'node:crypto'
import { ETCDLITE_BIN, etcdServing } from './processes.js'
import { tempDir } from './tmp.js'
import { errorMessage } from '../../src/pkg/as-error.js'

export type ServerKind = 'etcdlite' | 'etcd'

export interface RestartableServer {
  readonly endpoint: string
  /** Send `signal` and wait for the exit. */
  kill(signal: NodeJS.Signals): Promise<void>
  /** Start it again (same data dir, same port). */
  start(): Promise<void>
  /** Kill it and remove its data dir. */
  dispose(): Promise<void>
}

function args(kind: ServerKind, dir: string, clientUrl: string, token: string, extra: readonly string[]): string[] {
  if (kind === 'etcdlite') return ['--listen-client-urls', clientUrl, '--data-dir', dir, ...extra]
  const zero = 'http://127.0.0.1:0'
  return [
    '--name', 'ref', '--data-dir', dir, '--listen-client-urls', clientUrl, '--advertise-client-urls', clientUrl,
    '--listen-peer-urls', zero, '--initial-advertise-peer-urls', zero, '--initial-cluster', `ref=${zero}`,
    '--initial-cluster-token', token, '--enable-grpc-gateway=false', '--logger', 'zap', '--log-level', 'info', ...extra,
  ]
}

export async function startRestartable(kind: ServerKind, extra: readonly string[] = []): Promise<RestartableServer> {
  const dir = await tempDir(`client-restart-${kind}-`)
  const token = randomUUID()
  let proc: ChildProcess | undefined
  let tail = ''
  const launch = async (clientUrl: string): Promise<string> => {
    const [cmd, argv] = kind === 'etcdlite' ? [process.execPath, [ETCDLITE_BIN, ...args(kind, dir.path, clientUrl, token, extra)]] : ['etcd', args(kind, dir.path, clientUrl, token, extra)]
    const p = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] })
    proc = p
    try {
      return await etcdServing(p, 30_000, (line) => (tail = (tail + line + '\n').slice(-4000)))
    } catch (e) {
      p.kill('SIGKILL')
      throw new Error(`${kind} did not start: ${errorMessage(e)}\n${tail}`, { cause: e })
    }
  }
  const kill = async (signal: NodeJS.Signals): Promise<void> => {
    const p = proc
    if (p === undefined || p.exitCode !== null || p.signalCode !== null) return
    const exited = once(p, 'exit')
    p.kill(signal)
    await exited
  }
  let endpoint: string
  try {
    endpoint = await launch('http://127.0.0.1:0')
  } catch (e) {
    await dir.remove()
    throw e
  }
  return {
    endpoint,
    kill,
    start: async () => {
      await launch(`http://${endpoint}`)
    },
    dispose: async () => {
      await kill('SIGKILL')
      await dir.remove()
    },
  }
}
