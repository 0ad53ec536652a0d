// etcd's embed.Config (and etcdmain's configProxy) as the command line or a config file fills it: every
// setting of etcd 3.5 with etcd's defaults (embed.NewConfig), plus etcdlite's own. Both sources fill this
// record; one validation then checks it, and config.ts turns it into the Config etcdlite runs with.
import { newUrls, type EtcdUrl } from './urls.js'

/** transport.TLSInfo as the flags and the config file's *-transport-security blocks set it. */
export interface TlsInfo {
  certFile: string
  keyFile: string
  clientCertFile: string
  clientKeyFile: string
  clientCertAuth: boolean
  trustedCaFile: string
  crlFile: string
  allowedCns: string[]
  allowedHostnames: string[]
  skipClientSanVerify: boolean
}

export interface EmbedConfig {
  name: string
  /** --data-dir; '' until etcd's default (`<name>.etcd`, etcdlite's `<name>.etcdlite`) is applied. */
  dir: string
  walDir: string
  snapshotCount: bigint
  snapshotCatchUpEntries: bigint
  maxSnapFiles: bigint
  maxWalFiles: bigint
  tickMs: bigint
  electionMs: bigint
  initialElectionTickAdvance: boolean
  backendBatchIntervalNs: number
  backendBatchLimit: bigint
  backendFreelistType: string
  quotaBackendBytes: bigint
  maxTxnOps: bigint
  maxRequestBytes: bigint
  maxConcurrentStreams: number
  listenPeerUrls: EtcdUrl[]
  listenClientUrls: EtcdUrl[]
  listenClientHttpUrls: EtcdUrl[]
  advertisePeerUrls: EtcdUrl[]
  /** undefined: etcd's nil, --listen-client-urls given without --advertise-client-urls. */
  advertiseClientUrls: EtcdUrl[] | undefined
  listenMetricsUrls: EtcdUrl[]
  clientTls: TlsInfo
  clientAutoTls: boolean
  peerTls: TlsInfo
  peerAutoTls: boolean
  selfSignedCertValidity: bigint
  cipherSuites: string[]
  tlsMinVersion: string
  tlsMaxVersion: string
  clusterState: string
  dnsCluster: string
  dnsClusterServiceName: string
  dproxy: string
  durl: string
  initialCluster: string
  initialClusterToken: string
  strictReconfigCheck: boolean
  enableV2: boolean
  experimentalEnableV2V3: string
  v2Deprecation: string
  autoCompactionMode: string
  autoCompactionRetention: string
  grpcKeepAliveMinTimeNs: number
  grpcKeepAliveIntervalNs: number
  grpcKeepAliveTimeoutNs: number
  socketReusePort: boolean
  socketReuseAddress: boolean
  preVote: boolean
  cors: Set<string>
  hostWhitelist: Set<string>
  authToken: string
  bcryptCost: bigint
  authTokenTtl: bigint
  experimentalInitialCorruptCheck: boolean
  experimentalCorruptCheckTimeNs: number
  experimentalCompactHashCheckEnabled: boolean
  experimentalCompactHashCheckTimeNs: number
  experimentalEnableLeaseCheckpoint: boolean
  experimentalEnableLeaseCheckpointPersist: boolean
  experimentalCompactionBatchLimit: bigint
  experimentalCompactionSleepIntervalNs: number
  experimentalWatchProgressNotifyIntervalNs: number
  experimentalWarningApplyDurationNs: number
  experimentalBootstrapDefragThresholdMegabytes: bigint
  experimentalDowngradeCheckTimeNs: number
  experimentalMemoryMlock: boolean
  experimentalTxnModeWriteWithSharedBuffer: boolean
  experimentalStopGrpcServiceOnDefrag: boolean
  forceNewCluster: boolean
  enablePprof: boolean
  metrics: string
  experimentalEnableDistributedTracing: boolean
  experimentalDistributedTracingAddress: string
  experimentalDistributedTracingServiceName: string
  experimentalDistributedTracingInstanceId: string
  experimentalDistributedTracingSamplingRate: bigint
  logger: string
  logLevel: string
  logOutputs: string[]
  enableLogRotation: boolean
  logRotationConfigJson: string
  enableGrpcGateway: boolean
  unsafeNoFsync: boolean
  /** rafthttp's connection timeouts (--raft-read-timeout, --raft-write-timeout), ns. */
  raftReadTimeoutNs: number
  raftWriteTimeoutNs: number
  // etcdmain's configProxy.
  proxy: string
  fallback: string
  proxyFailureWaitMs: bigint
  proxyRefreshIntervalMs: bigint
  proxyDialTimeoutMs: bigint
  proxyWriteTimeoutMs: bigint
  proxyReadTimeoutMs: bigint
  // etcdlite's own.
  memory: boolean
  etcdVersion: string
  indexCheckpointEntries: bigint
  restoreSnapshot: string
}

export const DEFAULT_NAME = 'default'
export const DEFAULT_LISTEN_PEER_URLS = 'http://localhost:2380'
export const DEFAULT_LISTEN_CLIENT_URLS = 'http://localhost:2379'
export const DEFAULT_INITIAL_ADVERTISE_PEER_URLS = 'http://localhost:2380'
export const DEFAULT_ADVERTISE_CLIENT_URLS = 'http://localhost:2379'
export const DEFAULT_LOG_OUTPUT = 'default'
export const DEFAULT_LOG_ROTATION_CONFIG = '{"maxsize": 100, "maxage": 0, "maxbackups": 0, "localtime": false, "compress": false}'
/** --proxy's and --discovery-fallback's values, the default first. */
export const PROXY_VALUES: readonly string[] = ['off', 'readonly', 'on']
export const FALLBACK_VALUES: readonly string[] = ['proxy', 'exit']
/** --v2-deprecation's values (config.V2DeprecationEnum); etcd's default is the first. */
export const V2_DEPRECATION_VALUES: readonly string[] = ['not-yet', 'write-only', 'write-only-drop-data', 'gone']
export const CLUSTER_STATE_NEW = 'new'
export const CLUSTER_STATE_EXISTING = 'existing'
/** The etcd version etcdlite reports unless --etcd-version says otherwise. */
export const DEFAULT_ETCD_VERSION = '3.5.17'
/** rafthttp.DefaultConnReadTimeout and DefaultConnWriteTimeout: the flags are raised to these. */
export const DEFAULT_RAFT_CONN_TIMEOUT_NS = 5e9

export const emptyTlsInfo = (): TlsInfo => ({
  certFile: '', keyFile: '', clientCertFile: '', clientKeyFile: '', clientCertAuth: false, trustedCaFile: '', crlFile: '',
  allowedCns: [], allowedHostnames: [], skipClientSanVerify: false,
})

/** embed.NewConfig, newConfig's configProxy defaults, and etcdlite's own defaults. */
export function newEmbedConfig(): EmbedConfig {
  const cfg: EmbedConfig = {
    name: DEFAULT_NAME,
    dir: '',
    walDir: '',
    snapshotCount: 100_000n,
    snapshotCatchUpEntries: 5000n,
    maxSnapFiles: 5n,
    maxWalFiles: 5n,
    tickMs: 100n,
    electionMs: 1000n,
    initialElectionTickAdvance: true,
    backendBatchIntervalNs: 0,
    backendBatchLimit: 0n,
    backendFreelistType: '',
    quotaBackendBytes: 0n,
    maxTxnOps: 128n,
    maxRequestBytes: 1_572_864n,
    maxConcurrentStreams: 4_294_967_295,
    listenPeerUrls: newUrls([DEFAULT_LISTEN_PEER_URLS]),
    listenClientUrls: newUrls([DEFAULT_LISTEN_CLIENT_URLS]),
    listenClientHttpUrls: [],
    advertisePeerUrls: newUrls([DEFAULT_INITIAL_ADVERTISE_PEER_URLS]),
    advertiseClientUrls: newUrls([DEFAULT_ADVERTISE_CLIENT_URLS]),
    listenMetricsUrls: [],
    clientTls: emptyTlsInfo(),
    clientAutoTls: false,
    peerTls: emptyTlsInfo(),
    peerAutoTls: false,
    selfSignedCertValidity: 1n,
    cipherSuites: [],
    tlsMinVersion: 'TLS1.2',
    tlsMaxVersion: '',
    clusterState: CLUSTER_STATE_NEW,
    dnsCluster: '',
    dnsClusterServiceName: '',
    dproxy: '',
    durl: '',
    initialCluster: '',
    initialClusterToken: 'etcd-cluster',
    strictReconfigCheck: true,
    enableV2: false,
    experimentalEnableV2V3: '',
    v2Deprecation: 'not-yet',
    autoCompactionMode: 'periodic',
    autoCompactionRetention: '0',
    grpcKeepAliveMinTimeNs: 5e9,
    grpcKeepAliveIntervalNs: 2 * 3600e9,
    grpcKeepAliveTimeoutNs: 20e9,
    socketReusePort: false,
    socketReuseAddress: false,
    preVote: true,
    cors: new Set(['*']),
    hostWhitelist: new Set(['*']),
    authToken: 'simple',
    bcryptCost: 10n,
    authTokenTtl: 300n,
    experimentalInitialCorruptCheck: false,
    experimentalCorruptCheckTimeNs: 0,
    experimentalCompactHashCheckEnabled: false,
    experimentalCompactHashCheckTimeNs: 60e9,
    experimentalEnableLeaseCheckpoint: false,
    experimentalEnableLeaseCheckpointPersist: false,
    experimentalCompactionBatchLimit: 0n,
    experimentalCompactionSleepIntervalNs: 0,
    experimentalWatchProgressNotifyIntervalNs: 0,
    experimentalWarningApplyDurationNs: 100e6,
    experimentalBootstrapDefragThresholdMegabytes: 0n,
    experimentalDowngradeCheckTimeNs: 5e9,
    experimentalMemoryMlock: false,
    experimentalTxnModeWriteWithSharedBuffer: true,
    experimentalStopGrpcServiceOnDefrag: false,
    forceNewCluster: false,
    enablePprof: false,
    metrics: 'basic',
    experimentalEnableDistributedTracing: false,
    experimentalDistributedTracingAddress: 'localhost:4317',
    experimentalDistributedTracingServiceName: 'etcd',
    experimentalDistributedTracingInstanceId: '',
    experimentalDistributedTracingSamplingRate: 0n,
    logger: 'zap',
    logLevel: 'info',
    logOutputs: [DEFAULT_LOG_OUTPUT],
    enableLogRotation: false,
    logRotationConfigJson: DEFAULT_LOG_ROTATION_CONFIG,
    enableGrpcGateway: true,
    unsafeNoFsync: false,
    raftReadTimeoutNs: DEFAULT_RAFT_CONN_TIMEOUT_NS,
    raftWriteTimeoutNs: DEFAULT_RAFT_CONN_TIMEOUT_NS,
    proxy: 'off',
    fallback: 'proxy',
    proxyFailureWaitMs: 5000n,
    proxyRefreshIntervalMs: 30_000n,
    proxyDialTimeoutMs: 1000n,
    proxyWriteTimeoutMs: 5000n,
    proxyReadTimeoutMs: 0n,
    memory: false,
    etcdVersion: DEFAULT_ETCD_VERSION,
    indexCheckpointEntries: 50_000n,
    restoreSnapshot: '',
  }
  cfg.initialCluster = initialClusterFromName(cfg, cfg.name)
  return cfg
}

/** Config.InitialClusterFromName: "<name>=<url>" for each advertised peer URL ('' names "default"). */
export function initialClusterFromName(cfg: Pick<EmbedConfig, 'advertisePeerUrls'>, name: string): string {
  const n = name === '' ? DEFAULT_NAME : name
  return cfg.advertisePeerUrls.map((u) => `${n}=${u.text}`).join(',')
}

/** The default initial cluster, "default=http://localhost:2380", as newConfig computes it. */
export const DEFAULT_INITIAL_CLUSTER = `${DEFAULT_NAME}=${DEFAULT_INITIAL_ADVERTISE_PEER_URLS}`
