// What the JSON lines do not say about a run: the machine, the versions and the command line, collected at
// run time (so a regenerated report keeps them) and read back from the meta line.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { arch, cpus, release, totalmem, type } from 'node:os'
import { isObj, num, str, sub } from './report-lines.js'

/** The machine the run was on (collectMachineInfo() at run time, so a regenerated report keeps it). */
export interface MachineInfo {
  readonly cpuModel: string
  readonly cores: number
  readonly ramGiB: number
  /** e.g. 'Linux 6.1.0-18-amd64'. */
  readonly kernel: string
  readonly arch: string
}

/** What the JSON lines do not say about the run. */
export interface ReportMeta {
  /** The exact command line, flags included (see commandLine()). */
  readonly command: string
  /** First line of `etcd --version` (see etcdVersionLine()); null when unknown. */
  readonly etcdVersion: string | null
  /** Both servers ran with --unsafe-no-fsync; null when unknown (a report regenerated without meta). */
  readonly unsafeNoFsync: boolean | null
  /** ISO date of the run; default: now. */
  readonly date?: string
  /** Default: this machine, now. */
  readonly machine?: MachineInfo
  /** Default: process.version. */
  readonly nodeVersion?: string
  /** Default: the version in package.json. */
  readonly etcdliteVersion?: string
  /** --warmup and --server-warmup of the run, seconds; absent in runs that predate --server-warmup. */
  readonly warmup?: RunWarmup
  /** The watcher processes' HTTP/2 flow-control window, bytes; absent in runs that predate it (grpc-js's 64 KiB). */
  readonly watchWindowBytes?: number
}

export interface RunWarmup {
  /** Before each measurement. */
  readonly seconds: number
  /** Before each server's first measurement (bench/lib/warmup.ts). */
  readonly serverSeconds: number
}

// ---------------------------------------------------------------------------------------------------
// Machine and versions

/** CPU model, cores, RAM, kernel of this machine. */
export function collectMachineInfo(): MachineInfo {
  let cpuModel = cpus()[0]?.model ?? 'unknown'
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))
    if (m?.[1] !== undefined) cpuModel = m[1].trim()
  } catch {
    // not Linux: keep os.cpus()'s model
  }
  return { cpuModel, cores: cpus().length, ramGiB: Number((totalmem() / 2 ** 30).toFixed(1)), kernel: `${type()} ${release()}`, arch: arch() }
}

/** The first line of `<bin> --version` (e.g. 'etcd Version: 3.4.23'), or null when it cannot be run. */
export function etcdVersionLine(bin = 'etcd'): string | null {
  try {
    const out = execFileSync(bin, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 })
    return out.split('\n')[0]?.trim() || null
  } catch {
    return null
  }
}

/** `prefix` and `argv`, each argument shell-quoted when it needs it, as a user would retype it. */
export function commandLine(argv: readonly string[], prefix = 'node build/bench/run.js'): string {
  const q = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)
  // `npm run bench --` with nothing after it is just `npm run bench`.
  return [argv.length === 0 ? prefix.replace(/ --$/, '') : prefix, ...argv.map(q)].join(' ')
}

export function packageVersion(): string | null {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'))
    return isObj(pkg) ? str(pkg, 'version') : null
  } catch {
    return null
  }
}

/** The JSON objects among `text`'s lines (a saved `npm run bench` stdout); table rows and broken lines are skipped. */
export function parseJsonLines(text: string): object[] {
  const out: object[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line.startsWith('{')) continue
    try {
      const v: unknown = JSON.parse(line)
      if (isObj(v)) out.push(v)
    } catch {
      // a truncated line: skip it
    }
  }
  return out
}

/** A ReportMeta from untyped JSON (a --meta file or a `"type":"meta"` line); undefined when it is not one. */
export function parseMeta(x: unknown): ReportMeta | undefined {
  if (!isObj(x)) return undefined
  const command = str(x, 'command')
  if (command === null) return undefined
  const m = sub(x, 'machine')
  const machine: MachineInfo | undefined = m === undefined ? undefined : {
    cpuModel: str(m, 'cpuModel') ?? 'unknown', cores: num(m, 'cores') ?? 0, ramGiB: num(m, 'ramGiB') ?? 0,
    kernel: str(m, 'kernel') ?? 'unknown', arch: str(m, 'arch') ?? 'unknown',
  }
  const unsafe = x['unsafeNoFsync']
  const date = str(x, 'date')
  const nodeVersion = str(x, 'nodeVersion')
  const etcdliteVersion = str(x, 'etcdliteVersion')
  const w = sub(x, 'warmup')
  const warmSeconds = w === undefined ? null : num(w, 'seconds')
  const serverSeconds = w === undefined ? null : num(w, 'serverSeconds')
  const watchWindowBytes = num(x, 'watchWindowBytes')
  return {
    command,
    etcdVersion: str(x, 'etcdVersion'),
    unsafeNoFsync: typeof unsafe === 'boolean' ? unsafe : null,
    ...(date === null ? {} : { date }),
    ...(machine === undefined ? {} : { machine }),
    ...(nodeVersion === null ? {} : { nodeVersion }),
    ...(etcdliteVersion === null ? {} : { etcdliteVersion }),
    ...(warmSeconds === null || serverSeconds === null ? {} : { warmup: { seconds: warmSeconds, serverSeconds } }),
    ...(watchWindowBytes === null ? {} : { watchWindowBytes }),
  }
}
