// The facts a reader needs to compare a run with another: the machine, the versions, the command line.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cpus, loadavg, release, totalmem, type } from 'node:os'
import type { MetaRecord } from './records.js'

/** The first line of a command's output, or 'unknown' when it cannot be run. */
function firstLine(cmd: string, args: readonly string[], cwd?: string): string {
  try {
    const out = execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000, ...(cwd === undefined ? {} : { cwd }) })
    return out.split('\n')[0]?.trim() || 'unknown'
  } catch {
    return 'unknown'
  }
}

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))
    if (m?.[1] !== undefined) return m[1].trim()
  } catch {
    // not Linux: os.cpus() names it
  }
  return cpus()[0]?.model ?? 'unknown'
}

/** etcdlite's package version and the checkout's commit, e.g. '0.1.0 (bc48e4f)'. */
function etcdliteVersion(root: string): string {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version?: unknown }
  const commit = firstLine('git', ['rev-parse', '--short', 'HEAD'], new URL(root).pathname)
  return `${String(pkg.version)}${commit === 'unknown' ? '' : ` (${commit})`}`
}

/** `argv` shell-quoted where it needs it, after `prefix`. */
export function commandLine(prefix: string, argv: readonly string[]): string {
  const q = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)
  return [prefix, ...argv.map(q)].join(' ')
}

export interface MetaInput {
  readonly command: string
  readonly etcdBin: string
  readonly benchmark: string
  readonly rounds: number
  readonly quick: boolean
  /** The repository root, as a file: URL ending in '/'. */
  readonly root: string
}

/** The run's MetaRecord; its loadAvgEnd is filled in when the run ends (see endMeta). */
export function collectMeta(m: MetaInput): MetaRecord {
  return {
    type: 'meta', date: new Date().toISOString(), command: m.command, cpu: cpuModel(), cores: cpus().length,
    ramGiB: Number((totalmem() / 2 ** 30).toFixed(1)), kernel: `${type()} ${release()}`, node: process.version,
    etcd: firstLine(m.etcdBin, ['--version']), etcdlite: etcdliteVersion(m.root), benchmark: m.benchmark, loadAvgStart: loadavg(), loadAvgEnd: [],
    rounds: m.rounds, quick: m.quick,
  }
}

/** `m` with the load average of now as its end. */
export function endMeta(m: MetaRecord): MetaRecord {
  return { ...m, loadAvgEnd: loadavg() }
}
