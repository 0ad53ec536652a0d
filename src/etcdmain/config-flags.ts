// etcdmain's command line (etcdmain/config.go's newConfig and configFromCmdLine): every flag of etcd 3.5's
// server and etcdlite's own, with etcd's types and defaults, and the parsed flags (then the ETCD_* environment)
// read into an embed.Config as configFromCmdLine reads them.
import {
  DEFAULT_ADVERTISE_CLIENT_URLS, DEFAULT_INITIAL_ADVERTISE_PEER_URLS, DEFAULT_LISTEN_CLIENT_URLS, DEFAULT_LISTEN_PEER_URLS,
  DEFAULT_LOG_OUTPUT, DEFAULT_LOG_ROTATION_CONFIG, DEFAULT_RAFT_CONN_TIMEOUT_NS, newEmbedConfig,
  V2_DEPRECATION_VALUES, type EmbedConfig,
} from './embed-config.js'
import { FlagSet } from './flag-set.js'
import {
  BoolValue, DurationValue, formatGoDuration, IgnoredFlag, IntegerValue, intValue, SelectiveStringsValue, SelectiveStringValue, StringsValue,
  StringValue, uintValue, Uint32Value, UniqueStringsValue, UniqueUrlsValue, type FlagValue,
} from './flag-values.js'
import type { LogEntry } from './log-entry.js'

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
export function embedConfigFromFlags(f: Flags, fs: FlagSet, log: (e: LogEntry) => void): EmbedConfig {
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
