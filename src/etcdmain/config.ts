// Command-line flags, named as etcd names them. Parsing is pure: argv in, Config or a UsageError out.
import { parseGoDuration } from '../pkg/duration.js'
import { InvalidRetentionError, parseRetention } from '../etcdserver/auto-compactor.js'
import { LOG_LEVELS, type LogLevel } from '../pkg/logger.js'

export interface ClientUrl {
  readonly url: string
  readonly host: string
  readonly port: number
  /** TLS: an https:// URL. */
  readonly secure: boolean
}

export interface Config {
  readonly name: string
  readonly dataDir: string
  readonly memory: boolean
  readonly listenClientUrls: readonly ClientUrl[]
  /** Client URLs to advertise; undefined advertises the bound listen URLs. */
  readonly advertiseClientUrls: readonly string[] | undefined
  readonly maxRequestBytes: number
  readonly maxTxnOps: number
  readonly unsafeNoFsync: boolean
  readonly logLevel: LogLevel
  /** Progress notification interval for progress_notify watchers, in ms (never below 100). */
  readonly watchProgressNotifyIntervalMs: number
  /** --index-checkpoint-entries (0: no background checkpoints). */
  readonly indexCheckpointEntries: number
  /** Peer URLs this member advertises (MemberList); etcdlite serves no peer traffic. */
  readonly initialAdvertisePeerUrls: readonly string[]
  /** etcd's --election-timeout and --heartbeat-interval in ms: they set the minimum lease TTL. */
  readonly electionTimeoutMs: number
  readonly heartbeatIntervalMs: number
  /** Backend size that raises the NOSPACE alarm (0: etcd's default, 2 GiB). */
  readonly quotaBackendBytes: number
  /** Auto-compaction: mode and the raw retention value, in etcd's flag syntax ("0" disables). */
  readonly autoCompactionMode: 'periodic' | 'revision'
  readonly autoCompactionRetention: string
  /** Extra plain-HTTP listeners for /metrics, /health, /livez and /readyz. */
  readonly listenMetricsUrls: readonly ClientUrl[]
  /** The etcd version Status reports. */
  readonly etcdVersion: string
  /** Start from this snapshot file (etcdctl snapshot save): restored into a new data dir, or into memory. */
  readonly restoreSnapshot: string | undefined
  // ---- Auth flags ----
  /** --auth-token: simple tokens, or JWTs with their options (key files still to be read). */
  readonly authToken: AuthTokenFlag
  /** Seconds a simple token lives after its last use. */
  readonly authTokenTtl: number
  /** bcrypt cost of stored passwords. */
  readonly bcryptCost: number
  // ---- end Auth flags ----
  // ---- TLS ----
  /** Client TLS flags; they apply to the https:// client URLs only. */
  readonly clientTls: ClientTlsFlags
  // ---- end TLS ----
}

// ---- TLS ----
/** etcd's ClientTLSInfo flags: file paths ('' when not given). */
export interface ClientTlsFlags {
  readonly certFile: string
  readonly keyFile: string
  readonly trustedCaFile: string
  readonly clientCertAuth: boolean
}

/**
 * etcd's rules for the client TLS flags, checked before anything starts (etcd checks them as it opens its
 * listeners, with these messages): an https:// listen URL needs --cert-file or --key-file (etcd's
 * configureClientListeners), and then both (TLSInfo.baseConfig). http:// URLs ignore the flags (etcd warns:
 * etcd-main.ts does too).
 */
function checkClientTls(listen: readonly ClientUrl[], t: ClientTlsFlags): void {
  for (const u of listen) {
    if (!u.secure) continue
    if (t.certFile === '' && t.keyFile === '') {
      throw new UsageError(`TLS key/cert (--cert-file, --key-file) must be provided for client url ${u.url} with HTTPS scheme`)
    }
    if (t.certFile === '' || t.keyFile === '') {
      throw new UsageError(`KeyFile and CertFile must both be present[key: ${t.keyFile}, cert: ${t.certFile}]`)
    }
  }
}
// ---- end TLS ----

export type ParseResult = { readonly kind: 'run'; readonly config: Config } | { readonly kind: 'help' } | { readonly kind: 'version' }

export class UsageError extends Error {
  override name = 'UsageError'
}

interface FlagSpec {
  readonly type: 'string' | 'bool' | 'uint' | 'duration'
  readonly help: string
  readonly def: string
}

export const FLAGS: Readonly<Record<string, FlagSpec>> = {
  name: { type: 'string', def: 'default', help: 'Human-readable name for this member.' },
  'data-dir': { type: 'string', def: '${name}.etcdlite', help: 'Path to the data directory.' },
  memory: { type: 'bool', def: 'false', help: 'Keep everything in memory; nothing is written to disk (etcdlite only).' },
  'listen-client-urls': { type: 'string', def: 'http://127.0.0.1:2379', help: 'Comma-separated URLs to listen on for client traffic (port 0 picks a free port).' },
  'advertise-client-urls': { type: 'string', def: 'the listen URLs', help: 'Comma-separated client URLs to advertise.' },
  'max-request-bytes': { type: 'uint', def: '1572864', help: 'Maximum client request size in bytes the server will accept.' },
  'max-txn-ops': { type: 'uint', def: '128', help: 'Maximum number of operations permitted in a transaction.' },
  'unsafe-no-fsync': { type: 'bool', def: 'false', help: 'Disables fsync, unsafe, will cause data loss.' },
  'log-level': { type: 'string', def: 'info', help: "Configures log level. Only supports debug, info, warn, error." },
  'experimental-watch-progress-notify-interval': { type: 'duration', def: '10m0s', help: 'Duration of periodic watch progress notifications (minimum 100ms).' },
  'initial-advertise-peer-urls': { type: 'string', def: 'http://localhost:2380', help: "List of this member's peer URLs to advertise (shown by member list; etcdlite serves no peer traffic)." },
  'heartbeat-interval': { type: 'uint', def: '100', help: 'Time (in milliseconds) of a heartbeat interval.' },
  'election-timeout': { type: 'uint', def: '1000', help: 'Time (in milliseconds) for an election to timeout; the minimum lease TTL is 1.5 election timeouts.' },
  'quota-backend-bytes': { type: 'uint', def: '0', help: 'Raise alarms when backend size exceeds the given quota (0 defaults to low space quota).' },
  'auto-compaction-mode': { type: 'string', def: 'periodic', help: "Interpret 'auto-compaction-retention' one of: periodic|revision. 'periodic' for duration based retention, defaulting to hours if no time unit is provided (e.g. '5m'). 'revision' for revision number based retention." },
  'auto-compaction-retention': { type: 'string', def: '0', help: 'Auto compaction retention for mvcc key value store. 0 means disable auto compaction.' },
  'listen-metrics-urls': { type: 'string', def: '', help: 'List of URLs to listen on for the metrics and health endpoints.' },
  'etcd-version': { type: 'string', def: '3.5.17', help: 'The etcd version Status reports to clients (etcdlite only).' },
  'index-checkpoint-entries': {
    type: 'uint',
    def: '50000',
    help: 'Log entries written after the key-index checkpoint before a new one is written in the background (at least a quarter of the keys); a start after a crash replays about that many. 0 turns it off (etcdlite only).',
  },
  // ---- Auth flags ----
  'auth-token': { type: 'string', def: 'simple', help: "Specify a v3 authentication token type and its options ('simple' or 'jwt,sign-method=RS256,pub-key=FILE,priv-key=FILE,ttl=5m')." },
  'auth-token-ttl': { type: 'uint', def: '300', help: 'Time (in seconds) of the auth-token-ttl.' },
  'bcrypt-cost': { type: 'uint', def: '10', help: 'Specify the cost / strength of the bcrypt algorithm for hashing auth passwords. Valid values are between 4 and 31.' },
  // ---- end Auth flags ----
  // ---- TLS ----
  'cert-file': { type: 'string', def: '', help: 'Path to the client server TLS cert file.' },
  'key-file': { type: 'string', def: '', help: 'Path to the client server TLS key file.' },
  'client-cert-auth': { type: 'bool', def: 'false', help: 'Enable client cert authentication.' },
  'trusted-ca-file': { type: 'string', def: '', help: 'Path to the client server TLS trusted CA cert file.' },
  // ---- end TLS ----
  'restore-snapshot': { type: 'string', def: '', help: "Start from this snapshot file (written by 'etcdctl snapshot save'): its data is restored into --data-dir, which must not exist or be empty, or into memory with --memory (etcdlite only)." },
}

/** etcd's minWatchProgressInterval: shorter intervals are raised to this. */
export const MIN_WATCH_PROGRESS_INTERVAL_MS = 100
const DEFAULT_WATCH_PROGRESS_INTERVAL_MS = 10 * 60 * 1000

/** Parse a Go time.Duration string ("10m0s", "1.5s", "100ms", "0") into milliseconds. */
export function parseDuration(v: string, flag: string): number {
  try {
    return parseGoDuration(v) / 1e6
  } catch {
    throw new UsageError(`invalid value "${v}" for flag --${flag}: parse error`)
  }
}

export function usage(): string {
  const lines = ['Usage: etcdlite [flags]', '', 'An etcd v3 compatible key-value server.', '', 'Flags:']
  for (const [name, f] of Object.entries(FLAGS)) {
    const arg = f.type === 'bool' ? '' : f.type === 'uint' ? ' <n>' : f.type === 'duration' ? ' <duration>' : ' <value>'
    lines.push(`  --${name}${arg}`, `      ${f.help} (default: ${f.def})`)
  }
  lines.push('  --help', '      Show this help.', '  --version', '      Print the version.')
  return lines.join('\n') + '\n'
}

function parseUrl(raw: string, flag: string, allowHttps = true): ClientUrl {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new UsageError(`invalid value "${raw}" for flag --${flag}: not a URL`)
  }
  // ---- TLS ---- (https:// client URLs; the metrics listeners stay plaintext)
  if (u.protocol !== 'http:' && !(allowHttps && u.protocol === 'https:')) {
    throw new UsageError(`invalid value "${raw}" for flag --${flag}: only ${allowHttps ? 'http:// and https://' : 'http://'} URLs are supported`)
  }
  // ---- end TLS ----
  if (u.port === '') throw new UsageError(`invalid value "${raw}" for flag --${flag}: missing port in address`)
  if (u.pathname !== '/' && u.pathname !== '') throw new UsageError(`invalid value "${raw}" for flag --${flag}: URL must not have a path`)
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname
  return { url: raw, host, port: Number(u.port), secure: u.protocol === 'https:' }
}

function parseUint(v: string, flag: string): number {
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new UsageError(`invalid value "${v}" for flag --${flag}: parse error`)
  return Number(v)
}

function parseBool(v: string, flag: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return false
  throw new UsageError(`invalid boolean value "${v}" for flag --${flag}`)
}

/** Parse argv the way Go's flag package does: -flag, --flag, --flag=value, --flag value, bools without value. */
export function parseArgs(argv: readonly string[]): ParseResult {
  const values = new Map<string, string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (!arg.startsWith('-') || arg === '-' || arg === '--') throw new UsageError(`unexpected argument "${arg}"`)
    const body = arg.replace(/^--?/, '')
    const eq = body.indexOf('=')
    const name = eq === -1 ? body : body.slice(0, eq)
    if (name === 'help' || name === 'h') return { kind: 'help' }
    if (name === 'version') return { kind: 'version' }
    const spec = FLAGS[name]
    if (spec === undefined) throw new UsageError(`flag provided but not defined: -${name}`)
    let value: string
    if (eq !== -1) value = body.slice(eq + 1)
    else if (spec.type === 'bool') value = 'true'
    else {
      const next = argv[i + 1]
      if (next === undefined) throw new UsageError(`flag needs an argument: --${name}`)
      value = next
      i++
    }
    if (values.has(name)) throw new UsageError(`flag --${name} given more than once`)
    values.set(name, value)
  }
  const str = (k: string): string | undefined => values.get(k)
  const name = str('name') ?? 'default'
  const listen = (str('listen-client-urls') ?? 'http://127.0.0.1:2379').split(',').map((u) => parseUrl(u.trim(), 'listen-client-urls'))
  const advertiseRaw = str('advertise-client-urls')
  const advertise = advertiseRaw === undefined ? undefined : advertiseRaw.split(',').map((u) => parseUrl(u.trim(), 'advertise-client-urls').url)
  const logLevel = str('log-level') ?? 'info'
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new UsageError(`invalid value "${logLevel}" for flag --log-level: must be one of ${LOG_LEVELS.join(', ')}`)
  }
  const maxRequestBytes = parseUint(str('max-request-bytes') ?? '1572864', 'max-request-bytes')
  const maxTxnOps = parseUint(str('max-txn-ops') ?? '128', 'max-txn-ops')
  if (maxRequestBytes === 0) throw new UsageError('invalid value "0" for flag --max-request-bytes: must be positive')
  if (maxTxnOps === 0) throw new UsageError('invalid value "0" for flag --max-txn-ops: must be positive')
  // As etcd: zero or negative keeps the default; positive values below the minimum are raised to it.
  const progressMs = parseDuration(str('experimental-watch-progress-notify-interval') ?? '10m', 'experimental-watch-progress-notify-interval')
  const watchProgressNotifyIntervalMs =
    progressMs <= 0 ? DEFAULT_WATCH_PROGRESS_INTERVAL_MS : Math.max(MIN_WATCH_PROGRESS_INTERVAL_MS, progressMs)
  const heartbeatIntervalMs = parseUint(str('heartbeat-interval') ?? '100', 'heartbeat-interval')
  const electionTimeoutMs = parseUint(str('election-timeout') ?? '1000', 'election-timeout')
  if (heartbeatIntervalMs === 0) throw new UsageError('--heartbeat-interval must be positive')
  // etcd's embed.Config.Validate.
  if (5 * heartbeatIntervalMs > electionTimeoutMs) {
    throw new UsageError(
      `--election-timeout[${electionTimeoutMs}ms] should be at least as 5 times as --heartbeat-interval[${heartbeatIntervalMs}ms]`,
    )
  }
  const mode = str('auto-compaction-mode') ?? 'periodic'
  if (mode !== 'periodic' && mode !== 'revision') {
    throw new UsageError(`unknown auto-compaction-mode "${mode}"`)
  }
  const retention = str('auto-compaction-retention') ?? '0'
  try {
    parseRetention(mode, retention)
  } catch (e) {
    if (e instanceof InvalidRetentionError) throw new UsageError(e.message)
    throw e
  }
  const peers = (str('initial-advertise-peer-urls') ?? 'http://localhost:2380').split(',').map((u) => u.trim())
  // ---- Auth flags ----
  const authToken = parseAuthToken(str('auth-token') ?? 'simple')
  // ---- end Auth flags ----
  // ---- TLS ----
  const clientTls: ClientTlsFlags = {
    certFile: str('cert-file') ?? '',
    keyFile: str('key-file') ?? '',
    trustedCaFile: str('trusted-ca-file') ?? '',
    clientCertAuth: parseBool(str('client-cert-auth') ?? 'false', 'client-cert-auth'),
  }
  checkClientTls(listen, clientTls)
  // ---- end TLS ----
  const metricsRaw = str('listen-metrics-urls') ?? ''
  const listenMetricsUrls = metricsRaw === '' ? [] : metricsRaw.split(',').map((u) => parseUrl(u.trim(), 'listen-metrics-urls', false))
  return {
    kind: 'run',
    config: {
      name,
      dataDir: str('data-dir') ?? `${name}.etcdlite`,
      memory: parseBool(str('memory') ?? 'false', 'memory'),
      listenClientUrls: listen,
      advertiseClientUrls: advertise,
      maxRequestBytes,
      maxTxnOps,
      unsafeNoFsync: parseBool(str('unsafe-no-fsync') ?? 'false', 'unsafe-no-fsync'),
      logLevel: logLevel as LogLevel,
      watchProgressNotifyIntervalMs,
      indexCheckpointEntries: parseUint(str('index-checkpoint-entries') ?? '50000', 'index-checkpoint-entries'),
      initialAdvertisePeerUrls: peers,
      heartbeatIntervalMs,
      electionTimeoutMs,
      quotaBackendBytes: parseUint(str('quota-backend-bytes') ?? '0', 'quota-backend-bytes'),
      autoCompactionMode: mode,
      autoCompactionRetention: retention,
      listenMetricsUrls,
      etcdVersion: str('etcd-version') ?? '3.5.17',
      restoreSnapshot: str('restore-snapshot') || undefined,
      authToken,
      authTokenTtl: parseUint(str('auth-token-ttl') ?? '300', 'auth-token-ttl'),
      bcryptCost: parseUint(str('bcrypt-cost') ?? '10', 'bcrypt-cost'),
      clientTls,
    },
  }
}

// ---- Auth flags ----
/** --auth-token as given: `simple`, or `jwt` with its options; key files are read when the server starts. */
export type AuthTokenFlag =
  | { readonly type: 'simple' }
  | {
      readonly type: 'jwt'
      readonly signMethod: string
      readonly pubKeyFile: string
      readonly privKeyFile: string
      /** 0: etcd's default (5 minutes). */
      readonly ttlMs: number
    }

/**
 * etcd's decomposeOpts and NewTokenProvider: the type, then comma-separated name=value options, each at most
 * once. Anything malformed, an unknown type, a bad ttl or a missing sign-method is "auth: invalid auth
 * options", as etcd reports it. Unknown jwt options are ignored (etcd warns).
 */
function parseAuthToken(v: string): AuthTokenFlag {
  const [type, ...rest] = v.split(',')
  const opts = new Map<string, string>()
  for (const o of rest) {
    const pair = o.split('=')
    if (pair.length !== 2 || opts.has(pair[0] as string)) throw new UsageError('auth: invalid auth options')
    opts.set(pair[0] as string, pair[1] as string)
  }
  if (type === 'simple') return { type: 'simple' }
  if (type !== 'jwt') throw new UsageError('auth: invalid auth options')
  let ttlMs = 0
  const ttl = opts.get('ttl') ?? ''
  if (ttl !== '') {
    try {
      ttlMs = parseGoDuration(ttl) / 1e6
    } catch {
      throw new UsageError('auth: invalid auth options')
    }
  }
  const signMethod = opts.get('sign-method') ?? ''
  if (signMethod === '') throw new UsageError('auth: invalid auth options')
  return { type: 'jwt', signMethod, pubKeyFile: opts.get('pub-key') ?? '', privKeyFile: opts.get('priv-key') ?? '', ttlMs }
}
// ---- end Auth flags ----
