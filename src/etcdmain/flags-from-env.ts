// etcd's flags.SetFlagsFromEnv and verifyEnv (pkg/flags): every flag not given on the command line is
// taken from ETCD_<FLAG_NAME> (upper case, "-" as "_") when that variable is non-empty; then every ETCD_
// variable left unused is warned about, and one that a command-line flag shadows stops the start.
import { FatalError, VerifyFlagsError } from './errors.js'
import { FlagValueError } from './flag-values.js'
import type { FlagSet } from './flag-set.js'
import { goQuote } from '../pkg/go-quote.js'
import type { LogEntry } from './log-entry.js'

/** flags.FlagToEnv: "ETCD" and "listen-client-urls" give ETCD_LISTEN_CLIENT_URLS. */
export function flagToEnv(prefix: string, name: string): string {
  return `${prefix}_${name.replace(/-/g, '_').toUpperCase()}`
}

/**
 * Set the flags from `env` (name/value pairs in the environment's order), logging what etcd logs. Throws
 * FatalError for a variable a command-line flag shadows, and VerifyFlagsError (`invalid value "x" for
 * ETCD_NAME: reason`, the last one met) for a value a flag refuses.
 */
export function setFlagsFromEnv(fs: FlagSet, prefix: string, env: readonly (readonly [string, string])[], log: (e: LogEntry) => void): void {
  const alreadySet = new Set([...fs.actual].map((n) => flagToEnv(prefix, n)))
  const used = new Set<string>()
  const values = new Map(env)
  let failure: VerifyFlagsError | undefined
  for (const name of fs.names()) {
    const key = flagToEnv(prefix, name)
    if (alreadySet.has(key)) continue
    const val = values.get(key) ?? ''
    if (val === '') continue
    used.add(key)
    try {
      fs.set(name, val)
    } catch (err) {
      if (!(err instanceof FlagValueError)) throw err
      failure = new VerifyFlagsError(`invalid value ${goQuote(val)} for ${key}: ${err.message}`)
      continue
    }
    log({ level: 'info', msg: 'recognized and used environment variable', fields: { 'variable-name': key, 'variable-value': val }, caller: 'flags/flag.go:113' })
  }
  for (const [key, value] of env) {
    if (used.has(key)) continue
    if (alreadySet.has(key)) {
      throw new FatalError(
        'conflicting environment variable is shadowed by corresponding command-line flag (either unset environment variable or disable flag))',
        { 'environment-variable': key },
        'flags/flag.go:85',
      )
    }
    if (key.startsWith(`${prefix}_`)) log({ level: 'warn', msg: 'unrecognized environment variable', fields: { 'environment-variable': `${key}=${value}` }, caller: 'flags/flag.go:93' })
  }
  if (failure !== undefined) throw failure
}
