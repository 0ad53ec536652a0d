// Running the real etcdctl (v3 API) once against an endpoint, for the end-to-end tests.
import { spawn } from 'node:child_process'

export interface CtlResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** The environment etcdctl runs in: the v3 API. */
export const ETCDCTL_ENV = { ...process.env, ETCDCTL_API: '3' }

/** Run etcdctl against `endpoint` with short dial and command timeouts; `stdin` is written and closed (for `txn`). */
export function etcdctl(endpoint: string, args: readonly string[], stdin = ''): Promise<CtlResult> {
  return new Promise((resolve, reject) => {
    const p = spawn('etcdctl', [`--endpoints=${endpoint}`, '--dial-timeout=3s', '--command-timeout=5s', ...args], {
      env: ETCDCTL_ENV,
      stdio: [stdin === '' ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    p.stdout?.on('data', (d: Buffer) => (stdout += d.toString()))
    p.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('error', reject)
    p.on('close', (code) => resolve({ code, stdout, stderr }))
    if (p.stdin !== null) {
      // etcdctl may exit before reading its input (a usage error): that is its answer, not ours to fail on.
      p.stdin.on('error', () => undefined)
      p.stdin.end(stdin)
    }
  })
}

/**
 * etcdctl's stderr as comparable lines: its zap log lines (`{"level":…}`) carry a timestamp and a random
 * client target, so only their level, message and error are kept; other lines stay as they are.
 */
export function stderrLines(s: string): unknown[] {
  return s.split('\n').filter((l) => l !== '').map((l) => {
    if (!l.startsWith('{"level"')) return l
    try {
      const o = JSON.parse(l) as Record<string, unknown>
      return { level: o['level'], msg: o['msg'], error: o['error'] }
    } catch {
      return l
    }
  })
}
