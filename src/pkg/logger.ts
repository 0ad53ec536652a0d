// The logger etcd builds from its zap config (client/pkg/logutil/zap.go): JSON lines at a minimum level,
// sampled, each with the call site that logged it, to one or more outputs. Hand-written: zap is Go, and
// no Node logger writes zap's exact line shape, levels and sampling.
import { encodeZapEntry } from './zap-encoder.js'

/** zap's levels, lowest first. etcd's --log-level takes any of them as the minimum. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'dpanic' | 'panic' | 'fatal'

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'dpanic', 'panic', 'fatal']

export type Fields = Readonly<Record<string, unknown>>

/**
 * What the server logs through. `caller` is the call site the line names ("embed/etcd.go:311" for a line
 * etcd also logs, so that tools reading etcd's logs see the same shape); without it the logger names the
 * code that called it.
 */
export interface Logger {
  debug(msg: string, fields?: Fields, caller?: string): void
  info(msg: string, fields?: Fields, caller?: string): void
  warn(msg: string, fields?: Fields, caller?: string): void
  error(msg: string, fields?: Fields, caller?: string): void
}

/** zap's Level.UnmarshalText refusing a level; etcd panics with it (logutil.ConvertToZapLevel). */
export class UnrecognizedLevelError extends Error {
  override name = 'UnrecognizedLevelError'
  constructor(readonly text: string) {
    super(`unrecognized level: ${JSON.stringify(text)}`)
  }
}

/** zap's Level.Set: a level name in lower or upper case; the empty string is info. */
export function parseLogLevel(text: string): LogLevel {
  if (text === '') return 'info'
  const lower = text.toLowerCase()
  const level = LOG_LEVELS.find((l) => l === lower)
  if (level === undefined) throw new UnrecognizedLevelError(text)
  return level
}

/** Where encoded lines go (a zapcore.WriteSyncer): each call gets one whole line. */
export interface LogSink {
  write(line: string): void
}

export interface ZapLoggerOptions {
  readonly level: LogLevel
  readonly sinks: readonly LogSink[]
  /** etcd's sampling: per second, the first 100 entries with one level and message, then every 100th. Default on. */
  readonly sampling?: boolean
  /** A stacktrace field on error entries and above (zap's production config). Default on. */
  readonly stacktrace?: boolean
  /** Wall-clock time in ms since the epoch, with a fraction for microseconds. Default: the real clock. */
  readonly now?: () => number
  /** Offset of local time from UTC (Date#getTimezoneOffset) at `epochMs`. Default: the process's zone. */
  readonly tzOffsetMinutes?: (epochMs: number) => number
}

/** The real clock to the microsecond: the high-resolution clock while it agrees with Date.now() to the ms. */
function realNow(): number {
  const precise = performance.timeOrigin + performance.now()
  const wall = Date.now()
  return Math.abs(precise - wall) <= 1 ? precise : wall
}

const SAMPLE_TICK_MS = 1000
const SAMPLE_FIRST = 100
const SAMPLE_THEREAFTER = 100
/** zap's sampler counts per level in 4096 buckets chosen by the message's FNV-1a hash. */
const SAMPLE_BUCKETS = 4096

function fnv32a(s: string): number {
  let h = 0x811c9dc5
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/** zapcore's sampler: whether an entry is written, counting it. */
class Sampler {
  private readonly counts = new Map<string, { resetAt: number; n: number }>()

  admit(level: LogLevel, msg: string, at: number): boolean {
    const key = `${level}/${fnv32a(msg) % SAMPLE_BUCKETS}`
    let c = this.counts.get(key)
    if (c === undefined) {
      c = { resetAt: 0, n: 0 }
      this.counts.set(key, c)
    }
    if (c.resetAt > at) c.n++
    else {
      c.n = 1
      c.resetAt = at + SAMPLE_TICK_MS
    }
    return c.n <= SAMPLE_FIRST || (c.n - SAMPLE_FIRST) % SAMPLE_THEREAFTER === 0
  }
}

/** Frames of the logging code itself, which a caller never names. */
const LOGGING_FILE = /\/pkg\/(logger|held-logger)\.[jt]s$/

/** The stack frames outside the logging code, and the first of them as zap's short caller ("dir/file.js:12"). */
function callSite(stack: string | undefined): { short: string; frames: Array<{ fn: string; file: string; line: string }> } {
  const frames: Array<{ fn: string; file: string; line: string }> = []
  for (const l of (stack ?? '').split('\n').slice(1)) {
    const m = /^\s*at (?:(.*?) \()?(?:file:\/\/)?(.*?):(\d+):\d+\)?$/.exec(l)
    if (m === null) continue
    const file = m[2] as string
    if (LOGGING_FILE.test(file)) continue
    frames.push({ fn: m[1] ?? '<anonymous>', file, line: m[3] as string })
  }
  const first = frames[0]
  // zap's ShortCallerEncoder: the last directory and the file.
  const short = first === undefined ? 'undefined' : `${first.file.split('/').slice(-2).join('/')}:${first.line}`
  return { short, frames }
}

/** zap's short caller for the code that called into the logger, from here. */
export function callerHere(): string {
  return callSite(new Error().stack).short
}

/** A zap logger in etcd's configuration. */
export class ZapLogger implements Logger {
  private readonly min: number
  private readonly sampler: Sampler | undefined
  private readonly now: () => number
  private readonly tz: (epochMs: number) => number

  constructor(private readonly opts: ZapLoggerOptions) {
    this.min = LOG_LEVELS.indexOf(opts.level)
    this.sampler = opts.sampling === false ? undefined : new Sampler()
    this.now = opts.now ?? realNow
    this.tz = opts.tzOffsetMinutes ?? ((ms) => new Date(ms).getTimezoneOffset())
  }

  get level(): LogLevel {
    return this.opts.level
  }

  enabled(level: LogLevel): boolean {
    return LOG_LEVELS.indexOf(level) >= this.min
  }

  /** Write one entry if its level is enabled and the sampler lets it through. */
  log(level: LogLevel, msg: string, fields: Fields = {}, caller?: string): void {
    if (!this.enabled(level)) return
    const time = this.now()
    if (this.sampler !== undefined && !this.sampler.admit(level, msg, time)) return
    const withStack = this.opts.stacktrace !== false && LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf('error')
    const site = caller === undefined || withStack ? callSite(new Error().stack) : undefined
    const line = encodeZapEntry({
      level,
      time,
      tzOffsetMinutes: this.tz(time),
      caller: caller ?? site?.short ?? 'undefined',
      msg,
      fields,
      // Go's shape: the function, then a tab and its file:line, one pair per frame.
      ...(withStack && site !== undefined ? { stacktrace: site.frames.map((f) => `${f.fn}\n\t${f.file}:${f.line}`).join('\n') } : {}),
    })
    for (const s of this.opts.sinks) s.write(line)
  }

  debug(msg: string, fields?: Fields, caller?: string): void {
    this.log('debug', msg, fields, caller)
  }

  info(msg: string, fields?: Fields, caller?: string): void {
    this.log('info', msg, fields, caller)
  }

  warn(msg: string, fields?: Fields, caller?: string): void {
    this.log('warn', msg, fields, caller)
  }

  error(msg: string, fields?: Fields, caller?: string): void {
    this.log('error', msg, fields, caller)
  }
}

/** stderr as a sink (zap's "stderr" output path). */
export const stderrSink: LogSink = { write: (line) => void process.stderr.write(line) }

/**
 * A logger in etcd's default zap configuration at `level`, writing each line to `write` (default: stderr).
 * This is the embedded API's logger for callers who want etcd's log lines.
 */
export function createLogger(level: LogLevel, write: (line: string) => void = (l) => void process.stderr.write(l)): ZapLogger {
  return new ZapLogger({ level, sinks: [{ write }] })
}

/** A logger that drops everything (the embedded default). */
export const silentLogger: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined }
