// The lease benchmark's workloads, and the protocol between bench/run.ts (the runner, through
// bench/lib/lease-run.ts) and bench/lease-client.ts (the load process): a JSON config on argv, markers on
// stderr, one JSON result on stdout.

/**
 * Lease churn: `clients` closed loops, spread over `channels` gRPC connections, each repeating one cycle:
 * LeaseGrant (server-chosen ID, TTL `CHURN_TTL_SECONDS`), one LeaseKeepAlive message on the loop's own
 * bidirectional keep-alive stream (opened once, as clients keep one per connection) and its response,
 * then LeaseRevoke. No keys are attached. Throughput is counted in cycles (3 RPCs each).
 */
export interface ChurnWorkload {
  readonly kind: 'churn'
  readonly name: string
  readonly clients: number
  readonly channels: number
}

/**
 * Lease expiry: a prefix watch (DELETE events only) is created first; then `leases` leases of TTL
 * `ttlSeconds` are granted, each followed by one Put of its own key under the lease, with
 * `EXPIRY_SETUP_IN_FLIGHT` grant+put pairs in flight; then nothing is sent and the client times how long
 * after the last grant's response the watch has seen every key deleted. `leases` and `ttlSeconds` are
 * the defaults; --expiry-leases / --expiry-ttl override them.
 */
export interface ExpiryWorkload {
  readonly kind: 'expiry'
  readonly name: string
  readonly leases: number
  readonly ttlSeconds: number
}

export type LeaseWorkload = ChurnWorkload | ExpiryWorkload

/** The default lease workload set, in run order. */
export const LEASE_WORKLOADS: readonly LeaseWorkload[] = [
  { kind: 'churn', name: 'lease-churn-1', clients: 1, channels: 1 },
  { kind: 'churn', name: 'lease-churn-16', clients: 16, channels: 16 },
  { kind: 'expiry', name: 'lease-expiry', leases: 10_000, ttlSeconds: 5 },
]

/** Churn leases live 60 s: long enough that none expires during a run, so every one is revoked by the client. */
export const CHURN_TTL_SECONDS = 60

/** Expiry setup: grant+put pairs in flight, and the connections they are spread over (setup is not the measurement). */
export const EXPIRY_SETUP_IN_FLIGHT = 64
export const EXPIRY_SETUP_CONNECTIONS = 16

/** Expiry: give up this long after the last grant plus the TTL (etcd 3.4 needs leases / 1000 s beyond the TTL). */
export const EXPIRY_GRACE_SECONDS = 60

/** The config the lease load process gets as one JSON argument (`--config`). */
export type LeaseClientConfig =
  | {
    readonly role: 'churn'
    readonly endpoint: string
    readonly clients: number
    readonly channels: number
    readonly seconds: number
    readonly warmupSeconds: number
  }
  | {
    readonly role: 'expiry'
    readonly endpoint: string
    readonly leases: number
    readonly ttlSeconds: number
    readonly keySize: number
    readonly valueSize: number
  }

/**
 * Markers on stderr (a line starting with the marker). Churn uses MEASURE_START/MEASURE_END from
 * workloads.ts around its window. Expiry: MARK_SETUP_START when the watch is created and the first grant
 * goes out; MARK_GRANTS_DONE when the last grant+put pair has completed (the runner takes the server's
 * CPU reading between the setup and expiry phases here); MARK_EXPIRED when the last DELETE arrived or the
 * client gave up.
 */
export const MARK_SETUP_START = '@setup-start'
export const MARK_GRANTS_DONE = '@grants-done'
export const MARK_EXPIRED = '@expired'

/** Latency quantiles of one RPC kind, in ms. */
export interface PhaseLatency {
  readonly p50Ms: number
  readonly p99Ms: number
}

/** What the churn role prints. */
export interface ChurnResult {
  readonly role: 'churn'
  readonly clients: number
  readonly channels: number
  /** Cycles that started inside the window and completed without error. */
  readonly cycles: number
  readonly errors: number
  readonly firstError: string | null
  readonly elapsedSeconds: number
  readonly cyclesPerSec: number
  /** Latency of one whole cycle (grant + keep-alive + revoke), in ms. */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly grant: PhaseLatency
  readonly keepAlive: PhaseLatency
  readonly revoke: PhaseLatency
  /** CPU used by the client process during the window, in % of one core. */
  readonly clientCpuPct: number
  /** Its main thread's, in % of one core; null where not measurable. */
  readonly clientMainCpuPct: number | null
  /** The machine's CPU steal during the window, in %; null where not measurable. */
  readonly stealPct: number | null
}

/** What the expiry role prints. */
export interface ExpiryResult {
  readonly role: 'expiry'
  readonly leases: number
  readonly ttlSeconds: number
  /** The TTL the server granted (etcd raises a TTL below its minimum, 2 s by default). */
  readonly grantedTtlSeconds: number
  /** From the first grant to the last grant+put pair's completion. */
  readonly setupSeconds: number
  /** From the last grant's response until the watch had seen every key deleted; null when it did not. */
  readonly expirySeconds: number | null
  /** expirySeconds − TTL: how late the last key went, relative to its lease's deadline as the client saw it. */
  readonly overdueSeconds: number | null
  /** From the last grant's response to the first DELETE (negative: the first leases expired during setup). */
  readonly firstDeleteSeconds: number | null
  /** DELETE events (distinct keys) seen, in total and before the last grant's response. */
  readonly deletes: number
  readonly deletesDuringSetup: number
  /** Distinct revisions the DELETE events carried (etcd revokes each lease in its own txn). */
  readonly deleteRevisions: number
  /** Keys under the prefix still present at the end (count-only range): 0 when all expired. */
  readonly remainingKeys: number
  readonly errors: number
  readonly firstError: string | null
  readonly clientCpuSeconds: number
}

export type LeaseClientResult = ChurnResult | ExpiryResult
