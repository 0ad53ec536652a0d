// embed.Config.Validate (with setupLogging's checks): what etcd refuses before it starts anything, in
// etcd's order and with its messages. A refusal is a VerifyFlagsError ("failed to verify flags", exit 1),
// except an unknown log level, on which etcd panics.
import { PanicError, VerifyFlagsError } from './errors.js'
import { formatGoDuration } from './flag-values.js'
import { goQuote } from '../pkg/go-quote.js'
import { isGoIp, splitHostPort } from '../pkg/transport/host-port.js'
import type { LogEntry } from './log-entry.js'
import { parseLogLevel, UnrecognizedLevelError } from '../pkg/logger.js'
import { CLUSTER_STATE_EXISTING, CLUSTER_STATE_NEW, DEFAULT_LOG_OUTPUT, type EmbedConfig } from './embed-config.js'
import type { EtcdUrl } from './urls.js'
import type { RotationConfig } from '../pkg/lumberjack.js'

const ERR_CONFLICT_BOOTSTRAP_FLAGS = 'multiple discovery or bootstrap flags are set. Choose one of "initial-cluster", "discovery" or "discovery-srv"'
const ERR_LOG_ROTATION_INVALID_LOG_OUTPUT = '--log-outputs requires a single file path when --log-rotate-config-json is defined'
const MAX_ELECTION_MS = 50_000n
const MAX_SAMPLING_RATE_PER_MILLION = 1_000_000n

/** checkBindURLs: a listener needs an IP or "localhost" (unix sockets aside). */
function checkBindUrls(urls: readonly EtcdUrl[]): void {
  for (const u of urls) {
    if (u.url.scheme === 'unix' || u.url.scheme === 'unixs') continue
    let host: string
    try {
      host = splitHostPort(u.url.host).host
    } catch (err) {
      throw new VerifyFlagsError(err instanceof Error ? err.message : String(err))
    }
    if (host === 'localhost') continue
    if (!isGoIp(host)) throw new VerifyFlagsError(`expected IP in URL for binding (${u.text})`)
  }
}

/** checkHostURLs: advertised URLs need a host and a port; returns the reason, if any. */
function checkHostUrls(urls: readonly EtcdUrl[]): string | undefined {
  for (const u of urls) {
    let host: string
    try {
      host = splitHostPort(u.url.host).host
    } catch (err) {
      return err instanceof Error ? err.message : String(err)
    }
    if (host === '') return `unexpected empty host (${u.text})`
  }
  return undefined
}

/** setupLogRotation's checks: one file among the outputs, and a log rotation config that is JSON. */
function checkLogRotation(outputs: readonly string[], json: string): void {
  const files = outputs.filter((v) => v !== DEFAULT_LOG_OUTPUT && v !== 'stderr' && v !== 'stdout').length
  if ((outputs.length === 1 && files === 0) || files > 1) throw new VerifyFlagsError(ERR_LOG_ROTATION_INVALID_LOG_OUTPUT)
  logRotationConfig(json)
}

/**
 * --log-rotation-config-json as Go's decoder reads it into lumberjack.Logger: keys matched without regard
 * to case, unknown keys ignored, the last of duplicates kept, and etcd's error for a value Go refuses.
 */
export function logRotationConfig(json: string): RotationConfig {
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch (err) {
    throw new VerifyFlagsError(`improperly formatted log rotation config: ${err instanceof Error ? err.message : String(err)}`)
  }
  // lumberjack.Logger's fields; Go's decoder refuses a value of another type.
  const types: Record<string, 'number' | 'boolean' | 'string'> = {
    filename: 'string', maxsize: 'number', maxage: 'number', maxbackups: 'number', localtime: 'boolean', compress: 'boolean',
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new VerifyFlagsError(`invalid log rotation config: json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed} into Go value of type embed.logRotationConfig`)
  }
  const values: Record<string, number | boolean> = {}
  for (const [k, v] of Object.entries(parsed)) {
    const field = k.toLowerCase()
    const want = types[field]
    if (want === undefined || v === null) continue
    const goType = want === 'number' ? 'int' : want === 'boolean' ? 'bool' : 'string'
    if (typeof v === want && (want !== 'number' || Number.isSafeInteger(v))) {
      if (typeof v !== 'string') values[field] = v as number | boolean
      continue
    }
    const got = typeof v === 'number' ? `number ${String(v)}` : typeof v === 'object' ? (Array.isArray(v) ? 'array' : 'object') : typeof v === 'boolean' ? 'bool' : typeof v
    throw new VerifyFlagsError(`invalid log rotation config: json: cannot unmarshal ${got} into Go struct field logRotationConfig.${k} of type ${goType}`)
  }
  const int = (k: string): number => (typeof values[k] === 'number' ? values[k] : 0)
  return { maxSize: int('maxsize'), maxAge: int('maxage'), maxBackups: int('maxbackups'), localTime: values['localtime'] === true, compress: values['compress'] === true }
}

/** setupLogging's checks (the logger itself is built by the command). */
function checkLogging(cfg: EmbedConfig): void {
  if (cfg.logger === 'capnslog') throw new VerifyFlagsError('--logger=capnslog is removed in v3.5')
  if (cfg.logger !== 'zap') throw new VerifyFlagsError(`unknown logger option ${goQuote(cfg.logger)}`)
  if (cfg.logOutputs.length === 0) cfg.logOutputs = [DEFAULT_LOG_OUTPUT]
  if (cfg.logOutputs.length > 1 && cfg.logOutputs.includes(DEFAULT_LOG_OUTPUT)) {
    throw new VerifyFlagsError(`multi logoutput for ${goQuote(DEFAULT_LOG_OUTPUT)} is not supported yet`)
  }
  if (cfg.enableLogRotation) checkLogRotation(cfg.logOutputs, cfg.logRotationConfigJson)
  try {
    parseLogLevel(cfg.logLevel)
  } catch (err) {
    if (err instanceof UnrecognizedLevelError) throw new PanicError(err.message)
    throw err
  }
}

/** tlsutil.GetTLSVersion: 0 lets the runtime choose. */
function tlsVersion(v: string): number {
  switch (v) {
    case '':
      return 0
    case 'TLS1.2':
      return 0x0303
    case 'TLS1.3':
      return 0x0304
    default:
      throw new VerifyFlagsError(`unexpected TLS version ${goQuote(v)} (must be one of: TLS1.2, TLS1.3)`)
  }
}

/** embed.Config.Validate. `log` receives the warnings etcd logs while validating. */
export function validate(cfg: EmbedConfig, log: (e: LogEntry) => void): void {
  checkLogging(cfg)
  checkBindUrls(cfg.listenPeerUrls)
  checkBindUrls(cfg.listenClientUrls)
  checkBindUrls(cfg.listenClientHttpUrls)
  // etcd warns here that gRPC and HTTP share the client port; the start-up log (startup-log.ts) says it where etcd's does.
  checkBindUrls(cfg.listenMetricsUrls)
  const peerErr = checkHostUrls(cfg.advertisePeerUrls)
  if (peerErr !== undefined) {
    throw new VerifyFlagsError(`--initial-advertise-peer-urls ${goQuote(cfg.advertisePeerUrls.map((u) => u.text).join(','))} must be "host:port" (${peerErr})`)
  }
  const clientErr = checkHostUrls(cfg.advertiseClientUrls ?? [])
  if (clientErr !== undefined) {
    throw new VerifyFlagsError(`--advertise-client-urls ${goQuote((cfg.advertiseClientUrls ?? []).map((u) => u.text).join(','))} must be "host:port" (${clientErr})`)
  }
  const nSet = [cfg.durl !== '', cfg.initialCluster !== '', cfg.dnsCluster !== ''].filter((v) => v).length
  if (cfg.clusterState !== CLUSTER_STATE_NEW && cfg.clusterState !== CLUSTER_STATE_EXISTING) {
    throw new VerifyFlagsError(`unexpected clusterState ${goQuote(cfg.clusterState)}`)
  }
  if (nSet > 1) throw new VerifyFlagsError(ERR_CONFLICT_BOOTSTRAP_FLAGS)
  if (cfg.tickMs === 0n) throw new VerifyFlagsError(`--heartbeat-interval must be >0 (set to ${cfg.tickMs}ms)`)
  if (cfg.electionMs === 0n) throw new VerifyFlagsError(`--election-timeout must be >0 (set to ${cfg.electionMs}ms)`)
  if (5n * cfg.tickMs > cfg.electionMs) {
    throw new VerifyFlagsError(`--election-timeout[${cfg.electionMs}ms] should be at least as 5 times as --heartbeat-interval[${cfg.tickMs}ms]`)
  }
  if (cfg.electionMs > MAX_ELECTION_MS) {
    throw new VerifyFlagsError(`--election-timeout[${cfg.electionMs}ms] is too long, and should be set less than ${MAX_ELECTION_MS}ms`)
  }
  // etcdlite advertises its bound listen URLs when --advertise-client-urls is not given, where etcd refuses
  // to start ("--advertise-client-urls is required when --listen-client-urls is set explicitly").
  switch (cfg.autoCompactionMode) {
    case '':
    case 'periodic':
    case 'revision':
      break
    default:
      throw new VerifyFlagsError(`unknown auto-compaction-mode ${goQuote(cfg.autoCompactionMode)}`)
  }
  if (!cfg.experimentalEnableLeaseCheckpointPersist && cfg.experimentalEnableLeaseCheckpoint) {
    log({ level: 'warn', msg: 'Detected that checkpointing is enabled without persistence. Consider enabling experimental-enable-lease-checkpoint-persist', caller: 'embed/config.go:744' })
  }
  if (cfg.experimentalEnableLeaseCheckpointPersist && !cfg.experimentalEnableLeaseCheckpoint) {
    throw new VerifyFlagsError('setting experimental-enable-lease-checkpoint-persist requires experimental-enable-lease-checkpoint')
  }
  if (cfg.experimentalCompactHashCheckTimeNs <= 0) {
    throw new VerifyFlagsError(`--experimental-compact-hash-check-time must be >0 (set to ${formatGoDuration(cfg.experimentalCompactHashCheckTimeNs)})`)
  }
  const min = tlsVersion(cfg.tlsMinVersion)
  const max = tlsVersion(cfg.tlsMaxVersion)
  if (max !== 0 && min > max) throw new VerifyFlagsError(`min version (${cfg.tlsMinVersion}) is greater than max version (${cfg.tlsMaxVersion})`)
  if (min === 0x0304 && cfg.cipherSuites.length > 0) throw new VerifyFlagsError('cipher suites cannot be configured when only TLS1.3 is enabled')
  if (cfg.experimentalEnableDistributedTracing) {
    const rate = cfg.experimentalDistributedTracingSamplingRate
    const why = rate < 0n ? 'tracing sampling rate must be positive' : rate > MAX_SAMPLING_RATE_PER_MILLION ? `tracing sampling rate must be less than ${MAX_SAMPLING_RATE_PER_MILLION}` : undefined
    if (why !== undefined) throw new VerifyFlagsError(`distributed tracing configurition is not valid: (${why})`)
  }
}
