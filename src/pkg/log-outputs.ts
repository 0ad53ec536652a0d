// etcd's --logger and --log-outputs (server/embed/config_logging.go setupLogging, with zap's sink opening):
// which outputs a logger writes to, and etcd's errors for the values it refuses.
import { closeSync, openSync, statSync, writeSync } from 'node:fs'
import { type LogSink, type LogLevel, ZapLogger } from './logger.js'
import { RotatingFileSink, type RotationConfig } from './lumberjack.js'
import { errorMessage } from './as-error.js'

export const DEFAULT_LOG_OUTPUT = 'default'
export const JOURNAL_LOG_OUTPUT = 'systemd/journal'
export const STDERR_LOG_OUTPUT = 'stderr'
export const STDOUT_LOG_OUTPUT = 'stdout'

/** Where journald listens; etcd dials it to decide whether "systemd/journal" can be used. */
export const JOURNAL_SOCKET = '/run/systemd/journal/socket'

/** A --logger / --log-outputs combination etcd refuses, with etcd's message. */
export class LoggingConfigError extends Error {
  override name = 'LoggingConfigError'
}

export interface LoggingConfig {
  /** --logger: only "zap" is left in etcd 3.5. */
  readonly logger: string
  /** --log-outputs, as the flag gives them (etcd's flag already drops duplicates and sorts). */
  readonly logOutputs: readonly string[]
  readonly logLevel: LogLevel
  /** --enable-log-rotation with its --log-rotation-config-json: the file output rotates (lumberjack.ts). */
  readonly rotation?: RotationConfig | undefined
}

/** An output that is a file: opened for appending, created if missing (zap's file sink), written synchronously. */
class FileSink implements LogSink {
  constructor(private readonly fd: number) {}

  write(line: string): void {
    writeSync(this.fd, line)
  }

  close(): void {
    closeSync(this.fd)
  }
}

const stdSink = (stream: NodeJS.WriteStream): LogSink => ({ write: (line) => void stream.write(line) })

/** Go's text for a system call error (os.PathError, net.OpError), from Node's error code. */
function goErrnoText(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  const texts: Readonly<Record<string, string>> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
    EROFS: 'read-only file system',
    ECONNREFUSED: 'connection refused',
    ELOOP: 'too many levels of symbolic links',
    ENAMETOOLONG: 'file name too long',
  }
  return (e.code === undefined ? undefined : texts[e.code]) ?? errorMessage(err)
}

/**
 * Go's url.Parse for an output path, as far as zap reads it: the scheme (only "file" has a sink), then the
 * parts zap refuses on file URLs. Returns the file path, or the reason zap gives for refusing it.
 */
function fileSinkPath(raw: string): { path: string } | { error: string } {
  let rest = raw
  let scheme = ''
  const s = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw)
  if (s !== null) {
    scheme = (s[1] as string).toLowerCase()
    rest = raw.slice(s[0].length)
  } else if (raw.startsWith(':')) {
    return { error: `can't parse ${JSON.stringify(raw)} as a URL: parse ${JSON.stringify(raw)}: missing protocol scheme` }
  }
  if (scheme !== '' && scheme !== 'file') return { error: `no sink found for scheme ${JSON.stringify(scheme)}` }
  const hash = rest.indexOf('#')
  const fragment = hash === -1 ? '' : rest.slice(hash + 1)
  if (hash !== -1) rest = rest.slice(0, hash)
  const q = rest.indexOf('?')
  const query = q === -1 ? '' : rest.slice(q + 1)
  if (q !== -1) rest = rest.slice(0, q)
  let host = ''
  if (scheme !== '' && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2)
    host = slash === -1 ? rest.slice(2) : rest.slice(2, slash)
    rest = slash === -1 ? '' : rest.slice(slash)
  }
  let path: string
  try {
    path = decodeURIComponent(rest)
  } catch {
    const bad = /%(?![0-9A-Fa-f]{2}).{0,2}/.exec(rest)?.[0] ?? '%'
    return { error: `can't parse ${JSON.stringify(raw)} as a URL: parse ${JSON.stringify(raw)}: invalid URL escape ${JSON.stringify(bad)}` }
  }
  if (host.includes('@')) return { error: `user and password not allowed with file URLs: got ${raw}` }
  if (fragment !== '') return { error: `fragments not allowed with file URLs: got ${raw}` }
  if (query !== '') return { error: `query parameters not allowed with file URLs: got ${raw}` }
  const port = /:(\d*)$/.exec(host)
  if (port !== null && port[1] !== '') return { error: `ports not allowed with file URLs: got ${raw}` }
  const hostname = port === null ? host : host.slice(0, -port[0].length)
  if (hostname !== '' && hostname !== 'localhost') return { error: `file URLs must leave host empty or use localhost: got ${raw}` }
  return { path }
}

/**
 * The file lumberjack writes for an output etcd hands it as "rotate:/<path>": the path, %-escapes decoded
 * as a URL path's are.
 */
function rotatedFilePath(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/** zap.Open for the output paths, sorted and without duplicates: all sinks, or every reason one failed. */
function openSinks(paths: readonly string[], rotation: RotationConfig | undefined): LogSink[] {
  const sinks: LogSink[] = []
  const errors: string[] = []
  for (const p of [...new Set(paths)].sort()) {
    if (rotation !== undefined && p !== STDERR_LOG_OUTPUT && p !== STDOUT_LOG_OUTPUT) {
      // lumberjack opens its file at the first write, and reports failures then.
      sinks.push(new RotatingFileSink(rotatedFilePath(p), rotation))
      continue
    }
    const parsed = fileSinkPath(p)
    if ('error' in parsed) {
      errors.push(`couldn't open sink ${JSON.stringify(p)}: ${parsed.error}`)
      continue
    }
    if (parsed.path === 'stdout') sinks.push(stdSink(process.stdout))
    else if (parsed.path === 'stderr') sinks.push(stdSink(process.stderr))
    else {
      try {
        sinks.push(new FileSink(openSync(parsed.path, 'a', 0o666)))
      } catch (err) {
        errors.push(`couldn't open sink ${JSON.stringify(p)}: open ${parsed.path}: ${goErrnoText(err)}`)
      }
    }
  }
  if (errors.length > 0) {
    for (const s of sinks) if (s instanceof FileSink || s instanceof RotatingFileSink) s.close()
    // multierr joins its errors with "; ".
    throw new LoggingConfigError(errors.join('; '))
  }
  return sinks
}

/**
 * Whether journald's socket can be dialled (etcd's systemd.DialJournal), as Go words the failure. Node has
 * no unixgram sockets, so this looks at the socket file instead of connecting to it.
 */
function dialJournal(): string | undefined {
  try {
    if (!statSync(JOURNAL_SOCKET).isSocket()) return `dial unixgram ${JOURNAL_SOCKET}: connect: connection refused`
    return undefined
  } catch (err) {
    return `dial unixgram ${JOURNAL_SOCKET}: connect: ${goErrnoText(err)}`
  }
}

/**
 * etcd's setupLogging: the logger for --logger, --log-outputs and --log-level, or etcd's error for a
 * combination it refuses. "default" is stderr (etcd 3.5 no longer picks journald by itself).
 */
export function setupLogging(cfg: LoggingConfig): ZapLogger {
  if (cfg.logger === 'capnslog') throw new LoggingConfigError('--logger=capnslog is removed in v3.5')
  if (cfg.logger !== 'zap') throw new LoggingConfigError(`unknown logger option ${JSON.stringify(cfg.logger)}`)
  const outputs = cfg.logOutputs.length === 0 ? [DEFAULT_LOG_OUTPUT] : cfg.logOutputs
  if (outputs.length > 1 && outputs.includes(DEFAULT_LOG_OUTPUT)) {
    throw new LoggingConfigError(`multi logoutput for ${JSON.stringify(DEFAULT_LOG_OUTPUT)} is not supported yet`)
  }
  const paths: string[] = []
  let journal = false
  for (const v of outputs) {
    if (v === JOURNAL_LOG_OUTPUT) journal = true
    else paths.push(v === DEFAULT_LOG_OUTPUT ? STDERR_LOG_OUTPUT : v)
  }
  if (!journal) return new ZapLogger({ level: cfg.logLevel, sinks: openSinks(paths, cfg.rotation) })
  if (outputs.length > 1) {
    // Go's %q of a []string: ["a" "b"].
    const q = `[${outputs.map((o) => JSON.stringify(o)).join(' ')}]`
    throw new LoggingConfigError(`running with systemd/journal but other '--log-outputs' values (${q}) are configured with 'default'; override 'default' value with something else`)
  }
  const dialError = dialJournal()
  if (dialError !== undefined) throw new LoggingConfigError(`can't find journal (${dialError})`)
  // etcd's journal writer falls back to stderr for every line journald does not take; without unixgram
  // sockets etcdlite cannot hand lines to journald, so they all take that fallback. etcd builds this core
  // without sampling or stacktraces.
  return new ZapLogger({ level: cfg.logLevel, sinks: [stdSink(process.stderr)], sampling: false, stacktrace: false })
}
