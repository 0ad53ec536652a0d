// One Patroni node of the test cluster: the patroni process (run as the postgres user when we are root:
// PostgreSQL refuses to run as root), its log file, SQL on its PostgreSQL, and stopping all of it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, openSync, readFileSync, writeFileSync, chownSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { patroniConfig, type NodeConfig } from './config.js'

export interface Owner {
  readonly uid: number
  readonly gid: number
  readonly home: string
}

/** Who runs Patroni and PostgreSQL: the postgres user when we are root, else ourselves. */
export function postgresOwner(): Owner | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string): number => {
    const r = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error('running as root needs a `postgres` user to run PostgreSQL as (Debian\'s postgresql-common creates it)')
    return Number(r.stdout.trim())
  }
  return { uid: id('-u'), gid: id('-g'), home: '/var/lib/postgresql' }
}

/** A directory the owner can write (mode 0700): created by us, handed over when we are root. */
export function ownedDir(path: string, owner: Owner | undefined): void {
  mkdirSync(path, { recursive: true, mode: 0o700 })
  if (owner !== undefined) chownSync(path, owner.uid, owner.gid)
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export class PatroniNode {
  private proc: ChildProcess | undefined
  readonly configFile: string
  readonly logFile: string

  constructor(readonly config: NodeConfig, private readonly owner: Owner | undefined) {
    this.configFile = join(config.dir, 'patroni.yml')
    this.logFile = join(config.dir, 'patroni.log')
  }

  get name(): string {
    return this.config.name
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null
  }

  start(): void {
    ownedDir(this.config.dir, this.owner)
    writeFileSync(this.configFile, patroniConfig(this.config), { mode: 0o644 })
    const log = openSync(this.logFile, 'a')
    try {
      this.proc = spawn('patroni', [this.configFile], {
        stdio: ['ignore', log, log],
        cwd: this.config.dir,
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: this.owner?.home ?? process.env['HOME'] ?? this.config.dir },
        ...(this.owner === undefined ? {} : { uid: this.owner.uid, gid: this.owner.gid }),
      })
    } finally {
      closeSync(log)
    }
  }

  /** Signal patroni and wait (up to `timeoutMs`, then SIGKILL) for it to exit. */
  async stop(signal: NodeJS.Signals, timeoutMs = 20_000): Promise<void> {
    const p = this.proc
    if (p === undefined || !this.running) return
    const exited = once(p, 'exit')
    p.kill(signal)
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs)
    try {
      await exited
    } finally {
      clearTimeout(timer)
    }
  }

  /** The node's postmaster, if one runs: a Patroni that was killed leaves its PostgreSQL behind. */
  postmasterPid(): number | undefined {
    try {
      const pid = Number(readFileSync(join(this.config.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0])
      return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined
    } catch {
      return undefined
    }
  }

  /** Stop the node's postmaster as `pg_ctl stop -m immediate` does (SIGQUIT), SIGKILL after `timeoutMs`. */
  async stopPostgres(timeoutMs = 10_000): Promise<void> {
    const pid = this.postmasterPid()
    if (pid === undefined) return
    const signal = (s: NodeJS.Signals): void => {
      try {
        process.kill(pid, s)
      } catch {
        // It exited in between.
      }
    }
    signal('SIGQUIT')
    const t0 = Date.now()
    while (alive(pid)) {
      if (Date.now() - t0 > timeoutMs) signal('SIGKILL')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  /** Run `sql` on this node's PostgreSQL as the superuser; its unaligned, tuples-only output. */
  sql(sql: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const p = spawn(join(this.config.binDir, 'psql'), ['-X', '-A', '-t', '-h', '127.0.0.1', '-p', String(this.config.pgPort), '-U', 'postgres', '-d', 'postgres', '-c', sql], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PGPASSWORD: 'postgres', PGCONNECT_TIMEOUT: '3' },
      })
      let out = ''
      let err = ''
      p.stdout.on('data', (d: Buffer) => (out += d.toString()))
      p.stderr.on('data', (d: Buffer) => (err += d.toString()))
      p.on('error', reject)
      p.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`psql on ${this.name}: ${err.trim()}`))))
    })
  }

  /** The last lines of the node's Patroni log, for a failure report. */
  logTail(lines = 30): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
    } catch {
      return '(no log)'
    }
  }
}
