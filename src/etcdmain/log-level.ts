// --log-level: zap's level names, as etcd takes them, and the one place they meet etcdlite's logger.
import type { LogLevel } from '../pkg/logger.js'

/** zap's levels (zapcore.Level.UnmarshalText, which also takes them in upper case). */
export const ZAP_LEVELS = ['debug', 'info', 'warn', 'error', 'dpanic', 'panic', 'fatal'] as const
export type ZapLevel = (typeof ZAP_LEVELS)[number]

/** zapcore.Level.Set: a level name in lower or upper case; '' is info. */
export function parseZapLevel(s: string): ZapLevel | undefined {
  if (s === '') return 'info'
  const lower = s.toLowerCase()
  return (ZAP_LEVELS as readonly string[]).includes(lower) ? (lower as ZapLevel) : undefined
}

/**
 * The logger level for a zap level. etcdlite's logger stops at error, and etcd logs nothing at dpanic,
 * panic or fatal while it runs (only as it dies), so those keep error and above.
 */
export function loggerLevel(level: ZapLevel): LogLevel {
  return level === 'dpanic' || level === 'panic' || level === 'fatal' ? 'error' : level
}
