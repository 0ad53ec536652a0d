// Start the real etcd for one case with every listener on port 0, and learn the bound client address from
// its log. Unlike picking a "free" port first (test/helpers freePort, then bind later), nothing can take
// the port in between, so parallel cases never end up talking to each other's server.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { randomUUID } from 'node:crypto'
import { tempDir } from '../../helpers/tmp.js'

export interface ReferenceEtcd {
  /** host:port of the client listener. */
  readonly endpoint: string
  /** Kill etcd, wait for it to exit, remove its data dir. */
  dispose(): Promise<void>
}

/** etcd 3.4 logs this (zap, info) once the client listener serves, i.e. after the server is ready. */
const SERVING = 'serving client traffic insecurely; this is strongly discouraged!'
const START_TIMEOUT_MS = 20000

interface LogLine {
  readonly msg?: unknown
  readonly address?: unknown
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  const exited = once(proc, 'exit')
  proc.kill('SIGKILL')
  await exited
}

/**
 * A fresh single-member etcd: own data dir, own cluster token (so cluster and member IDs differ between
 * instances), client and peer listeners on port 0. A single member never dials its advertised peer URL,
 * so that URL only has to be well-formed. The grpc-gateway is off: it would dial the literal ":0".
 */
export async function startReferenceEtcdOnPortZero(): Promise<ReferenceEtcd> {
  const dir = await tempDir('etcd-ref-')
  const zero = 'http://127.0.0.1:0'
  const proc = spawn('etcd', [
    '--name', 'ref', '--data-dir', dir.path,
    '--listen-client-urls', zero, '--advertise-client-urls', zero,
    '--listen-peer-urls', zero, '--initial-advertise-peer-urls', zero, '--initial-cluster', `ref=${zero}`,
    '--initial-cluster-token', randomUUID(), '--enable-grpc-gateway=false',
    '--logger', 'zap', '--log-level', 'info',
  ], { stdio: ['ignore', 'ignore', 'pipe'] })
  let tail = ''
  const dispose = async (): Promise<void> => {
    await stop(proc)
    await dir.remove()
  }
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`etcd not serving after ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS)
      if (proc.stderr === null) throw new Error('etcd stderr is not piped')
      const lines = createInterface({ input: proc.stderr })
      const done = (f: () => void): void => {
        clearTimeout(timer)
        f()
      }
      proc.once('exit', (code) => done(() => reject(new Error(`etcd exited with ${String(code)} before serving`))))
      lines.on('line', (line) => {
        tail = (tail + line + '\n').slice(-4000)
        let entry: LogLine
        try {
          entry = JSON.parse(line) as LogLine
        } catch {
          return
        }
        const address = entry.address
        if (entry.msg === SERVING && typeof address === 'string') done(() => resolve(address))
      })
    })
    return { endpoint, dispose }
  } catch (e) {
    await dispose()
    throw new Error(`etcd did not start: ${e instanceof Error ? e.message : String(e)}\n${tail}`)
  }
}
