/** A small structured logger in etcd's (zap JSON) shape, writing one line per entry to stderr. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error']

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

const replacer = (_k: string, v: unknown): unknown =>
  typeof v === 'bigint' ? v.toString() : v instanceof Error ? { message: v.message, stack: v.stack } : v

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const min = LOG_LEVELS.indexOf(level)
  const log = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>): void => {
    if (LOG_LEVELS.indexOf(lvl) < min) return
    write(JSON.stringify({ level: lvl, ts: new Date().toISOString(), msg, ...fields }, replacer) + '\n')
  }
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }
}

/** A logger that drops everything (the embedded default). */
export const silentLogger: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined }
