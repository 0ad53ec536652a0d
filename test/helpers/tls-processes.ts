// The real etcd and the etcdlite CLI serving TLS (https:// client URLs) on port 0, for the TLS end-to-end
// tests. Same contract as processes.ts (ServerProcess), whose starters wait for plaintext listeners only.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { randomUUID } from 'node:crypto'
import { createInterface } from 'node:readline'
import { ETCDLITE_BIN, type ServerProcess } from './processes.js'
import { tempDir } from './tmp.js'

/** Client TLS flags, as etcd names them. */
export interface ServerTlsFlags {
  readonly certFile: string
  readonly keyFile: string
  readonly trustedCaFile?: string
  readonly clientCertAuth?: boolean
}

function tlsArgs(t: ServerTlsFlags): string[] {
  return [
    '--cert-file', t.certFile, '--key-file', t.keyFile,
    ...(t.trustedCaFile === undefined ? [] : ['--trusted-ca-file', t.trustedCaFile]),
    ...(t.clientCertAuth === true ? ['--client-cert-auth'] : []),
  ]
}

/** etcd 3.4 logs this (zap, info) once its TLS client listener serves, naming the bound address. */
const ETCD_SERVING_TLS = 'serving client traffic securely'

async function exited(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  await once(proc, 'exit')
}

/**
 * Start a process and resolve with the endpoint `match` finds in its output (stdout or stderr, line by
 * line); rejects with the output tail if it exits or is not ready within 20 s. `dispose` kills it and
 * runs `cleanup`.
 */
async function startServing(cmd: string, args: readonly string[], match: (line: string) => string | undefined, cleanup: () => Promise<void>): Promise<ServerProcess> {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let tail = ''
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
    await exited(proc)
    return proc.exitCode
  }
  const dispose = async (): Promise<void> => {
    await stop('SIGKILL')
    await cleanup()
  }
  let timer: NodeJS.Timeout | undefined
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error('not serving after 20 s')), 20_000)
      proc.once('exit', (code) => reject(new Error(`exited with ${String(code)} before serving`)))
      for (const stream of [proc.stdout, proc.stderr]) {
        createInterface({ input: stream }).on('line', (line) => {
          tail = (tail + line + '\n').slice(-4000)
          const found = match(line)
          if (found !== undefined) resolve(found)
        })
      }
    })
    return { endpoint, proc, dataDir: undefined, stop, dispose }
  } catch (e) {
    await dispose()
    throw new Error(`${cmd} did not start: ${e instanceof Error ? e.message : String(e)}\n${tail}`, { cause: e })
  } finally {
    clearTimeout(timer)
  }
}

/** The real etcd with one https:// client listener on port 0 (see processes.ts startReferenceEtcd). */
export async function startReferenceEtcdTls(tls: ServerTlsFlags, extra: readonly string[] = []): Promise<ServerProcess> {
  const dir = await tempDir('etcd-ref-tls-')
  const https = 'https://127.0.0.1:0'
  const peer = 'http://127.0.0.1:0'
  const args = [
    '--name', 'ref', '--data-dir', dir.path,
    '--listen-client-urls', https, '--advertise-client-urls', https,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `ref=${peer}`,
    '--initial-cluster-token', randomUUID(), '--enable-grpc-gateway=false',
    '--logger', 'zap', '--log-level', 'info', ...tlsArgs(tls), ...extra,
  ]
  return startServing('etcd', args, (line) => {
    let entry: { msg?: unknown; address?: unknown }
    try {
      entry = JSON.parse(line) as { msg?: unknown; address?: unknown }
    } catch {
      return undefined
    }
    return entry.msg === ETCD_SERVING_TLS && typeof entry.address === 'string' ? entry.address : undefined
  }, () => dir.remove())
}

/** The etcdlite CLI, in memory, with one https:// client listener on port 0. */
export async function startEtcdliteTls(tls: ServerTlsFlags, extra: readonly string[] = []): Promise<ServerProcess> {
  const args = [ETCDLITE_BIN, '--listen-client-urls', 'https://127.0.0.1:0', '--log-level', 'warn', '--memory', ...tlsArgs(tls), ...extra]
  return startServing(process.execPath, args, (line) => /ready to serve client requests on https:\/\/(\S+)/.exec(line)?.[1], () => Promise.resolve())
}
