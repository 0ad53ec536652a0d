// The etcdlite command (etcdmain's Main and startEtcdOrProxyV2): etcd 3.5's command line (flags, ETCD_*
// environment or --config-file), its checks and failures as etcd reports them, then the server started
// (start-etcd.ts) and served until SIGINT/SIGTERM.
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger, type ZapLogger } from '../pkg/logger.js'
import { packageRoot } from '../pkg/package-root.js'
import { parseArgs, type ParseResult } from './config.js'
import { systemResolver, type Resolver } from './bootstrap.js'
import { DEFAULT_ETCD_VERSION } from './embed-config.js'
import { ExitError, FatalError, PanicError, StartError, VerifyFlagsError } from './errors.js'
import { FlagParseError, HelpRequested } from './flag-set.js'
import type { LogEntry } from './log-entry.js'
import { startEtcd } from './start-etcd.js'
import { logFailedToStart, logFailedToVerifyFlags } from './startup-log.js'

/** etcdlite's own version (its package's), which --version and the start-up line report. */
function etcdliteVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
  return pkg.version
}

/** Go's GOOS/GOARCH names for this machine, as `etcd --version` prints them. */
function goOsArch(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform
  const arch = ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[process.arch] ?? process.arch
  return `${os}/${arch}`
}

/**
 * `etcd --version` in etcd's shape, which tools parse, naming the etcd version etcdlite reports (the
 * --etcd-version given, or ETCD_ETCD_VERSION, or the default), then etcdlite's own version.
 */
export function versionText(argv: readonly string[], env: ReadonlyMap<string, string>): string {
  let etcdVersion = env.get('ETCD_ETCD_VERSION') || DEFAULT_ETCD_VERSION
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?etcd-version(?:=(.*))?$/.exec(argv[i] ?? '')
    if (m !== null) etcdVersion = m[1] ?? argv[++i] ?? etcdVersion
  }
  return [
    `etcd Version: ${etcdVersion}`,
    'Git SHA: Not provided (etcdlite)',
    `Go Version: none (etcdlite on Node.js ${process.version})`,
    `Go OS/Arch: ${goOsArch()}`,
    `etcdlite Version: ${etcdliteVersion()}`,
    '',
  ].join('\n')
}

/** What the command reads from its process; tests give their own. */
export interface MainIo {
  readonly env: NodeJS.ProcessEnv
  readonly resolve: Resolver
}

/** Report a failure of reading the configuration as etcd does (its output and exit code); rethrows what is not one. */
async function failure(err: unknown, early: ZapLogger): Promise<number> {
  if (err instanceof FlagParseError || err instanceof HelpRequested) {
    // The usage and the help text load only to be printed.
    const { flagsHelp, USAGE } = await import('./help.js')
    if (err instanceof FlagParseError) {
      process.stderr.write(`${err.message}\n${USAGE}\n`)
      return 2
    }
    process.stderr.write(`${USAGE}\n`)
    process.stdout.write(`${flagsHelp()}\n`)
    return 0
  }
  if (err instanceof VerifyFlagsError) {
    logFailedToVerifyFlags(early, processArgs(), err.message)
    return 1
  }
  if (err instanceof StartError) {
    logFailedToStart(early, err.message)
    return 1
  }
  if (err instanceof FatalError) {
    early.log('fatal', err.message, err.fields, err.caller)
    return 1
  }
  if (err instanceof ExitError) {
    process.stderr.write(`${err.message}\n`)
    return 1
  }
  if (err instanceof PanicError) {
    process.stderr.write(`panic: ${err.message}\n\ngoroutine 1 [running]:\n`)
    return 2
  }
  throw err
}

/**
 * Run the server until a signal stops it. Resolves with the process exit code, or with the signal that
 * stopped the server: etcd re-raises it once it has shut down, so its parent sees it end by that signal
 * (exit status 143 for SIGTERM, 130 for SIGINT in a shell).
 */
export async function main(argv: readonly string[], io: MainIo = { env: process.env, resolve: systemResolver }): Promise<number | NodeJS.Signals> {
  // etcd's sub-commands run its proxies, which etcdlite does not have.
  if (argv[0] === 'gateway' || argv[0] === 'grpc-proxy') {
    process.stderr.write(`etcdlite does not implement 'etcd ${argv[0]}' (one of etcd's proxies); it runs as a member only\n`)
    return 1
  }
  // While it reads its configuration, etcd logs with a default logger at info level.
  const early = createLogger('info')
  const log = (e: LogEntry): void => early.log(e.level, e.msg, e.fields, e.caller)
  const env = Object.entries(io.env).filter((kv): kv is [string, string] => kv[1] !== undefined)
  let parsed: ParseResult
  try {
    parsed = await parseArgs(argv, { env, readFile: (p) => readConfigFile(p), log })
  } catch (err) {
    return await failure(err, early)
  }
  if (parsed.kind === 'version') {
    process.stdout.write(versionText(argv, new Map(env)))
    return 0
  }
  const cfg = parsed.config
  const ctx = { notes: parsed.notes, resolve: io.resolve, args: processArgs(), etcdliteVersion: etcdliteVersion() }
  // --auto-tls / --peer-auto-tls write their certificates under the data dir; with --memory there is none, so
  // they go to a private temporary directory that goes when the process stops.
  if (!cfg.memory || !(cfg.clientTls.autoTls || cfg.peerTls.autoTls)) return startEtcd(cfg, { ...ctx, certDir: cfg.dataDir })
  const certDir = await mkdtemp(join(tmpdir(), 'etcdlite-auto-tls-'))
  try {
    return await startEtcd(cfg, { ...ctx, certDir })
  } finally {
    await rm(certDir, { recursive: true, force: true })
  }
}

/** ioutil.ReadFile's errors as Go words them: `open <path>: no such file or directory`, `read <dir>: is a directory`. */
function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    const op = (err as NodeJS.ErrnoException).code === 'EISDIR' ? 'read' : 'open'
    throw new Error(`${op} ${path}: ${goErrno(err)}`, { cause: err })
  }
}

/** Go's text for a system error. */
function goErrno(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return 'no such file or directory'
  if (code === 'EACCES') return 'permission denied'
  if (code === 'EISDIR') return 'is a directory'
  return err instanceof Error ? err.message : String(err)
}

/** os.Args as etcd logs them: the program, then its arguments. */
function processArgs(): string[] {
  return [process.argv[1] ?? 'etcd', ...process.argv.slice(2)]
}
