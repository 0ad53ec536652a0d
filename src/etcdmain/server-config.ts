// The configuration etcdlite runs with, as etcd's embed.StartEtcd hands its etcdserver a ServerConfig: the
// settings of a validated embed.Config that etcdlite acts on, in the units and types its server takes
// (milliseconds, numbers, listener URLs split into host and port). Types only, so that what reads them costs
// no module at start: config.ts builds a Config and start-etcd.ts starts the server from it.
import type { TlsInfoFlags } from '../pkg/transport/server-tls.js'
import type { LogLevel } from '../pkg/logger.js'

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
  /** --auth-token: simple tokens, or JWTs with their options (key files still to be read). */
  readonly authToken: AuthTokenFlag
  /** Seconds a simple token lives after its last use. */
  readonly authTokenTtl: number
  /** bcrypt cost of stored passwords. */
  readonly bcryptCost: number
  /** Client TLS settings; they apply to the https:// client URLs only. */
  readonly clientTls: ClientTlsFlags
  readonly peerTls: PeerTlsFlags
  /** Go cipher suite names as given (validated where TLS is set up). */
  readonly cipherSuites: readonly string[]
  readonly tlsMinVersion: string
  readonly tlsMaxVersion: string
  /** Years the --auto-tls certificates are valid. */
  readonly selfSignedCertValidity: number
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
