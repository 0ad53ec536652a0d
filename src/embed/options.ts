// Every option of an embedded etcdlite, each with its default, in one place.
import type { AbstractLevel } from 'abstract-level'
import type { Clock } from '../pkg/clock.js'
import type { JwtOptions } from '../auth/jwt-token.js'
import type { Logger } from '../pkg/logger.js'
import type { ServerTlsInfo } from '../pkg/transport/tls-info.js'
import type { Traffic } from '../grpc/server.js'

export type LevelDb = AbstractLevel<Uint8Array | string, Uint8Array, Uint8Array>

export interface EtcdOptions {
  /**
   * Where data lives: a directory (classic-level, created if missing), or `':memory:'`-style in-memory
   * storage when `memory` is true. Default: `default.etcdlite` in the working directory.
   */
  readonly dataDir?: string
  /** Keep everything in memory (memory-level); nothing touches the disk. Default false. */
  readonly memory?: boolean
  /** Use this abstract-level database instead (takes precedence over dataDir/memory); etcdlite closes it. */
  readonly db?: LevelDb
  /** Do not fsync commits (etcd's --unsafe-no-fsync). Default false: acknowledged writes are on disk. */
  readonly unsafeNoFsync?: boolean
  /** Largest write request in bytes (etcd's --max-request-bytes). Default 1572864 (1.5 MiB). */
  readonly maxRequestBytes?: number
  /** Most operations per txn level (etcd's --max-txn-ops). Default 128. */
  readonly maxTxnOps?: number
  /**
   * How often watchers created with progress_notify hear the current revision when idle (etcd's
   * --experimental-watch-progress-notify-interval). Default 600000 (10 minutes).
   */
  readonly watchProgressNotifyIntervalMs?: number
  /**
   * On disk: log entries written after the key-index checkpoint before a new one is written in the
   * background (or a quarter of the keys, whichever is more), so that a start after a crash reads it and
   * replays only about that many entries instead of the whole log. 0 turns background checkpoints off (a
   * clean close still writes one). Default 50000.
   */
  readonly indexCheckpointEntries?: number
  /** Where internal errors and lifecycle events go. Default: silent. */
  readonly logger?: Logger
  /**
   * Time for lease expiry, progress notifications and auto-compaction. Pass a `ManualClock` to move time
   * by hand in tests (`await clock.advance(ms)`). Default: the real clock.
   */
  readonly clock?: Clock
  /**
   * Shortest lease TTL in seconds; shorter grants are raised to it (etcd: 1.5 election timeouts, 2 s with
   * default flags). Default 2.
   */
  readonly minLeaseTtl?: number
  /**
   * Added to every lease's TTL when the server starts, so downtime never expires leases (etcd: one
   * election timeout). Default 1000 ms.
   */
  readonly leaseRenewOnStartMs?: number
  /** Backend size in bytes past which writes fail with NOSPACE (etcd's --quota-backend-bytes). Default 0 = 2 GiB. */
  readonly quotaBackendBytes?: number
  /** The etcd version Status reports; clients gate features on it. Default '3.5.17'. */
  readonly etcdVersion?: string
  /**
   * Auto-compaction (etcd's --auto-compaction-mode / --auto-compaction-retention). Retention uses etcd's flag
   * syntax: periodic takes a duration ("1h", "30m"; a bare number means hours), revision a revision count.
   * Default: mode 'periodic', retention '0' (off).
   */
  readonly autoCompactionMode?: 'periodic' | 'revision'
  readonly autoCompactionRetention?: string
  /**
   * etcd's --metrics: 'basic', or 'extensive' to add the per-method gRPC handling-time histogram
   * (grpc_server_handling_seconds) to /metrics. Default 'basic'.
   */
  readonly metrics?: 'basic' | 'extensive'
  /** This member's name (MemberList). Default 'default'. */
  readonly name?: string
  /** Peer URLs MemberList shows (etcdlite serves no peer traffic). Default ['http://localhost:2380']. */
  readonly peerUrls?: readonly string[]
  /** Client URLs MemberList shows. Default: the URLs of the gRPC listeners bound by listen(). */
  readonly advertiseClientUrls?: readonly string[]
  /**
   * The member and cluster IDs a new store takes (the etcdlite command computes etcd's from its cluster
   * flags); a data dir that has IDs keeps them. Both or neither. Default: random IDs.
   */
  readonly memberId?: bigint
  readonly clusterId?: bigint
  /**
   * The token provider (etcd's --auth-token). 'simple': random tokens kept in memory, valid until unused for
   * authTokenTtl. `{ type: 'jwt', signMethod, privateKey, publicKey?, ttlMs? }`: signed JWTs carrying the
   * user and the auth revision (keys as PEM; HS* methods take the secret as privateKey). Default 'simple'.
   */
  readonly authToken?: 'simple' | ({ readonly type: 'jwt' } & JwtOptions)
  /** Seconds a simple token stays valid after its last use (etcd's --auth-token-ttl). Default 300. */
  readonly authTokenTtl?: number
  /** bcrypt cost of stored passwords, 4..31 (etcd's --bcrypt-cost; out of range: 10). Default 10. */
  readonly bcryptCost?: number
  /**
   * Serve etcd's v2 API on the client URLs (etcd's --enable-v2): /v2/keys, /v2/auth, /v2/members,
   * /v2/machines and /v2/stats, with the v2 store kept in the database (in memory with `memory`). Without
   * it those paths answer 404, as etcd 3.5 without --enable-v2. Default false.
   */
  readonly enableV2?: boolean
  /**
   * Origins whose requests on the client URLs get CORS headers naming them (etcd's --cors); "*" allows
   * every origin, and the headers then say "*". Default ["*"].
   */
  readonly cors?: readonly string[]
  /**
   * Host names a plaintext HTTP request on the client URLs may carry in its Host header (etcd's
   * --host-whitelist, against DNS rebinding); others get 421. "*" allows all. TLS requests are not
   * checked. Default ["*"].
   */
  readonly hostWhitelist?: readonly string[]
}

export const ETCD_DEFAULTS = {
  dataDir: 'default.etcdlite',
  memory: false,
  unsafeNoFsync: false,
  maxRequestBytes: 1.5 * 1024 * 1024,
  maxTxnOps: 128,
  watchProgressNotifyIntervalMs: 10 * 60 * 1000,
  indexCheckpointEntries: 50_000,
  minLeaseTtl: 2,
  leaseRenewOnStartMs: 1000,
  quotaBackendBytes: 0,
  etcdVersion: '3.5.17',
  autoCompactionMode: 'periodic',
  autoCompactionRetention: '0',
  metrics: 'basic',
  name: 'default',
  peerUrls: ['http://localhost:2380'],
  authToken: 'simple',
  authTokenTtl: 300,
  bcryptCost: 10,
  enableV2: false,
  cors: ['*'],
  hostWhitelist: ['*'],
} as const

export interface ListenOptions {
  /** Host or IP to bind. Default 127.0.0.1. */
  readonly host?: string
  /** Port; 0 picks a free one. Default 2379. */
  readonly port?: number
  /** Serve TLS (an https:// client URL); see ListenTlsOptions. Default: plaintext. */
  readonly tls?: ListenTlsOptions
  /**
   * With `tls`, serve plaintext connections on the same port too, told apart by their first byte, as etcd
   * does when an http:// and an https:// client URL name the same host and port. Default false.
   */
  readonly alsoInsecure?: boolean
  /**
   * Server keep-alive pings (etcd's --grpc-keepalive-interval and --grpc-keepalive-timeout): each
   * connection is pinged after `intervalMs` without a ping, and closed when no answer comes within
   * `timeoutMs`. Default: none (etcd pings every 2 h; either value 0 turns it off, as in etcd).
   */
  readonly keepAlive?: { readonly intervalMs: number; readonly timeoutMs: number }
  /**
   * The shortest interval at which a client may ping (etcd's --grpc-keepalive-min-time, grpc-go's
   * enforcement policy, pings without open streams not permitted): a client that pings sooner three times
   * is sent GOAWAY(ENHANCE_YOUR_CALM, "too_many_pings") and disconnected. Not enforced on a TLS listener
   * with `clientCertAuth`. Default 5000, etcd's.
   */
  readonly keepAliveMinTimeMs?: number
  /**
   * What the listener serves: gRPC and HTTP (etcd's client URLs), gRPC only (etcd's client URLs when
   * --listen-client-http-urls is given), or HTTP only (those URLs). A connection of the other kind is
   * closed. Default 'grpc+http'.
   */
  readonly traffic?: Traffic
  /**
   * Serve profiles of this process under /debug/pprof/ in pprof's format, for `go tool pprof` (etcd's
   * --enable-pprof): CPU (`profile?seconds=N`), `heap`, `allocs` and `cmdline`. Default false.
   */
  readonly pprof?: boolean
  /**
   * The HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS each client connection is told (etcd's
   * --max-concurrent-streams). A client that opens more gets RST_STREAM for each stream beyond it, as from
   * etcd: REFUSED_STREAM, or on TLS, once it has acknowledged the setting, PROTOCOL_ERROR. 0 is etcd's
   * reading of 0: no limit on a plaintext port, 250 on a TLS port. Default 4294967295 (2^32-1).
   */
  readonly maxConcurrentStreams?: number
  /**
   * Serve etcd's JSON gateway on the port (etcd's --enable-grpc-gateway): POST /v3/kv/range and every
   * other route of the v3 API as JSON over HTTP/1.1, /v3beta/ as an alias of /v3/. Default true, as etcd.
   */
  readonly grpcGateway?: boolean
}

/**
 * TLS for one listener, as etcd's client TLS flags (the certificate, key and CAs as PEM text or Buffers;
 * see ServerTlsInfo for each option). gRPC and HTTPS (/health, /metrics, /version) share the port, and
 * MemberList advertises the listener as https://. listen() rejects with TlsConfigError (etcd's message) for
 * an unknown cipher suite or TLS version, or versions that contradict each other. `selfCert()` makes the
 * certificate etcd's --auto-tls makes; `serverTls()` does everything etcd's flags do, from file names.
 */
export interface ListenTlsOptions extends ServerTlsInfo {
  /**
   * Log each refused connection as etcd does ("rejected connection on client endpoint", at warn, with the
   * client's address and Go's reason). Default true. etcd does not log them with --auto-tls.
   */
  readonly logRejectedConnections?: boolean
}
