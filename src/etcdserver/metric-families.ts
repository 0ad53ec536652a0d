// The metric families of one server, one function per etcd file that registers them (etcdserver/metrics.go,
// mvcc/metrics.go, …), each built from the plain numbers the store, the lessor, the backend and the server
// keep. Names, types, HELP texts, labels and buckets are etcd's, in etcd's order; where a value is constant on
// one member the function says why.
import type { HistogramMetric, MetricFamily } from '../pkg/expfmt.js'
import { exponentialBuckets, type HistogramCounts } from '../pkg/histogram.js'
import { COMMIT_SECONDS_BUCKETS } from '../backend/commit-times.js'
import type { EtcdServer } from './etcd-server.js'
import { fileDescriptors } from './process-metrics.js'

/** The Go runtime.Version() counterpart: the runtime and its version ("node20.19.4", as etcd shows "go1.22.9"). */
const RUNTIME_VERSION = `node${process.versions.node}`

/** prometheus.ExponentialBuckets(0.1, 2, 10): etcd_snap_db_save_total_duration_seconds. */
const SNAP_DB_SAVE_BUCKETS: readonly number[] = exponentialBuckets(0.1, 2, 10)

const dbHelp = 'Total size of the underlying database physically allocated in bytes.'

const histogramOf = (h: HistogramCounts, labels: Readonly<Record<string, string>> = {}): HistogramMetric => ({
  labels, bounds: h.bounds, cumulative: h.cumulative(), sum: h.sum, count: h.count,
})

/** A histogram of `n` observations of 0 s in the commit buckets (bbolt's rebalance and spill phases: see diskFamilies). */
const zeroes = (n: number): HistogramMetric => ({
  labels: {}, bounds: COMMIT_SECONDS_BUCKETS, cumulative: COMMIT_SECONDS_BUCKETS.map(() => n), sum: 0, count: n,
})

const scalar = (name: string, help: string, type: 'counter' | 'gauge', value: number): MetricFamily => ({
  name, help, type, metrics: [{ labels: {}, value }],
})
const counter = (name: string, help: string, value: number): MetricFamily => scalar(name, help, 'counter', value)
const gauge = (name: string, help: string, value: number): MetricFamily => scalar(name, help, 'gauge', value)
const info = (name: string, help: string, label: string, value: string): MetricFamily => ({
  name, help, type: 'gauge', metrics: [{ labels: { [label]: value }, value: 1 }],
})
const histogram = (name: string, help: string, h: HistogramCounts): MetricFamily => ({ name, help, type: 'histogram', metrics: [histogramOf(h)] })
/** A histogram etcd keeps for something a one-member etcdlite never does (raft snapshots): no observations. */
const never = (name: string, help: string, bounds: readonly number[]): MetricFamily => ({
  name, help, type: 'histogram', metrics: [{ labels: {}, bounds, cumulative: bounds.map(() => 0), sum: 0, count: 0 }],
})

/** What /health, /livez and /readyz counted (etcd_server_health_*, etcd_server_healthcheck*). */
export interface HealthCounts {
  readonly success: number
  readonly failures: number
  /** Last result (1 or 0) of each named check, keyed `type|name`. */
  readonly checks: ReadonlyMap<string, number>
  /** Runs of each named check by outcome, keyed `type|name|status`. */
  readonly checksTotal: ReadonlyMap<string, number>
}

/**
 * etcdserver/metrics.go: a single member that leads since it started (has_leader 1, is_leader 1, is_learner 0,
 * leader_changes_seen_total 1).
 */
export function serverFamilies(s: EtcdServer, version: string, quotaBackendBytes: number): MetricFamily[] {
  const stats = s.stats
  const fds = fileDescriptors()
  const raftIndex = s.appliedIndex.raftIndex()
  return [
    gauge('etcd_server_has_leader', 'Whether or not a leader exists. 1 is existence, 0 is not.', 1),
    gauge('etcd_server_is_leader', 'Whether or not this member is a leader. 1 if is, 0 otherwise.', 1),
    gauge('etcd_server_is_learner', 'Whether or not this member is a learner. 1 if is, 0 otherwise.', 0),
    counter('etcd_server_leader_changes_seen_total', 'The number of leader changes seen.', 1),
    counter('etcd_server_learner_promote_successes', 'The total number of successful learner promotions while this member is leader.', 0),
    counter('etcd_server_heartbeat_send_failures_total', 'The total number of leader heartbeat send failures (likely overloaded from slow disk).', 0),
    counter('etcd_server_slow_apply_total', 'The total number of slow apply requests (likely overloaded from slow disk).', stats.slowApplies),
    gauge('etcd_server_snapshot_apply_in_progress_total', '1 if the server is applying the incoming snapshot. 0 if none.', 0),
    // On one member every write request is a proposal, committed and applied as it is accepted (Status's
    // raftIndex); none waits and none fails in consensus.
    gauge('etcd_server_proposals_committed_total', 'The total number of consensus proposals committed.', raftIndex),
    gauge('etcd_server_proposals_applied_total', 'The total number of consensus proposals applied.', raftIndex),
    gauge('etcd_server_proposals_pending', 'The current number of pending proposals to commit.', 0),
    counter('etcd_server_proposals_failed_total', 'The total number of failed proposals seen.', 0),
    // A leader alone answers its own read indexes at once.
    counter('etcd_server_slow_read_indexes_total', "The total number of pending read indexes not in sync with leader's or timed out read index requests.", 0),
    counter('etcd_server_read_indexes_failed_total', 'The total number of failed read indexes seen.', 0),
    counter('etcd_debugging_server_lease_expired_total', 'The total number of expired leases.', stats.leaseExpired),
    // etcd sets the gauge to the configured value, so a disabled (negative) quota shows as negative.
    gauge('etcd_server_quota_backend_bytes', 'Current backend storage quota size in bytes.', quotaBackendBytes),
    info('etcd_server_version', "Which version is running. 1 for 'server_version' label with current version.", 'server_version', version),
    info('etcd_server_go_version', "Which Go version server is running with. 1 for 'server_go_version' label with current version.", 'server_go_version', RUNTIME_VERSION),
    info('etcd_server_id', "Server or member ID in hexadecimal format. 1 for 'server_id' label with current ID.", 'server_id', s.memberId.toString(16)),
    gauge('os_fd_used', 'The number of used file descriptors.', fds.used),
    gauge('os_fd_limit', 'The file descriptor limit.', fds.limit),
    {
      name: 'etcd_server_apply_duration_seconds', help: 'The latency distributions of v2 apply called by backend.', type: 'histogram',
      metrics: [...stats.applies.values()].map((a) => histogramOf(a.seconds, { op: a.key.op, success: String(a.key.success), version: a.key.version })),
    },
  ]
}

/** membership/metrics.go (`clusterVersion` is major.minor) and etcdhttp's health checks. */
export function healthFamilies(clusterVersion: string, health: HealthCounts): MetricFamily[] {
  return [
    info('etcd_cluster_version', "Which version is running. 1 for 'cluster_version' label with current cluster version", 'cluster_version', clusterVersion),
    counter('etcd_server_health_success', 'The total number of successful health checks', health.success),
    counter('etcd_server_health_failures', 'The total number of failed health checks', health.failures),
    {
      name: 'etcd_server_healthcheck', help: 'The result of each kind of healthcheck.', type: 'gauge',
      metrics: [...health.checks].map(([k, value]) => {
        const [type = '', name = ''] = k.split('|')
        return { labels: { name, type }, value }
      }),
    },
    {
      name: 'etcd_server_healthchecks_total', help: 'The total number of each kind of healthcheck.', type: 'counter',
      metrics: [...health.checksTotal].map(([k, value]) => {
        const [type = '', name = '', status = ''] = k.split('|')
        return { labels: { name, status, type }, value }
      }),
    },
  ]
}

/** mvcc/metrics.go and metrics_txn.go. */
export function mvccFamilies(s: EtcdServer, db: { readonly total: number; readonly inUse: number }): MetricFamily[] {
  const mvcc = s.kv.metrics
  const watchers = s.watchable.counts()
  return [
    counter('etcd_mvcc_range_total', 'Total number of ranges seen by this member.', mvcc.range),
    counter('etcd_mvcc_put_total', 'Total number of puts seen by this member.', mvcc.put),
    counter('etcd_mvcc_delete_total', 'Total number of deletes seen by this member.', mvcc.delete),
    counter('etcd_mvcc_txn_total', 'Total number of txns seen by this member.', mvcc.txn),
    counter('etcd_debugging_mvcc_range_total', 'Total number of ranges seen by this member.', mvcc.range),
    counter('etcd_debugging_mvcc_put_total', 'Total number of puts seen by this member.', mvcc.put),
    counter('etcd_debugging_mvcc_delete_total', 'Total number of deletes seen by this member.', mvcc.delete),
    counter('etcd_debugging_mvcc_txn_total', 'Total number of txns seen by this member.', mvcc.txn),
    gauge('etcd_debugging_mvcc_total_put_size_in_bytes', 'The total size of put kv pairs seen by this member.', mvcc.putSize),
    gauge('etcd_debugging_mvcc_keys_total', 'Total number of keys.', s.closed ? 0 : s.kv.keyCount()),
    gauge('etcd_debugging_mvcc_watch_stream_total', 'Total number of watch streams.', s.watchable.streamCount()),
    gauge('etcd_debugging_mvcc_watcher_total', 'Total number of watchers.', watchers.synced + watchers.unsynced + watchers.victims),
    gauge('etcd_debugging_mvcc_slow_watcher_total', 'Total number of unsynced slow watchers.', watchers.unsynced + watchers.victims),
    counter('etcd_debugging_mvcc_events_total', 'Total number of events sent by this member.', mvcc.events),
    // etcd counts events waiting in the channel between its store and a stream's send loop; the store here
    // hands them to the stream directly, so none ever wait between the two.
    gauge('etcd_debugging_mvcc_pending_events_total', 'Total number of pending events to be sent.', 0),
    histogram('etcd_debugging_mvcc_index_compaction_pause_duration_milliseconds', 'Bucketed histogram of index compaction pause duration.', mvcc.indexCompactionPauseMs),
    histogram('etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds', 'Bucketed histogram of db compaction pause duration.', mvcc.dbCompactionPauseMs),
    histogram('etcd_debugging_mvcc_db_compaction_total_duration_milliseconds', 'Bucketed histogram of db compaction total duration.', mvcc.dbCompactionTotalMs),
    gauge('etcd_debugging_mvcc_db_compaction_last', 'The unix time of the last db compaction. Resets to 0 on start.', mvcc.dbCompactionLast),
    counter('etcd_debugging_mvcc_db_compaction_keys_total', 'Total number of db keys compacted.', mvcc.dbCompactionKeys),
    gauge('etcd_mvcc_db_total_size_in_bytes', dbHelp, db.total),
    gauge('etcd_debugging_mvcc_db_total_size_in_bytes', dbHelp, db.total),
    gauge('etcd_mvcc_db_total_size_in_use_in_bytes', 'Total size of the underlying database logically in use in bytes.', db.inUse),
    // etcd's backend keeps one shared read transaction open at all times; reads here need none, and the
    // gauge shows what etcd shows between commits.
    gauge('etcd_mvcc_db_open_read_transactions', 'The number of currently open read transactions', 1),
    histogram('etcd_mvcc_hash_duration_seconds', 'The latency distribution of storage hash operation.', mvcc.hashSec),
    histogram('etcd_mvcc_hash_rev_duration_seconds', 'The latency distribution of storage hash by revision operation.', mvcc.hashRevSec),
    gauge('etcd_debugging_mvcc_current_revision', 'The current revision of store.', s.kv.rev()),
    gauge('etcd_debugging_mvcc_compact_revision', 'The revision of the last compaction in store.', s.kv.compactRev()),
  ]
}

/**
 * mvcc/backend/metrics.go and wal/metrics.go: a commit is one LevelDB batch write, with its log append and
 * sync, so it is both etcd's backend commit and its WAL write and fsync. bbolt's commit also rebalances and
 * spills its B+tree; LevelDB's has no such phases, so they take no time, once per commit.
 */
export function diskFamilies(s: EtcdServer): MetricFamily[] {
  const stats = s.stats
  const commits = s.backend.commitTimes
  return [
    histogram('etcd_disk_backend_commit_duration_seconds', 'The latency distributions of commit called by backend.', commits),
    { name: 'etcd_debugging_disk_backend_commit_rebalance_duration_seconds', help: 'The latency distributions of commit.rebalance called by bboltdb backend.', type: 'histogram', metrics: [zeroes(commits.count)] },
    { name: 'etcd_debugging_disk_backend_commit_spill_duration_seconds', help: 'The latency distributions of commit.spill called by bboltdb backend.', type: 'histogram', metrics: [zeroes(commits.count)] },
    histogram('etcd_debugging_disk_backend_commit_write_duration_seconds', 'The latency distributions of commit.write called by bboltdb backend.', commits),
    histogram('etcd_disk_backend_defrag_duration_seconds', 'The latency distribution of backend defragmentation.', stats.defragSec),
    histogram('etcd_disk_backend_snapshot_duration_seconds', 'The latency distribution of backend snapshots.', stats.snapshotSec),
    gauge('etcd_disk_defrag_inflight', 'Whether or not defrag is active on the member. 1 means active, 0 means not.', stats.defragInflight),
    histogram('etcd_disk_wal_fsync_duration_seconds', 'The latency distributions of fsync called by WAL.', commits),
    histogram('etcd_disk_wal_write_duration_seconds', 'The latency distributions of write called by WAL.', commits),
    gauge('etcd_disk_wal_write_bytes_total', 'Total number of bytes written in WAL.', s.backend.writtenLogBytes),
  ]
}

/**
 * snap/metrics.go: raft snapshots (saved every --snapshot-count entries, or received from a leader); a member
 * without raft takes none.
 */
export function snapFamilies(): MetricFamily[] {
  return [
    never('etcd_debugging_snap_save_marshalling_duration_seconds', 'The marshalling cost distributions of save called by snapshot.', COMMIT_SECONDS_BUCKETS),
    never('etcd_debugging_snap_save_total_duration_seconds', 'The total latency distributions of save called by snapshot.', COMMIT_SECONDS_BUCKETS),
    never('etcd_snap_fsync_duration_seconds', 'The latency distributions of fsync called by snap.', COMMIT_SECONDS_BUCKETS),
    never('etcd_snap_db_fsync_duration_seconds', 'The latency distributions of fsyncing .snap.db file', COMMIT_SECONDS_BUCKETS),
    never('etcd_snap_db_save_total_duration_seconds', 'The total latency distributions of v3 snapshot save', SNAP_DB_SAVE_BUCKETS),
  ]
}

/** lease/metrics.go and auth/metrics.go. */
export function leaseAuthFamilies(s: EtcdServer): MetricFamily[] {
  const lease = s.lessor.metrics
  return [
    counter('etcd_debugging_lease_granted_total', 'The total number of granted leases.', lease.granted),
    counter('etcd_debugging_lease_revoked_total', 'The total number of revoked leases.', lease.revoked),
    counter('etcd_debugging_lease_renewed_total', 'The number of renewed leases seen by the leader.', lease.renewed),
    histogram('etcd_debugging_lease_ttl_total', 'Bucketed histogram of lease TTLs.', lease.ttls),
    gauge('etcd_debugging_auth_revision', 'The current revision of auth store.', s.authStore.revision()),
  ]
}

/**
 * api/v2store/metrics.go: etcd keeps its membership in the v2 store, and a member's start reads the members
 * once and writes its own record, its attributes and the cluster version there. The counts are those a start
 * leaves; requests of the v2 API (--enable-v2) are not counted in them.
 */
export function v2storeFamilies(): MetricFamily[] {
  return [
    counter('etcd_debugging_store_expires_total', 'Total number of expired keys.', 0),
    { name: 'etcd_debugging_store_reads_total', help: 'Total number of reads action by (get/getRecursive), local to this member.', type: 'counter', metrics: [{ labels: { action: 'getRecursive' }, value: 1 }] },
    {
      name: 'etcd_debugging_store_writes_total', help: 'Total number of writes (e.g. set/compareAndDelete) seen by this member.', type: 'counter',
      metrics: [{ labels: { action: 'create' }, value: 1 }, { labels: { action: 'set' }, value: 2 }],
    },
    counter('etcd_debugging_store_watch_requests_total', 'Total number of incoming watch requests (new or reestablished).', 0),
    gauge('etcd_debugging_store_watchers', 'Count of currently active watchers.', 0),
  ]
}

/** proxy/grpcproxy/metrics.go: registered by every etcd binary, moved only by `etcd grpc-proxy`. */
export function grpcProxyFamilies(): MetricFamily[] {
  return [
    gauge('etcd_grpc_proxy_watchers_coalescing_total', 'Total number of current watchers coalescing', 0),
    counter('etcd_grpc_proxy_events_coalescing_total', 'Total number of events coalescing', 0),
    gauge('etcd_grpc_proxy_cache_keys_total', 'Total number of keys/ranges cached', 0),
    gauge('etcd_grpc_proxy_cache_hits_total', 'Total number of cache hits', 0),
    gauge('etcd_grpc_proxy_cache_misses_total', 'Total number of cache misses', 0),
  ]
}

/** promhttp's own: the scrape being served counts as in flight; it counts by code once served. */
export function promhttpFamilies(inFlight: number, scrapes: ReadonlyMap<string, number>): MetricFamily[] {
  return [
    gauge('promhttp_metric_handler_requests_in_flight', 'Current number of scrapes being served.', inFlight),
    {
      name: 'promhttp_metric_handler_requests_total', help: 'Total number of scrapes by HTTP status code.', type: 'counter',
      metrics: [...scrapes].map(([code, value]) => ({ labels: { code }, value })),
    },
  ]
}
