// Starting and stopping the ceiling server processes (rpc-ceiling-server.ts, push-ceiling-server.ts): spawn,
// wait for `ready <port>` on stdout, stop with SIGTERM (SIGKILL after a grace period). Every live one is
// registered, so a runner's exit path can kill them synchronously (killCeilingServersSync).
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readyFromStdout } from '../lib/servers.js'

const live = new Set<ChildProcess>()

/** SIGKILL every ceiling server still running (for exit paths). */
export function killCeilingServersSync(): void {
  for (const c of live) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
}

/** A running ceiling server. Shaped like bench/lib/servers.ts's BenchServer, minus the data dir. */
export interface CeilingServer {
  readonly name: string
  /** 127.0.0.1:port for gRPC clients. */
  readonly endpoint: string
  readonly pid: number
  /** SIGTERM, SIGKILL after `graceMs`; resolves once the process has exited. Idempotent. */
  dispose(graceMs?: number): Promise<void>
  /** SIGKILL now (exit paths). Idempotent. */
  killSync(): void
}

const READY_TIMEOUT_MS = 20_000

/**
 * Start `script` (a ceiling server's compiled .js) with `args` and wait for its `ready <port>` line. The
 * child also gets `--exit-on-stdin-close`, so it stops by itself if this process dies without killing it.
 */
export async function startCeilingServer(name: string, script: string, args: readonly string[], nodeArgs: readonly string[] = []): Promise<CeilingServer> {
  const proc = spawn(process.execPath, [...nodeArgs, script, ...args, '--exit-on-stdin-close'], { stdio: ['pipe', 'pipe', 'pipe'] })
  live.add(proc)
  const exited = once(proc, 'exit').then(() => {
    live.delete(proc)
  })
  // A child that dies takes its stdin with it; a late write or close must not crash us.
  proc.stdin?.on('error', () => undefined)
  let stderr = ''
  proc.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000)
  })
  const running = (): boolean => proc.exitCode === null && proc.signalCode === null
  const killSync = (): void => {
    if (running()) proc.kill('SIGKILL')
  }
  const { ready: port, pid } = await readyFromStdout(proc, name, (out) => {
    const m = /^ready (\d+)$/m.exec(out)
    return m?.[1] === undefined ? undefined : Number(m[1])
  }, READY_TIMEOUT_MS, () => stderr, killSync)
  let disposing: Promise<void> | undefined
  return {
    name,
    endpoint: `127.0.0.1:${port}`,
    pid,
    dispose: (graceMs = 5000) => {
      disposing ??= (async () => {
        if (!running()) return
        proc.kill('SIGTERM')
        const timer = setTimeout(killSync, graceMs)
        try {
          await exited
        } finally {
          clearTimeout(timer)
        }
      })()
      return disposing
    },
    killSync,
  }
}
