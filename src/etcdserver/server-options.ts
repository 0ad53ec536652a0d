// Everything EtcdServer.open() takes, each with its default in SERVER_DEFAULTS: the server's flags, in one
// place, so the command line and the embedded API fill the same record.
import { realClock, type Clock } from '../pkg/clock.js'
import type { JwtOptions } from '../auth/jwt-token.js'
import { CHECKPOINT_MIN_ENTRIES } from '../mvcc/index-checkpointer.js'
import { AccessController } from './access-controller.js'
import type { CompactionRetention } from './auto-compactor.js'
import type { NewIdentity } from './identity.js'
import { MAINTENANCE_DEFAULTS, type MaintenanceOptions } from './maintenance.js'

export interface EtcdServerOptions {
  /** Largest write request accepted, in bytes (etcd's --max-request-bytes, default 1.5 MiB). */
  readonly maxRequestBytes: number
  /** Most operations per txn level (etcd's --max-txn-ops, default 128). */
  readonly maxTxnOps: number
  /** Shortest lease TTL in seconds (etcd: 1.5 election timeouts, rounded up: 2). */
  readonly minLeaseTtl: number
  /** Added to every lease's TTL when the server starts (etcd: one election timeout). */
  readonly leaseRenewOnStartMs: number
  /** Leases revoked per second at most when they expire (etcd's leaseRevokeRate). */
  readonly leaseRevokeRate: number
  /** How often progress_notify watchers hear the current revision (etcd's --experimental-watch-progress-notify-interval). */
  readonly watchProgressNotifyIntervalMs: number
  /** Log entries past the index checkpoint before the store writes a new one in the background; 0: never. */
  readonly indexCheckpointEntries: number
  /** Time for every background loop. */
  readonly clock: Clock
  /** Errors no request is waiting for (background loops); the loops keep going. */
  readonly onBackgroundError: (err: unknown) => void
  /** etcd's --quota-backend-bytes (0: the 2 GiB default) and the version Status reports. */
  readonly maintenance: MaintenanceOptions
  /** This member as MemberList shows it: its name and advertised peer and client URLs. */
  readonly member: MemberInfo
  /** The IDs a store without IDs takes (etcd's, computed from the cluster flags); default: random. */
  readonly newIdentity?: NewIdentity | undefined
  /** Auto-compaction (parsed --auto-compaction-mode/-retention); undefined: off. */
  readonly autoCompaction?: CompactionRetention | undefined
  /** Simple tokens' TTL (etcd's --auth-token-ttl) and the bcrypt cost of stored passwords (--bcrypt-cost). */
  readonly auth: AuthOptions
  /** etcd's --metrics: 'extensive' adds the per-method gRPC handling-time histogram to /metrics. */
  readonly metrics: 'basic' | 'extensive'
  /** Serve etcd's v2 API (etcd's --enable-v2): open the v2 store with the server. */
  readonly enableV2: boolean
  /** CORS origins and the Host whitelist of the client URLs' HTTP (etcd's --cors, --host-whitelist). */
  readonly accessController: AccessController
}

export interface AuthOptions {
  /** How long a simple token lives after its last use, in ms (etcd: 300 s). */
  readonly tokenTtlMs: number
  /** bcrypt cost of stored passwords, 4..31 (etcd: 10; out of range: 10). */
  readonly bcryptCost: number
  /** Signed JWTs instead of simple tokens (etcd's --auth-token jwt,...). */
  readonly jwt?: JwtOptions | undefined
}

/** This member as MemberList shows it. Client URLs may be filled in once listeners are bound. */
export interface MemberInfo {
  readonly name: string
  readonly peerUrls: readonly string[]
  readonly clientUrls: readonly string[]
}

/**
 * etcd's grpcOverheadBytes: gRPC takes messages this much larger than --max-request-bytes, and watch
 * responses of `fragment` watchers are split at max-request-bytes plus this.
 */
export const GRPC_OVERHEAD_BYTES = 512 * 1024

/** What each option is when open() is not given it: etcd's flag defaults. */
export const SERVER_DEFAULTS = {
  maxRequestBytes: 1.5 * 1024 * 1024,
  maxTxnOps: 128,
  minLeaseTtl: 2,
  leaseRenewOnStartMs: 1000,
  leaseRevokeRate: 1000,
  watchProgressNotifyIntervalMs: 10 * 60 * 1000,
  indexCheckpointEntries: CHECKPOINT_MIN_ENTRIES,
  clock: realClock,
  onBackgroundError: () => undefined,
  maintenance: MAINTENANCE_DEFAULTS,
  member: { name: 'default', peerUrls: ['http://localhost:2380'], clientUrls: [] },
  auth: { tokenTtlMs: 300_000, bcryptCost: 10 } as AuthOptions,
  metrics: 'basic',
  enableV2: false,
  accessController: new AccessController(),
} as const
