// etcd's --config-file (embed.ConfigFromFile, then etcdmain's configProxy): the document (go-yaml.ts) decoded
// into embed.Config as Go decodes it into configYAML: keys by their json tags, unknown keys ignored, durations
// as integer nanoseconds, URL lists as comma-separated strings, the TLS blocks as securityConfig, and the
// first type mismatch (in key order) as the error, with Go's text. Loaded only for a start with a file.
import { ExitError, PanicError, VerifyFlagsError } from './errors.js'
import { UniqueStringsValue, UniqueUrlsValue } from './flag-values.js'
import {
  CLUSTER_STATE_NEW, DEFAULT_INITIAL_CLUSTER, emptyTlsInfo, FALLBACK_VALUES, PROXY_VALUES, type EmbedConfig, type TlsInfo,
} from './embed-config.js'
import {
  asBig, asBool, asList, asNum, asStr, decode, kindOf, lookup, sortedEntries, TypeMismatch, yamlToJson, type Decoded, type JsonValue, type Kind,
} from './go-yaml.js'
import { newUrls, type EtcdUrl } from './urls.js'

/** How one key of the file sets the config. */
interface FieldSpec {
  readonly kind: Kind
  readonly goType?: string
  readonly apply: (cfg: EmbedConfig, file: FileOnly, v: Decoded) => void
}

/** What the file says that embed.Config holds elsewhere: the string forms of URL lists and the TLS blocks. */
interface FileOnly {
  listenPeerUrls: string
  listenClientUrls: string
  listenClientHttpUrls: string
  advertisePeerUrls: string
  advertiseClientUrls: string
  listenMetricsUrls: string
  cors: string
  hostWhitelist: string
  clientSecurity: SecurityConfig
  peerSecurity: SecurityConfig
}

/** embed.securityConfig: one client-transport-security or peer-transport-security block. */
interface SecurityConfig {
  certFile: string
  keyFile: string
  clientCertFile: string
  clientKeyFile: string
  certAuth: boolean
  trustedCaFile: string
  autoTls: boolean
  allowedCns: string[]
  allowedHostnames: string[]
}

const emptySecurity = (): SecurityConfig => ({
  certFile: '', keyFile: '', clientCertFile: '', clientKeyFile: '', certAuth: false, trustedCaFile: '', autoTls: false, allowedCns: [], allowedHostnames: [],
})

const str = (apply: (c: EmbedConfig, v: string) => void): FieldSpec => ({ kind: 'string', apply: (c, _f, v) => apply(c, asStr(v)) })
const bool = (apply: (c: EmbedConfig, v: boolean) => void): FieldSpec => ({ kind: 'bool', apply: (c, _f, v) => apply(c, asBool(v)) })
const big = (kind: Kind, apply: (c: EmbedConfig, v: bigint) => void): FieldSpec => ({ kind, apply: (c, _f, v) => apply(c, asBig(v)) })
const dur = (apply: (c: EmbedConfig, ns: number) => void): FieldSpec => ({ kind: 'duration', apply: (c, _f, v) => apply(c, asNum(v)) })
const fileStr = (apply: (f: FileOnly, v: string) => void): FieldSpec => ({ kind: 'string', apply: (_c, f, v) => apply(f, asStr(v)) })

/** The keys of embed.Config's and configJSON's json tags (and etcdlite's own), as the file names them. */
const FIELDS: ReadonlyMap<string, FieldSpec> = new Map<string, FieldSpec>([
  ['name', str((c, v) => (c.name = v))],
  ['data-dir', str((c, v) => (c.dir = v))],
  ['wal-dir', str((c, v) => (c.walDir = v))],
  ['snapshot-count', big('uint64', (c, v) => (c.snapshotCount = v))],
  ['experimental-snapshot-catch-up-entries', big('uint64', (c, v) => (c.snapshotCatchUpEntries = v))],
  ['max-snapshots', big('uint', (c, v) => (c.maxSnapFiles = v))],
  ['max-wals', big('uint', (c, v) => (c.maxWalFiles = v))],
  ['heartbeat-interval', big('uint', (c, v) => (c.tickMs = v))],
  ['election-timeout', big('uint', (c, v) => (c.electionMs = v))],
  ['initial-election-tick-advance', bool((c, v) => (c.initialElectionTickAdvance = v))],
  ['backend-batch-interval', dur((c, v) => (c.backendBatchIntervalNs = v))],
  ['backend-batch-limit', big('int', (c, v) => (c.backendBatchLimit = v))],
  ['backend-bbolt-freelist-type', str((c, v) => (c.backendFreelistType = v))],
  ['quota-backend-bytes', big('int64', (c, v) => (c.quotaBackendBytes = v))],
  ['max-txn-ops', big('uint', (c, v) => (c.maxTxnOps = v))],
  ['max-request-bytes', big('uint', (c, v) => (c.maxRequestBytes = v))],
  ['max-concurrent-streams', big('uint32', (c, v) => (c.maxConcurrentStreams = Number(v)))],
  ['self-signed-cert-validity', big('uint', (c, v) => (c.selfSignedCertValidity = v))],
  ['cipher-suites', { kind: 'strings', apply: (c, _f, v) => (c.cipherSuites = asList(v)) }],
  ['tls-min-version', str((c, v) => (c.tlsMinVersion = v))],
  ['tls-max-version', str((c, v) => (c.tlsMaxVersion = v))],
  ['initial-cluster-state', str((c, v) => (c.clusterState = v))],
  ['discovery-srv', str((c, v) => (c.dnsCluster = v))],
  ['discovery-srv-name', str((c, v) => (c.dnsClusterServiceName = v))],
  ['discovery-proxy', str((c, v) => (c.dproxy = v))],
  ['discovery', str((c, v) => (c.durl = v))],
  ['initial-cluster', str((c, v) => (c.initialCluster = v))],
  ['initial-cluster-token', str((c, v) => (c.initialClusterToken = v))],
  ['strict-reconfig-check', bool((c, v) => (c.strictReconfigCheck = v))],
  ['enable-v2', bool((c, v) => (c.enableV2 = v))],
  ['auto-compaction-mode', str((c, v) => (c.autoCompactionMode = v))],
  ['auto-compaction-retention', str((c, v) => (c.autoCompactionRetention = v))],
  ['grpc-keepalive-min-time', dur((c, v) => (c.grpcKeepAliveMinTimeNs = v))],
  ['grpc-keepalive-interval', dur((c, v) => (c.grpcKeepAliveIntervalNs = v))],
  ['grpc-keepalive-timeout', dur((c, v) => (c.grpcKeepAliveTimeoutNs = v))],
  ['pre-vote', bool((c, v) => (c.preVote = v))],
  ['auth-token', str((c, v) => (c.authToken = v))],
  ['bcrypt-cost', big('uint', (c, v) => (c.bcryptCost = v))],
  ['auth-token-ttl', big('uint', (c, v) => (c.authTokenTtl = v))],
  ['experimental-initial-corrupt-check', bool((c, v) => (c.experimentalInitialCorruptCheck = v))],
  ['experimental-corrupt-check-time', dur((c, v) => (c.experimentalCorruptCheckTimeNs = v))],
  ['experimental-compact-hash-check-enabled', bool((c, v) => (c.experimentalCompactHashCheckEnabled = v))],
  ['experimental-compact-hash-check-time', dur((c, v) => (c.experimentalCompactHashCheckTimeNs = v))],
  ['experimental-enable-v2v3', str((c, v) => (c.experimentalEnableV2V3 = v))],
  ['experimental-enable-lease-checkpoint', bool((c, v) => (c.experimentalEnableLeaseCheckpoint = v))],
  ['experimental-enable-lease-checkpoint-persist', bool((c, v) => (c.experimentalEnableLeaseCheckpointPersist = v))],
  ['experimental-compaction-batch-limit', big('int', (c, v) => (c.experimentalCompactionBatchLimit = v))],
  ['experimental-compaction-sleep-interval', dur((c, v) => (c.experimentalCompactionSleepIntervalNs = v))],
  ['experimental-watch-progress-notify-interval', dur((c, v) => (c.experimentalWatchProgressNotifyIntervalNs = v))],
  ['experimental-warning-apply-duration', dur((c, v) => (c.experimentalWarningApplyDurationNs = v))],
  ['experimental-bootstrap-defrag-threshold-megabytes', big('uint', (c, v) => (c.experimentalBootstrapDefragThresholdMegabytes = v))],
  ['force-new-cluster', bool((c, v) => (c.forceNewCluster = v))],
  ['enable-pprof', bool((c, v) => (c.enablePprof = v))],
  ['metrics', str((c, v) => (c.metrics = v))],
  ['listen-metrics-urls', fileStr((f, v) => (f.listenMetricsUrls = v))],
  ['experimental-enable-distributed-tracing', bool((c, v) => (c.experimentalEnableDistributedTracing = v))],
  ['experimental-distributed-tracing-address', str((c, v) => (c.experimentalDistributedTracingAddress = v))],
  ['experimental-distributed-tracing-service-name', str((c, v) => (c.experimentalDistributedTracingServiceName = v))],
  ['experimental-distributed-tracing-instance-id', str((c, v) => (c.experimentalDistributedTracingInstanceId = v))],
  ['experimental-distributed-tracing-sampling-rate', big('int', (c, v) => (c.experimentalDistributedTracingSamplingRate = v))],
  ['logger', str((c, v) => (c.logger = v))],
  ['log-level', str((c, v) => (c.logLevel = v))],
  ['log-outputs', { kind: 'strings', apply: (c, _f, v) => (c.logOutputs = asList(v)) }],
  ['enable-log-rotation', bool((c, v) => (c.enableLogRotation = v))],
  ['log-rotation-config-json', str((c, v) => (c.logRotationConfigJson = v))],
  ['enable-grpc-gateway', bool((c, v) => (c.enableGrpcGateway = v))],
  ['unsafe-no-fsync', bool((c, v) => (c.unsafeNoFsync = v))],
  ['experimental-downgrade-check-time', dur((c, v) => (c.experimentalDowngradeCheckTimeNs = v))],
  ['experimental-memory-mlock', bool((c, v) => (c.experimentalMemoryMlock = v))],
  ['experimental-txn-mode-write-with-shared-buffer', bool((c, v) => (c.experimentalTxnModeWriteWithSharedBuffer = v))],
  ['experimental-stop-grpc-service-on-defrag', bool((c, v) => (c.experimentalStopGrpcServiceOnDefrag = v))],
  ['v2-deprecation', { kind: 'string', goType: 'config.V2DeprecationEnum', apply: (c, _f, v) => (c.v2Deprecation = asStr(v)) }],
  // configJSON: lists as comma-separated strings, and the TLS blocks.
  ['listen-peer-urls', fileStr((f, v) => (f.listenPeerUrls = v))],
  ['listen-client-urls', fileStr((f, v) => (f.listenClientUrls = v))],
  ['listen-client-http-urls', fileStr((f, v) => (f.listenClientHttpUrls = v))],
  ['initial-advertise-peer-urls', fileStr((f, v) => (f.advertisePeerUrls = v))],
  ['advertise-client-urls', fileStr((f, v) => (f.advertiseClientUrls = v))],
  ['cors', fileStr((f, v) => (f.cors = v))],
  ['host-whitelist', fileStr((f, v) => (f.hostWhitelist = v))],
  // etcdlite's own settings, under their flag names.
  ['memory', bool((c, v) => (c.memory = v))],
  ['etcd-version', str((c, v) => (c.etcdVersion = v))],
  ['index-checkpoint-entries', big('uint', (c, v) => (c.indexCheckpointEntries = v))],
  ['restore-snapshot', str((c, v) => (c.restoreSnapshot = v))],
])

const SECURITY_FIELDS: ReadonlyMap<string, readonly [Kind, (s: SecurityConfig, v: Decoded) => void]> = new Map<string, readonly [Kind, (s: SecurityConfig, v: Decoded) => void]>([
  ['cert-file', ['string', (s, v) => (s.certFile = asStr(v))]],
  ['key-file', ['string', (s, v) => (s.keyFile = asStr(v))]],
  ['client-cert-file', ['string', (s, v) => (s.clientCertFile = asStr(v))]],
  ['client-key-file', ['string', (s, v) => (s.clientKeyFile = asStr(v))]],
  ['client-cert-auth', ['bool', (s, v) => (s.certAuth = asBool(v))]],
  ['trusted-ca-file', ['string', (s, v) => (s.trustedCaFile = asStr(v))]],
  ['auto-tls', ['bool', (s, v) => (s.autoTls = asBool(v))]],
  ['allowed-cn', ['strings', (s, v) => (s.allowedCns = asList(v))]],
  ['allowed-hostname', ['strings', (s, v) => (s.allowedHostnames = asList(v))]],
])

const SOCKET_FIELDS: ReadonlyMap<string, (c: EmbedConfig, v: boolean) => void> = new Map<string, (c: EmbedConfig, v: boolean) => void>([
  ['reuse-port', (c, v) => (c.socketReusePort = v)],
  ['reuse-address', (c, v) => (c.socketReuseAddress = v)],
])

/** Decode the document into `cfg` and `file`; the first mismatch is thrown after every field is tried, as Go does. */
function decodeDocument(doc: JsonValue, cfg: EmbedConfig, file: FileOnly): void {
  if (doc === null) return
  if (!(doc instanceof Map)) throw new VerifyFlagsError(`error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${kindOf(doc)} into Go value of type embed.configYAML`)
  let first: Error | undefined
  const attempt = (f: () => void): void => {
    try {
      f()
    } catch (err) {
      if (!(err instanceof TypeMismatch)) throw err
      first ??= err
    }
  }
  for (const [key, value] of sortedEntries(doc)) {
    if (/^(client|peer)-transport-security$/i.test(key)) {
      const block = key.toLowerCase()
      attempt(() => {
        if (value === null) return
        if (!(value instanceof Map)) throw new TypeMismatch(kindOf(value), 'configYAML', block, 'embed.securityConfig')
        const sec = block === 'client-transport-security' ? file.clientSecurity : file.peerSecurity
        for (const [k, v] of sortedEntries(value)) {
          const found = lookup(SECURITY_FIELDS, k)
          if (found === undefined) continue
          const [name, [kind, apply]] = found
          attempt(() => {
            const d = decode(v, kind, 'securityConfig', `${block}.${name}`)
            if (d !== undefined) apply(sec, d)
          })
        }
      })
      continue
    }
    if (key.toLowerCase() === 'socket-options') {
      attempt(() => {
        if (value === null) return
        if (!(value instanceof Map)) throw new TypeMismatch(kindOf(value), 'configYAML', 'socket-options', 'transport.SocketOpts')
        for (const [k, v] of sortedEntries(value)) {
          const found = lookup(SOCKET_FIELDS, k)
          if (found === undefined) continue
          const [name, apply] = found
          attempt(() => {
            const d = decode(v, 'bool', 'SocketOpts', `socket-options.${name}`)
            if (d !== undefined) apply(cfg, asBool(d))
          })
        }
      })
      continue
    }
    const found = lookup(FIELDS, key)
    if (found === undefined) continue
    const [name, spec] = found
    attempt(() => {
      const d = decode(value, spec.kind, 'configYAML', name, spec.goType)
      if (d !== undefined) spec.apply(cfg, file, d)
    })
  }
  if (first !== undefined) throw new VerifyFlagsError(first.message)
}

/** The proxy keys etcdmain reads from the file in a second pass (configProxy). */
const PROXY_FIELDS: ReadonlyMap<string, FieldSpec> = new Map<string, FieldSpec>([
  ['proxy-failure-wait', big('uint', (c, v) => (c.proxyFailureWaitMs = v))],
  ['proxy-refresh-interval', big('uint', (c, v) => (c.proxyRefreshIntervalMs = v))],
  ['proxy-dial-timeout', big('uint', (c, v) => (c.proxyDialTimeoutMs = v))],
  ['proxy-write-timeout', big('uint', (c, v) => (c.proxyWriteTimeoutMs = v))],
  ['proxy-read-timeout', big('uint', (c, v) => (c.proxyReadTimeoutMs = v))],
])

/** Go's standard logger prefix ("2006/01/02 15:04:05 "), as log.Fatalf writes it. */
function goLogPrefix(now: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0')
  return `${now.getFullYear()}/${p(now.getMonth() + 1)}/${p(now.getDate())} ${p(now.getHours())}:${p(now.getMinutes())}:${p(now.getSeconds())} `
}

/**
 * etcdmain's configFromFile after embed's (which validates): the proxy settings, and "proxy" and
 * "discovery-fallback" checked as their flags check them.
 */
export function applyProxyConfig(doc: JsonValue, cfg: EmbedConfig): void {
  if (!(doc instanceof Map)) return
  let first: Error | undefined
  let proxyJson = ''
  let fallbackJson = ''
  for (const [key, value] of sortedEntries(doc)) {
    try {
      if (key.toLowerCase() === 'proxy' || key.toLowerCase() === 'discovery-fallback') {
        const name = key.toLowerCase()
        const d = decode(value, 'string', 'configProxy', name)
        if (d === undefined) continue
        if (name === 'proxy') proxyJson = asStr(d)
        else fallbackJson = asStr(d)
        continue
      }
      const found = lookup(PROXY_FIELDS, key)
      if (found === undefined) continue
      const [name, spec] = found
      const d = decode(value, spec.kind, 'configProxy', name)
      if (d !== undefined) spec.apply(cfg, emptyFileOnly(), d)
    } catch (err) {
      if (!(err instanceof TypeMismatch)) throw err
      first ??= err
    }
  }
  if (first !== undefined) throw new VerifyFlagsError(first.message)
  if (fallbackJson !== '') {
    if (!FALLBACK_VALUES.includes(fallbackJson)) throw new ExitError(`${goLogPrefix(new Date())}unexpected error setting up discovery-fallback flag: invalid value`)
    cfg.fallback = fallbackJson
  }
  if (proxyJson !== '') {
    if (!PROXY_VALUES.includes(proxyJson)) throw new ExitError(`${goLogPrefix(new Date())}unexpected error setting up proxyFlag: invalid value`)
    cfg.proxy = proxyJson
  }
}

const emptyFileOnly = (): FileOnly => ({
  listenPeerUrls: '', listenClientUrls: '', listenClientHttpUrls: '', advertisePeerUrls: '', advertiseClientUrls: '', listenMetricsUrls: '',
  cors: '', hostWhitelist: '', clientSecurity: emptySecurity(), peerSecurity: emptySecurity(),
})

/** types.NewURLs over a comma-separated key; etcd prints the failure and exits 1. */
function urlsOf(text: string, what: string): EtcdUrl[] {
  try {
    return newUrls(text.split(','))
  } catch (err) {
    throw new ExitError(`unexpected error setting up ${what}: ${err instanceof Error ? err.message : String(err)}`)
  }
}

const tlsFrom = (s: SecurityConfig): TlsInfo => ({
  ...emptyTlsInfo(),
  certFile: s.certFile,
  keyFile: s.keyFile,
  clientCertFile: s.clientCertFile,
  clientKeyFile: s.clientKeyFile,
  clientCertAuth: s.certAuth,
  trustedCaFile: s.trustedCaFile,
  allowedCns: s.allowedCns,
  allowedHostnames: s.allowedHostnames,
})

/**
 * Apply the file's text to `cfg` (fresh defaults): configYAML.configFromFile without its final Validate.
 * Returns the document for applyProxyConfig. Throws VerifyFlagsError, ExitError or PanicError as etcd fails.
 */
export function applyConfigFile(text: string, cfg: EmbedConfig): JsonValue {
  const doc = yamlToJson(text)
  const file = emptyFileOnly()
  decodeDocument(doc, cfg, file)
  if (file.listenPeerUrls !== '') cfg.listenPeerUrls = urlsOf(file.listenPeerUrls, 'listen-peer-urls')
  if (file.listenClientUrls !== '') cfg.listenClientUrls = urlsOf(file.listenClientUrls, 'listen-client-urls')
  if (file.listenClientHttpUrls !== '') cfg.listenClientHttpUrls = urlsOf(file.listenClientHttpUrls, 'listen-client-http-urls')
  if (file.advertisePeerUrls !== '') cfg.advertisePeerUrls = urlsOf(file.advertisePeerUrls, 'initial-advertise-peer-urls')
  // etcd names the wrong key in this message.
  if (file.advertiseClientUrls !== '') cfg.advertiseClientUrls = urlsOf(file.advertiseClientUrls, 'advertise-peer-urls')
  if (file.listenMetricsUrls !== '') cfg.listenMetricsUrls = urlsOf(file.listenMetricsUrls, 'listen-metrics-urls')
  if (file.cors !== '') {
    try {
      cfg.cors = new UniqueUrlsValue(file.cors, '*').values
    } catch (err) {
      throw new PanicError(`new UniqueURLs should never fail: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  if (file.hostWhitelist !== '') cfg.hostWhitelist = new UniqueStringsValue(file.hostWhitelist).values
  if ((cfg.durl !== '' || cfg.dnsCluster !== '') && cfg.initialCluster === DEFAULT_INITIAL_CLUSTER) cfg.initialCluster = ''
  if (cfg.clusterState === '') cfg.clusterState = CLUSTER_STATE_NEW
  cfg.clientTls = tlsFrom(file.clientSecurity)
  cfg.peerTls = tlsFrom(file.peerSecurity)
  cfg.clientAutoTls = file.clientSecurity.autoTls
  cfg.peerAutoTls = file.peerSecurity.autoTls
  if (cfg.selfSignedCertValidity === 0n) cfg.selfSignedCertValidity = 1n
  return doc
}
