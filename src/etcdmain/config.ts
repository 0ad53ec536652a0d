// etcd 3.5's server configuration (etcdmain's newConfig and parse): every flag with etcd's type and
// default, read with Go's flag semantics, then the ETCD_* environment or, with --config-file, a YAML file
// instead of both; validated as etcd validates it; and turned into the Config etcdlite runs with. Pure:
// argv, the environment and a file reader in; a ParseResult or one of errors.ts's errors out.
import type { TlsInfoFlags } from '../pkg/transport/server-tls.js'
import { parseGoDuration } from '../pkg/duration.js'
import { InvalidRetentionError, parseRetention } from '../etcdserver/auto-compactor.js'
import { bootstrapIds, peerUrlsMapAndToken } from './bootstrap.js'
import { applyConfigFile, applyProxyConfig } from './config-file.js'
import { getDefaultHost, updateDefaultClusterFromName, type DefaultHost } from './default-host.js'
import {
  DEFAULT_ADVERTISE_CLIENT_URLS, DEFAULT_INITIAL_ADVERTISE_PEER_URLS, DEFAULT_LISTEN_CLIENT_URLS, DEFAULT_LISTEN_PEER_URLS,
  DEFAULT_LOG_OUTPUT, DEFAULT_LOG_ROTATION_CONFIG, DEFAULT_RAFT_CONN_TIMEOUT_NS, newEmbedConfig,
  V2_DEPRECATION_VALUES, type EmbedConfig,
} from './embed-config.js'
import { StartError, VerifyFlagsError } from './errors.js'
import { FlagSet } from './flag-set.js'
import {
  BoolValue, DurationValue, formatGoDuration, IgnoredFlag, IntegerValue, intValue, SelectiveStringsValue, SelectiveStringValue, StringsValue,
  StringValue, uintValue, Uint32Value, UniqueStringsValue, UniqueUrlsValue, type FlagValue,
} from './flag-values.js'
import { flagToEnv, setFlagsFromEnv } from './flags-from-env.js'
import { goUrlHostname, goUrlPort } from '../pkg/go-url.js'
import type { LogEntry } from './log-entry.js'
import { parseLogLevel, type LogLevel } from '../pkg/logger.js'
import type { EtcdUrl } from './urls.js'
import { validate } from './validate.js'

export interface ClientUrl {
  readonly url: string
  /** Where to bind: the URL's host, with "localhost" as 127.0.0.1 (where Go's listener binds it). */
  readonly host: string
  readonly port: number
  /** TLS: an https:// URL. */
  readonly secure: boolean
}

/** etcd's client TLS settings (ClientTLSInfo and --auto-tls): file paths, '' when not given. */
export type ClientTlsFlags = TlsInfoFlags

/** etcd's peer TLS settings (PeerTLSInfo and --peer-auto-tls), with the peer-only allowed CNs. */
export interface PeerTlsFlags extends TlsInfoFlags {
  readonly allowedCn: readonly string[]
}

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

export interface Config {
  readonly name: string
  readonly dataDir: string
  readonly memory: boolean
  readonly listenClientUrls: readonly ClientUrl[]
  /** --listen-client-http-urls: listeners for HTTP only (etcd then serves no HTTP on the gRPC ones). */
  readonly listenClientHttpUrls: readonly ClientUrl[]
  /** Client URLs to advertise; undefined (--listen-client-urls given alone) advertises the bound listen URLs. */
  readonly advertiseClientUrls: readonly string[] | undefined
  readonly maxRequestBytes: number
  readonly maxTxnOps: number
  /** uint32; etcd's default 4294967295. */
  readonly maxConcurrentStreams: number
  readonly unsafeNoFsync: boolean
  /** --log-level: zap's levels, debug to fatal. */
  readonly logLevel: LogLevel
  readonly logger: string
  readonly logOutputs: readonly string[]
  readonly enableLogRotation: boolean
  readonly logRotationConfigJson: string
  /** Progress notification interval for progress_notify watchers, in ms (never below 100). */
  readonly watchProgressNotifyIntervalMs: number
  /** --index-checkpoint-entries (0: no background checkpoints). */
  readonly indexCheckpointEntries: number
  /** This member's peer URLs (MemberList), sorted as etcd sorts them; etcdlite serves no peer traffic. */
  readonly initialAdvertisePeerUrls: readonly string[]
  readonly listenPeerUrls: readonly string[]
  readonly initialCluster: string
  readonly initialClusterToken: string
  readonly initialClusterState: 'new' | 'existing'
  readonly discovery: string
  readonly discoverySrv: string
  readonly proxy: 'off' | 'readonly' | 'on'
  readonly forceNewCluster: boolean
  /** The IDs a new data dir takes, computed as etcd computes them for this initial cluster. */
  readonly memberId: bigint
  readonly clusterId: bigint
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
  readonly metrics: 'basic' | 'extensive'
  readonly enablePprof: boolean
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
  /** Client TLS settings; they apply to the https:// client URLs only. */
  readonly clientTls: ClientTlsFlags
  readonly peerTls: PeerTlsFlags
  /** Go cipher suite names as given (validated where TLS is set up). */
  readonly cipherSuites: readonly string[]
  readonly tlsMinVersion: string
  readonly tlsMaxVersion: string
  /** Years the --auto-tls certificates are valid. */
  readonly selfSignedCertValidity: number
  // ---- end TLS ----
  readonly grpcKeepAliveMinTimeMs: number
  readonly grpcKeepAliveIntervalMs: number
  readonly grpcKeepAliveTimeoutMs: number
  readonly enableGrpcGateway: boolean
  /** --cors origins ("*" allows all) and --host-whitelist, sorted. */
  readonly corsOrigins: readonly string[]
  readonly hostWhitelist: readonly string[]
  readonly experimentalInitialCorruptCheck: boolean
  readonly experimentalCorruptCheckTimeMs: number
  readonly experimentalEnableLeaseCheckpoint: boolean
  readonly experimentalEnableLeaseCheckpointPersist: boolean
  /** The v2 API: --enable-v2, --v2-deprecation and --experimental-enable-v2v3. */
  readonly enableV2: boolean
  readonly v2Deprecation: string
  readonly experimentalEnableV2V3: string
}

/**
 * A configuration to run with, and the lines etcd logs about it once it has logged "Running: " (the default
 * host, the default data dir); or --version.
 */
export type ParseResult = { readonly kind: 'run'; readonly config: Config; readonly notes: readonly LogEntry[] } | { readonly kind: 'version' }

/** What parsing reads besides argv. */
export interface ParseIo {
  /** The environment, in its order (process.env's entries). */
  readonly env?: readonly (readonly [string, string])[]
  /** Read a file (--config-file); throws an Error whose message is Go's (`open <path>: <reason>`). */
  readonly readFile?: (path: string) => string
  /** The machine's default host (netutil.GetDefaultHost). */
  readonly defaultHost?: () => DefaultHost
  /** Lines etcd logs while reading its configuration. */
  readonly log?: (e: LogEntry) => void
}

/** etcd's minWatchProgressInterval: shorter intervals are raised to this. */
export const MIN_WATCH_PROGRESS_INTERVAL_MS = 100
const DEFAULT_WATCH_PROGRESS_INTERVAL_MS = 10 * 60 * 1000

/** etcd's old flags, accepted without an argument and ignored (etcdmain's `ignored`). */
export const IGNORED_FLAGS: readonly string[] = [
  'cluster-active-size', 'cluster-remove-delay', 'cluster-sync-interval', 'config', 'force', 'max-result-buffer', 'max-retry-attempts',
  'peer-heartbeat-interval', 'peer-election-timeout', 'retry-interval', 'snapshot', 'v', 'vv', 'test.coverprofile', 'test.outputdir',
]

/** Every flag of etcd 3.5.17's server and etcdlite's own, with its default (newConfig). */
export function newFlags() {
  const d = newEmbedConfig()
  const dur = (ns: number): DurationValue => new DurationValue(ns)
  return {
    'config-file': new StringValue(''),
    'data-dir': new StringValue(''),
    'wal-dir': new StringValue(''),
    'listen-peer-urls': new UniqueUrlsValue(DEFAULT_LISTEN_PEER_URLS, ''),
    'listen-client-urls': new UniqueUrlsValue(DEFAULT_LISTEN_CLIENT_URLS, ''),
    'listen-client-http-urls': new UniqueUrlsValue('', ''),
    'listen-metrics-urls': new UniqueUrlsValue('', ''),
    'max-snapshots': uintValue(5),
    'max-wals': uintValue(5),
    name: new StringValue(d.name),
    'snapshot-count': new IntegerValue(d.snapshotCount, false, 64),
    'heartbeat-interval': uintValue(100),
    'election-timeout': uintValue(1000),
    'initial-election-tick-advance': new BoolValue(true),
    'quota-backend-bytes': new IntegerValue(0n, true, 64),
    'backend-bbolt-freelist-type': new StringValue(''),
    'backend-batch-interval': dur(0),
    'backend-batch-limit': intValue(0),
    'max-txn-ops': uintValue(128),
    'max-request-bytes': uintValue(1_572_864),
    'grpc-keepalive-min-time': dur(d.grpcKeepAliveMinTimeNs),
    'grpc-keepalive-interval': dur(d.grpcKeepAliveIntervalNs),
    'grpc-keepalive-timeout': dur(d.grpcKeepAliveTimeoutNs),
    'socket-reuse-port': new BoolValue(false),
    'socket-reuse-address': new BoolValue(false),
    'max-concurrent-streams': new Uint32Value(d.maxConcurrentStreams),
    'raft-read-timeout': dur(DEFAULT_RAFT_CONN_TIMEOUT_NS),
    'raft-write-timeout': dur(DEFAULT_RAFT_CONN_TIMEOUT_NS),
    'initial-advertise-peer-urls': new UniqueUrlsValue(DEFAULT_INITIAL_ADVERTISE_PEER_URLS, ''),
    'advertise-client-urls': new UniqueUrlsValue(DEFAULT_ADVERTISE_CLIENT_URLS, ''),
    discovery: new StringValue(''),
    'discovery-fallback': new SelectiveStringValue('proxy', 'exit'),
    'discovery-proxy': new StringValue(''),
    'discovery-srv': new StringValue(''),
    'discovery-srv-name': new StringValue(''),
    'initial-cluster': new StringValue(d.initialCluster),
    'initial-cluster-token': new StringValue(d.initialClusterToken),
    'initial-cluster-state': new SelectiveStringValue('new', 'existing'),
    'strict-reconfig-check': new BoolValue(true),
    'pre-vote': new BoolValue(true),
    'enable-v2': new BoolValue(false),
    'experimental-enable-v2v3': new StringValue(''),
    'v2-deprecation': new SelectiveStringsValue(V2_DEPRECATION_VALUES),
    proxy: new SelectiveStringValue('off', 'readonly', 'on'),
    'proxy-failure-wait': uintValue(5000),
    'proxy-refresh-interval': uintValue(30_000),
    'proxy-dial-timeout': uintValue(1000),
    'proxy-write-timeout': uintValue(5000),
    'proxy-read-timeout': uintValue(0),
    'cert-file': new StringValue(''),
    'key-file': new StringValue(''),
    'client-cert-file': new StringValue(''),
    'client-key-file': new StringValue(''),
    'client-cert-auth': new BoolValue(false),
    'client-crl-file': new StringValue(''),
    'client-cert-allowed-hostname': new StringsValue(''),
    'trusted-ca-file': new StringValue(''),
    'auto-tls': new BoolValue(false),
    'peer-cert-file': new StringValue(''),
    'peer-key-file': new StringValue(''),
    'peer-client-cert-file': new StringValue(''),
    'peer-client-key-file': new StringValue(''),
    'peer-client-cert-auth': new BoolValue(false),
    'peer-trusted-ca-file': new StringValue(''),
    'peer-auto-tls': new BoolValue(false),
    'self-signed-cert-validity': uintValue(1),
    'peer-crl-file': new StringValue(''),
    'peer-cert-allowed-cn': new StringsValue(''),
    'peer-cert-allowed-hostname': new StringsValue(''),
    'cipher-suites': new StringsValue(''),
    'experimental-peer-skip-client-san-verification': new BoolValue(false),
    'tls-min-version': new StringValue('TLS1.2'),
    'tls-max-version': new StringValue(''),
    cors: new UniqueUrlsValue('*', '*'),
    'host-whitelist': new UniqueStringsValue('*'),
    logger: new StringValue('zap'),
    'log-outputs': new UniqueStringsValue(DEFAULT_LOG_OUTPUT),
    'log-level': new StringValue('info'),
    'enable-log-rotation': new BoolValue(false),
    'log-rotation-config-json': new StringValue(DEFAULT_LOG_ROTATION_CONFIG),
    version: new BoolValue(false),
    'auto-compaction-retention': new StringValue('0'),
    'auto-compaction-mode': new StringValue('periodic'),
    'enable-pprof': new BoolValue(false),
    metrics: new StringValue('basic'),
    'experimental-enable-distributed-tracing': new BoolValue(false),
    'experimental-distributed-tracing-address': new StringValue(d.experimentalDistributedTracingAddress),
    'experimental-distributed-tracing-service-name': new StringValue(d.experimentalDistributedTracingServiceName),
    'experimental-distributed-tracing-instance-id': new StringValue(''),
    'experimental-distributed-tracing-sampling-rate': intValue(0),
    'auth-token': new StringValue('simple'),
    'bcrypt-cost': uintValue(10),
    'auth-token-ttl': uintValue(300),
    'enable-grpc-gateway': new BoolValue(true),
    'experimental-initial-corrupt-check': new BoolValue(false),
    'experimental-corrupt-check-time': dur(0),
    'experimental-compact-hash-check-enabled': new BoolValue(false),
    'experimental-compact-hash-check-time': dur(d.experimentalCompactHashCheckTimeNs),
    'experimental-enable-lease-checkpoint': new BoolValue(false),
    'experimental-enable-lease-checkpoint-persist': new BoolValue(false),
    'experimental-compaction-batch-limit': intValue(0),
    'experimental-compaction-sleep-interval': dur(0),
    'experimental-watch-progress-notify-interval': dur(0),
    'experimental-downgrade-check-time': dur(d.experimentalDowngradeCheckTimeNs),
    'experimental-warning-apply-duration': dur(d.experimentalWarningApplyDurationNs),
    'experimental-memory-mlock': new BoolValue(false),
    'experimental-txn-mode-write-with-shared-buffer': new BoolValue(true),
    'experimental-stop-grpc-service-on-defrag': new BoolValue(false),
    'experimental-bootstrap-defrag-threshold-megabytes': uintValue(0),
    'experimental-snapshot-catchup-entries': new IntegerValue(d.snapshotCatchUpEntries, false, 64),
    'unsafe-no-fsync': new BoolValue(false),
    'force-new-cluster': new BoolValue(false),
    // etcdlite's own.
    memory: new BoolValue(false),
    'etcd-version': new StringValue(d.etcdVersion),
    'index-checkpoint-entries': uintValue(50_000),
    'restore-snapshot': new StringValue(''),
  }
}

export type Flags = ReturnType<typeof newFlags>

/** The flags etcdlite adds to etcd's. */
export const ETCDLITE_FLAGS: readonly string[] = ['memory', 'etcd-version', 'index-checkpoint-entries', 'restore-snapshot']

/** A FlagSet over `flags`, with etcd's ignored flags. */
export function flagSetOf(flags: Flags): FlagSet {
  const fs = new FlagSet()
  for (const [name, v] of Object.entries(flags) as [string, FlagValue][]) fs.define(name, v)
  for (const name of IGNORED_FLAGS) fs.define(name, new IgnoredFlag())
  return fs
}

const tls = (f: Flags, peer: boolean): EmbedConfig['clientTls'] => {
  return {
    certFile: (peer ? f['peer-cert-file'] : f['cert-file']).value,
    keyFile: (peer ? f['peer-key-file'] : f['key-file']).value,
    clientCertFile: (peer ? f['peer-client-cert-file'] : f['client-cert-file']).value,
    clientKeyFile: (peer ? f['peer-client-key-file'] : f['client-key-file']).value,
    clientCertAuth: (peer ? f['peer-client-cert-auth'] : f['client-cert-auth']).value,
    trustedCaFile: (peer ? f['peer-trusted-ca-file'] : f['trusted-ca-file']).value,
    crlFile: (peer ? f['peer-crl-file'] : f['client-crl-file']).value,
    allowedCns: peer ? f['peer-cert-allowed-cn'].values : [],
    allowedHostnames: (peer ? f['peer-cert-allowed-hostname'] : f['client-cert-allowed-hostname']).values,
    skipClientSanVerify: peer && f['experimental-peer-skip-client-san-verification'].value,
  }
}

/** configFromCmdLine: the flags (already parsed, then the environment) as embed.Config. */
function embedConfigFromFlags(f: Flags, fs: FlagSet, log: (e: LogEntry) => void): EmbedConfig {
  const ec = newEmbedConfig()
  const raise = (ns: number, what: string): number => {
    if (ns >= DEFAULT_RAFT_CONN_TIMEOUT_NS) return ns
    log({ level: 'info', msg: `${what} increased to minimum value: ${formatGoDuration(DEFAULT_RAFT_CONN_TIMEOUT_NS)}`, caller: what === 'raft-read-timeout' ? 'etcdmain/config.go:396' : 'etcdmain/config.go:400' })
    return DEFAULT_RAFT_CONN_TIMEOUT_NS
  }
  Object.assign<EmbedConfig, Partial<EmbedConfig>>(ec, {
    name: f.name.value,
    dir: f['data-dir'].value,
    walDir: f['wal-dir'].value,
    snapshotCount: f['snapshot-count'].value,
    snapshotCatchUpEntries: f['experimental-snapshot-catchup-entries'].value,
    maxSnapFiles: f['max-snapshots'].value,
    maxWalFiles: f['max-wals'].value,
    tickMs: f['heartbeat-interval'].value,
    electionMs: f['election-timeout'].value,
    initialElectionTickAdvance: f['initial-election-tick-advance'].value,
    backendBatchIntervalNs: f['backend-batch-interval'].ns,
    backendBatchLimit: f['backend-batch-limit'].value,
    backendFreelistType: f['backend-bbolt-freelist-type'].value,
    quotaBackendBytes: f['quota-backend-bytes'].value,
    maxTxnOps: f['max-txn-ops'].value,
    maxRequestBytes: f['max-request-bytes'].value,
    maxConcurrentStreams: f['max-concurrent-streams'].value,
    grpcKeepAliveMinTimeNs: f['grpc-keepalive-min-time'].ns,
    grpcKeepAliveIntervalNs: f['grpc-keepalive-interval'].ns,
    grpcKeepAliveTimeoutNs: f['grpc-keepalive-timeout'].ns,
    socketReusePort: f['socket-reuse-port'].value,
    socketReuseAddress: f['socket-reuse-address'].value,
    raftReadTimeoutNs: raise(f['raft-read-timeout'].ns, 'raft-read-timeout'),
    raftWriteTimeoutNs: raise(f['raft-write-timeout'].ns, 'raft-write-timeout'),
    listenPeerUrls: f['listen-peer-urls'].urls,
    advertisePeerUrls: f['initial-advertise-peer-urls'].urls,
    listenClientUrls: f['listen-client-urls'].urls,
    listenClientHttpUrls: f['listen-client-http-urls'].urls,
    advertiseClientUrls: f['advertise-client-urls'].urls,
    listenMetricsUrls: f['listen-metrics-urls'].urls,
    cors: f.cors.values,
    hostWhitelist: f['host-whitelist'].values,
    clientTls: tls(f, false),
    clientAutoTls: f['auto-tls'].value,
    peerTls: tls(f, true),
    peerAutoTls: f['peer-auto-tls'].value,
    selfSignedCertValidity: f['self-signed-cert-validity'].value,
    cipherSuites: f['cipher-suites'].values,
    tlsMinVersion: f['tls-min-version'].value,
    tlsMaxVersion: f['tls-max-version'].value,
    clusterState: f['initial-cluster-state'].value,
    durl: f.discovery.value,
    fallback: f['discovery-fallback'].value,
    dproxy: f['discovery-proxy'].value,
    dnsCluster: f['discovery-srv'].value,
    dnsClusterServiceName: f['discovery-srv-name'].value,
    initialCluster: f['initial-cluster'].value,
    initialClusterToken: f['initial-cluster-token'].value,
    strictReconfigCheck: f['strict-reconfig-check'].value,
    preVote: f['pre-vote'].value,
    enableV2: f['enable-v2'].value,
    experimentalEnableV2V3: f['experimental-enable-v2v3'].value,
    v2Deprecation: f['v2-deprecation'].string(),
    proxy: f.proxy.value,
    proxyFailureWaitMs: f['proxy-failure-wait'].value,
    proxyRefreshIntervalMs: f['proxy-refresh-interval'].value,
    proxyDialTimeoutMs: f['proxy-dial-timeout'].value,
    proxyWriteTimeoutMs: f['proxy-write-timeout'].value,
    proxyReadTimeoutMs: f['proxy-read-timeout'].value,
    logger: f.logger.value,
    logOutputs: f['log-outputs'].sorted(),
    logLevel: f['log-level'].value,
    enableLogRotation: f['enable-log-rotation'].value,
    logRotationConfigJson: f['log-rotation-config-json'].value,
    autoCompactionRetention: f['auto-compaction-retention'].value,
    autoCompactionMode: f['auto-compaction-mode'].value,
    enablePprof: f['enable-pprof'].value,
    metrics: f.metrics.value,
    experimentalEnableDistributedTracing: f['experimental-enable-distributed-tracing'].value,
    experimentalDistributedTracingAddress: f['experimental-distributed-tracing-address'].value,
    experimentalDistributedTracingServiceName: f['experimental-distributed-tracing-service-name'].value,
    experimentalDistributedTracingInstanceId: f['experimental-distributed-tracing-instance-id'].value,
    experimentalDistributedTracingSamplingRate: f['experimental-distributed-tracing-sampling-rate'].value,
    authToken: f['auth-token'].value,
    bcryptCost: f['bcrypt-cost'].value,
    authTokenTtl: f['auth-token-ttl'].value,
    enableGrpcGateway: f['enable-grpc-gateway'].value,
    experimentalInitialCorruptCheck: f['experimental-initial-corrupt-check'].value,
    experimentalCorruptCheckTimeNs: f['experimental-corrupt-check-time'].ns,
    experimentalCompactHashCheckEnabled: f['experimental-compact-hash-check-enabled'].value,
    experimentalCompactHashCheckTimeNs: f['experimental-compact-hash-check-time'].ns,
    experimentalEnableLeaseCheckpoint: f['experimental-enable-lease-checkpoint'].value,
    experimentalEnableLeaseCheckpointPersist: f['experimental-enable-lease-checkpoint-persist'].value,
    experimentalCompactionBatchLimit: f['experimental-compaction-batch-limit'].value,
    experimentalCompactionSleepIntervalNs: f['experimental-compaction-sleep-interval'].ns,
    experimentalWatchProgressNotifyIntervalNs: f['experimental-watch-progress-notify-interval'].ns,
    experimentalDowngradeCheckTimeNs: f['experimental-downgrade-check-time'].ns,
    experimentalWarningApplyDurationNs: f['experimental-warning-apply-duration'].ns,
    experimentalMemoryMlock: f['experimental-memory-mlock'].value,
    experimentalTxnModeWriteWithSharedBuffer: f['experimental-txn-mode-write-with-shared-buffer'].value,
    experimentalStopGrpcServiceOnDefrag: f['experimental-stop-grpc-service-on-defrag'].value,
    experimentalBootstrapDefragThresholdMegabytes: f['experimental-bootstrap-defrag-threshold-megabytes'].value,
    unsafeNoFsync: f['unsafe-no-fsync'].value,
    forceNewCluster: f['force-new-cluster'].value,
    memory: f.memory.value,
    etcdVersion: f['etcd-version'].value,
    indexCheckpointEntries: f['index-checkpoint-entries'].value,
    restoreSnapshot: f['restore-snapshot'].value,
  })
  // etcd drops the default advertised client URLs once --listen-client-urls is given (unless it may run
  // as a proxy); etcdlite then advertises the URLs it binds.
  const mayBeProxy = ec.proxy !== 'off' || (ec.durl !== '' && ec.fallback === 'proxy')
  if (!mayBeProxy && fs.isSet('listen-client-urls') && !fs.isSet('advertise-client-urls')) ec.advertiseClientUrls = undefined
  // A discovery flag without --initial-cluster: no default initial cluster.
  if ((ec.durl !== '' || ec.dnsCluster !== '' || ec.dnsClusterServiceName !== '') && !fs.isSet('initial-cluster')) ec.initialCluster = ''
  return ec
}

/** A listener URL as etcdlite binds it. */
function clientUrlOf(u: EtcdUrl, flag: string, allowHttps: boolean): ClientUrl {
  const scheme = u.url.scheme
  if (scheme !== 'http' && !(allowHttps && scheme === 'https')) {
    throw new StartError(`etcdlite cannot listen on ${u.text} (--${flag}): it serves ${allowHttps ? 'http:// and https://' : 'http://'} URLs only`)
  }
  const host = goUrlHostname(u.url)
  return { url: u.text, host: host === 'localhost' ? '127.0.0.1' : host, port: Number(goUrlPort(u.url)), secure: scheme === 'https' }
}

const nsToMs = (ns: number): number => ns / 1e6
const safeNumber = (v: bigint): number => Number(v)

/** --auth-token's type and options (etcd's decomposeOpts and NewTokenProvider); bad ones fail the start as etcd's do. */
export function parseAuthToken(v: string): AuthTokenFlag {
  const invalid = (): StartError => new StartError('auth: invalid auth options')
  const [type, ...rest] = v.split(',')
  const opts = new Map<string, string>()
  for (const o of rest) {
    const pair = o.split('=')
    if (pair.length !== 2 || opts.has(pair[0] as string)) throw invalid()
    opts.set(pair[0] as string, pair[1] as string)
  }
  if (type === 'simple') return { type: 'simple' }
  if (type !== 'jwt') throw invalid()
  let ttlMs = 0
  const ttl = opts.get('ttl') ?? ''
  if (ttl !== '') {
    try {
      ttlMs = parseGoDuration(ttl) / 1e6
    } catch {
      throw invalid()
    }
  }
  const signMethod = opts.get('sign-method') ?? ''
  if (signMethod === '') throw invalid()
  return { type: 'jwt', signMethod, pubKeyFile: opts.get('pub-key') ?? '', privKeyFile: opts.get('priv-key') ?? '', ttlMs }
}

/** The Config etcdlite runs with, from a validated embed.Config. */
function toConfig(ec: EmbedConfig): Config {
  const mode = ec.autoCompactionMode === 'revision' ? 'revision' : 'periodic'
  const retention = ec.autoCompactionRetention === '' ? '0' : ec.autoCompactionRetention
  try {
    parseRetention(mode, retention)
  } catch (e) {
    if (e instanceof InvalidRetentionError) throw new StartError(e.message)
    throw e
  }
  const progressMs = nsToMs(ec.experimentalWatchProgressNotifyIntervalNs)
  const listenPeerUrls = ec.listenPeerUrls.map((u) => u.text)
  const initialAdvertisePeerUrls = ec.advertisePeerUrls.map((u) => u.text)
  const bootstrap = {
    name: ec.name,
    initialCluster: ec.initialCluster,
    initialClusterToken: ec.initialClusterToken,
    initialClusterState: ec.clusterState === 'existing' ? 'existing' : 'new',
    initialAdvertisePeerUrls,
    discovery: ec.durl,
    discoverySrv: ec.dnsCluster,
    proxy: ec.proxy === 'on' ? 'on' : ec.proxy === 'readonly' ? 'readonly' : 'off',
  } as const
  // The IDs a new cluster of this configuration gets; an initial cluster that fails the bootstrap checks
  // never reaches a new data dir, so the fallback (this member alone) only fills the field.
  let ids: { memberId: bigint; clusterId: bigint }
  try {
    const { urlsmap, token } = peerUrlsMapAndToken(bootstrap)
    ids = bootstrapIds(bootstrap, urlsmap.has(ec.name) ? urlsmap : new Map([[ec.name, ec.advertisePeerUrls]]), token)
  } catch (err) {
    if (!(err instanceof StartError)) throw err
    ids = bootstrapIds(bootstrap, new Map([[ec.name, ec.advertisePeerUrls]]), ec.initialClusterToken)
  }
  const listenClientUrls = ec.listenClientUrls.map((u) => clientUrlOf(u, 'listen-client-urls', true))
  const clientTls: ClientTlsFlags = {
    certFile: ec.clientTls.certFile,
    keyFile: ec.clientTls.keyFile,
    trustedCaFile: ec.clientTls.trustedCaFile,
    clientCertAuth: ec.clientTls.clientCertAuth,
    crlFile: ec.clientTls.crlFile,
    clientCertFile: ec.clientTls.clientCertFile,
    clientKeyFile: ec.clientTls.clientKeyFile,
    autoTls: ec.clientAutoTls,
    allowedHostnames: ec.clientTls.allowedHostnames,
  }
  return {
    name: ec.name,
    dataDir: ec.dir,
    memory: ec.memory,
    listenClientUrls,
    listenClientHttpUrls: ec.listenClientHttpUrls.map((u) => clientUrlOf(u, 'listen-client-http-urls', true)),
    advertiseClientUrls: ec.advertiseClientUrls?.map((u) => u.text),
    maxRequestBytes: safeNumber(ec.maxRequestBytes),
    maxTxnOps: safeNumber(ec.maxTxnOps),
    maxConcurrentStreams: ec.maxConcurrentStreams,
    unsafeNoFsync: ec.unsafeNoFsync,
    // validate() refused any other level (etcd panics).
    logLevel: parseLogLevel(ec.logLevel),
    logger: ec.logger,
    logOutputs: ec.logOutputs,
    enableLogRotation: ec.enableLogRotation,
    logRotationConfigJson: ec.logRotationConfigJson,
    // As etcd: zero or negative keeps the default; positive values below the minimum are raised to it.
    watchProgressNotifyIntervalMs: progressMs <= 0 ? DEFAULT_WATCH_PROGRESS_INTERVAL_MS : Math.max(MIN_WATCH_PROGRESS_INTERVAL_MS, progressMs),
    indexCheckpointEntries: safeNumber(ec.indexCheckpointEntries),
    initialAdvertisePeerUrls,
    listenPeerUrls,
    initialCluster: ec.initialCluster,
    initialClusterToken: ec.initialClusterToken,
    initialClusterState: bootstrap.initialClusterState,
    discovery: ec.durl,
    discoverySrv: ec.dnsCluster,
    proxy: bootstrap.proxy,
    forceNewCluster: ec.forceNewCluster,
    memberId: ids.memberId,
    clusterId: ids.clusterId,
    electionTimeoutMs: safeNumber(ec.electionMs),
    heartbeatIntervalMs: safeNumber(ec.tickMs),
    quotaBackendBytes: safeNumber(ec.quotaBackendBytes),
    autoCompactionMode: mode,
    autoCompactionRetention: retention,
    listenMetricsUrls: ec.listenMetricsUrls.map((u) => clientUrlOf(u, 'listen-metrics-urls', false)),
    metrics: ec.metrics === 'extensive' ? 'extensive' : 'basic',
    enablePprof: ec.enablePprof,
    etcdVersion: ec.etcdVersion,
    restoreSnapshot: ec.restoreSnapshot === '' ? undefined : ec.restoreSnapshot,
    authToken: parseAuthToken(ec.authToken),
    authTokenTtl: safeNumber(ec.authTokenTtl),
    bcryptCost: safeNumber(ec.bcryptCost),
    clientTls,
    peerTls: {
      certFile: ec.peerTls.certFile,
      keyFile: ec.peerTls.keyFile,
      trustedCaFile: ec.peerTls.trustedCaFile,
      clientCertAuth: ec.peerTls.clientCertAuth,
      crlFile: ec.peerTls.crlFile,
      clientCertFile: ec.peerTls.clientCertFile,
      clientKeyFile: ec.peerTls.clientKeyFile,
      autoTls: ec.peerAutoTls,
      allowedCn: ec.peerTls.allowedCns,
      allowedHostnames: ec.peerTls.allowedHostnames,
    },
    cipherSuites: ec.cipherSuites,
    tlsMinVersion: ec.tlsMinVersion,
    tlsMaxVersion: ec.tlsMaxVersion,
    selfSignedCertValidity: safeNumber(ec.selfSignedCertValidity),
    grpcKeepAliveMinTimeMs: nsToMs(ec.grpcKeepAliveMinTimeNs),
    grpcKeepAliveIntervalMs: nsToMs(ec.grpcKeepAliveIntervalNs),
    grpcKeepAliveTimeoutMs: nsToMs(ec.grpcKeepAliveTimeoutNs),
    enableGrpcGateway: ec.enableGrpcGateway,
    corsOrigins: [...ec.cors].sort(),
    hostWhitelist: [...ec.hostWhitelist].sort(),
    experimentalInitialCorruptCheck: ec.experimentalInitialCorruptCheck,
    experimentalCorruptCheckTimeMs: nsToMs(ec.experimentalCorruptCheckTimeNs),
    experimentalEnableLeaseCheckpoint: ec.experimentalEnableLeaseCheckpoint,
    experimentalEnableLeaseCheckpointPersist: ec.experimentalEnableLeaseCheckpointPersist,
    enableV2: ec.enableV2,
    v2Deprecation: ec.v2Deprecation,
    experimentalEnableV2V3: ec.experimentalEnableV2V3,
  }
}

/**
 * etcd's cfg.parse and what startEtcdOrProxyV2 does before it opens the data dir. Throws FlagParseError
 * or HelpRequested (from the flag set), VerifyFlagsError, StartError, FatalError, ExitError or PanicError.
 */
export function parseArgs(argv: readonly string[], io: ParseIo = {}): ParseResult {
  const env = io.env ?? []
  const log = io.log ?? ((): void => undefined)
  const f = newFlags()
  const fs = flagSetOf(f)
  fs.parse(argv)
  const stray = fs.args[0]
  if (stray !== undefined) throw new VerifyFlagsError(`'${stray}' is not a valid flag`)
  if (f.version.value) return { kind: 'version' }
  const defaultInitialCluster = newEmbedConfig().initialCluster
  const configFile = f['config-file'].value !== '' ? f['config-file'].value : (env.find(([k]) => k === flagToEnv('ETCD', 'config-file'))?.[1] ?? '')
  let ec: EmbedConfig
  if (configFile !== '') {
    const read = io.readFile ?? ((p: string): string => { throw new Error(`open ${p}: no file reader`) })
    let text: string
    try {
      text = read(configFile)
    } catch (err) {
      throw new VerifyFlagsError(err instanceof Error ? err.message : String(err))
    }
    ec = newEmbedConfig()
    const doc = applyConfigFile(text, ec)
    validate(ec, log)
    applyProxyConfig(doc, ec)
    log({ level: 'info', msg: 'loaded server configuration, other configuration command line flags and environment variables will be ignored if provided', fields: { path: configFile }, caller: 'etcdmain/config.go:354' })
  } else {
    const version = env.find(([k]) => k === 'ETCD_VERSION')?.[1] ?? ''
    // etcd unsets ETCD_VERSION (it would set --version) and says so.
    const rest = version === '' ? env : env.filter(([k]) => k !== 'ETCD_VERSION')
    if (version !== '') log({ level: 'warn', msg: 'cannot set special environment variable', fields: { key: 'ETCD_VERSION', value: version }, caller: 'etcdmain/config.go:382' })
    setFlagsFromEnv(fs, 'ETCD', rest, log)
    ec = embedConfigFromFlags(f, fs, log)
    validate(ec, log)
  }
  if (ec.v2Deprecation === '') ec.v2Deprecation = V2_DEPRECATION_VALUES[0] ?? 'not-yet'
  // What startEtcdOrProxyV2 does and logs once it has logged "Running: ".
  const notes: LogEntry[] = []
  const dh = (io.defaultHost ?? getDefaultHost)()
  const used = updateDefaultClusterFromName(ec, defaultInitialCluster, dh)
  if (used !== undefined) notes.push({ level: 'info', msg: 'detected default host for advertise', fields: { host: used }, caller: 'etcdmain/etcd.go:94' })
  if ('error' in dh) notes.push({ level: 'info', msg: 'failed to detect default host', fields: { error: dh.error }, caller: 'etcdmain/etcd.go:100' })
  if (ec.dir === '') {
    // etcd's default is "<name>.etcd"; etcdlite's data is not etcd's, so its directory is named apart.
    ec.dir = `${ec.name}.etcdlite`
    if (!ec.memory) notes.push({ level: 'warn', msg: "'data-dir' was empty; using default", fields: { 'data-dir': ec.dir }, caller: 'etcdmain/etcd.go:105' })
  }
  return { kind: 'run', config: toConfig(ec), notes }
}
