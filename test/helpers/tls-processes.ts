// The real etcd and the etcdlite CLI serving TLS (https:// client URLs) on port 0, for the TLS end-to-end
// tests. Same contract as processes.ts (ServerProcess), whose starters wait for plaintext listeners only.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { ETCDLITE_BIN, etcdServingAddress, referenceEtcdArgs, type ServerProcess } from './processes.js'
import { tempDir } from './tmp.js'
import { errorMessage } from '../../src/pkg/as-error.js'

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
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | NodeJS.Signals | null> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
    await exited(proc)
    return proc.exitCode ?? proc.signalCode
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
    throw new Error(`${cmd} did not start: ${errorMessage(e)}\n${tail}`, { cause: e })
  } finally {
    clearTimeout(timer)
  }
}

/** The real etcd with one https:// client listener on port 0 (see processes.ts startReferenceEtcd). */
export async function startReferenceEtcdTls(tls: ServerTlsFlags, extra: readonly string[] = []): Promise<ServerProcess> {
  const dir = await tempDir('etcd-ref-tls-')
  const args = referenceEtcdArgs(dir.path, [...tlsArgs(tls), ...extra], 'https')
  return startServing('etcd', args, (line) => etcdServingAddress(line, true), () => dir.remove())
}

/** The etcdlite CLI, in memory, with one https:// client listener on port 0. */
export async function startEtcdliteTls(tls: ServerTlsFlags, extra: readonly string[] = []): Promise<ServerProcess> {
  const args = [ETCDLITE_BIN, '--listen-client-urls', 'https://127.0.0.1:0', '--memory', ...tlsArgs(tls), ...extra]
  return startServing(process.execPath, args, (line) => etcdServingAddress(line, true), () => Promise.resolve())
}
