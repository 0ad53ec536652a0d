// Prometheus metrics of one EtcdServer, named as etcd 3.4/3.5 names them (etcdserver/metrics.go,
// mvcc/metrics.go). Every figure here is a gauge read from the server when scraped, so nothing on the
// request path pays for it; transports add their own metrics to the same registry (grpc/metrics.ts).
//
// Several servers may live in one process (tests), so each has its own Registry, never prom-client's global
// one. Process and Node.js metrics (process_*, nodejs_*) describe the process, so one set of them, made on
// first use, is merged into every server's exposition.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client'
import type { CommitTimes } from '../backend/commit-times.js'
import { CommitHistogram } from './commit-histogram.js'
import type { EtcdServer } from './etcd-server.js'

/** Figures the metrics read from the server at scrape time, beyond the server's own public state. */
export interface ServerMetricsSources {
  /** The etcd version Status reports (etcd_server_version, etcd_cluster_version). */
  readonly etcdVersion: () => string
  /** Backend quota in bytes (etcd_server_quota_backend_bytes). */
  readonly quotaBackendBytes: () => number
  /** Backend size: physically allocated and logically in use, in bytes (etcd_mvcc_db_total_size_*). */
  readonly dbSize: () => Promise<{ readonly total: number; readonly inUse: number }>
}

let processRegistry: Registry | undefined
/** The process_* and nodejs_* metrics, registered once per process in a registry of their own. */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry })
  }
  return processRegistry
}

/**
 * The metrics of one server.
 *
 * etcd's leader gauges describe a single member that elected itself once per start: has_leader 1,
 * is_leader 1, is_learner 0, leader_changes_seen_total 1.
 */
export class ServerMetrics {
  /** This server's registry: add transport metrics here; {@link ServerMetrics.metrics} also adds process metrics. */
  readonly registry = new Registry()
  private readonly healthSuccess: Counter
  private readonly healthFailures: Counter
  private readonly healthcheck: Gauge
  private readonly healthchecksTotal: Counter
  private readonly sources: ServerMetricsSources

  constructor(server: EtcdServer, sources: ServerMetricsSources) {
    this.sources = sources
    const registers = [this.registry]
    const gauge = (name: string, help: string, value: () => number | Promise<number>): void => {
      new Gauge({
        name, help, registers,
        async collect(this: Gauge) {
          this.set(await value())
        },
      })
    }
    const info = (name: string, help: string, label: string, value: () => string): void => {
      new Gauge({
        name, help, labelNames: [label], registers,
        collect(this: Gauge) {
          this.reset()
          this.set({ [label]: value() }, 1)
        },
      })
    }
    const once = (name: string, help: string): void => {
      new Counter({ name, help, registers }).inc()
    }
    gauge('etcd_server_has_leader', 'Whether or not a leader exists. 1 is existence, 0 is not.', () => 1)
    gauge('etcd_server_is_leader', 'Whether or not this member is a leader. 1 if is, 0 otherwise.', () => 1)
    gauge('etcd_server_is_learner', 'Whether or not this member is a learner. 1 if is, 0 otherwise.', () => 0)
    once('etcd_server_leader_changes_seen_total', 'The number of leader changes seen.')
    info('etcd_server_id', "Server or member ID in hexadecimal format. 1 for 'server_id' label with current ID.", 'server_id',
      () => server.memberId.toString(16))
    info('etcd_server_version', "Which version is running. 1 for 'server_version' label with current version.", 'server_version',
      sources.etcdVersion)
    info('etcd_cluster_version', "Which version is running. 1 for 'cluster_version' label with current cluster version",
      'cluster_version', () => majorMinor(sources.etcdVersion()))
    gauge('etcd_server_quota_backend_bytes', 'Current backend storage quota size in bytes.', sources.quotaBackendBytes)
    this.healthSuccess = new Counter({ name: 'etcd_server_health_success', help: 'The total number of successful health checks', registers })
    this.healthFailures = new Counter({ name: 'etcd_server_health_failures', help: 'The total number of failed health checks', registers })
    this.healthcheck = new Gauge({ name: 'etcd_server_healthcheck', help: 'The result of each kind of healthcheck.', labelNames: ['name', 'type'], registers })
    this.healthchecksTotal = new Counter({
      name: 'etcd_server_healthchecks_total', help: 'The total number of each kind of healthcheck.', labelNames: ['name', 'status', 'type'], registers,
    })

    // Read when scraped from the store's plain op counts (mvcc/op-counts.ts), so a request pays one increment.
    const ops = server.kv.opCounts
    const opCounter = (name: string, help: string, value: () => number): void => {
      new Counter({
        name, help, registers,
        collect(this: Counter) {
          this.reset()
          this.inc(value())
        },
      })
    }
    opCounter('etcd_mvcc_range_total', 'Total number of ranges seen by this member.', () => ops.range)
    opCounter('etcd_mvcc_put_total', 'Total number of puts seen by this member.', () => ops.put)
    opCounter('etcd_mvcc_delete_total', 'Total number of deletes seen by this member.', () => ops.delete)
    opCounter('etcd_mvcc_txn_total', 'Total number of txns seen by this member.', () => ops.txn)
    // A member's raft commit and applied indexes: on one member every write request is a proposal, committed
    // and applied as it is accepted (Status's raftIndex), none waits and none fails in consensus.
    const raftIndex = (): number => server.maintenance.raftIndex()
    gauge('etcd_server_proposals_committed_total', 'The total number of consensus proposals committed.', raftIndex)
    gauge('etcd_server_proposals_applied_total', 'The total number of consensus proposals applied.', raftIndex)
    gauge('etcd_server_proposals_pending', 'The current number of pending proposals to commit.', () => 0)
    new Counter({ name: 'etcd_server_proposals_failed_total', help: 'The total number of failed proposals seen.', registers })
    // etcdlite's durable write is the backend's group commit, so one commit is both etcd's backend commit and
    // its WAL fsync.
    const commits = (): CommitTimes => server.backend.commitTimes
    new CommitHistogram(this.registry, 'etcd_disk_backend_commit_duration_seconds',
      'The latency distributions of commit called by backend.', commits)
    new CommitHistogram(this.registry, 'etcd_disk_wal_fsync_duration_seconds',
      'The latency distributions of fsync called by WAL.', commits)
    gauge('etcd_debugging_mvcc_current_revision', 'The current revision of store.', () => server.kv.rev())
    gauge('etcd_debugging_mvcc_compact_revision', 'The revision of the last compaction in store.', () => server.kv.compactRev())
    gauge('etcd_debugging_mvcc_keys_total', 'Total number of keys.', () => (server.closed ? 0 : server.kv.keyCount()))
    const watchers = (): { all: number; slow: number } => {
      const c = server.watchable.counts()
      return { all: c.synced + c.unsynced + c.victims, slow: c.unsynced + c.victims }
    }
    gauge('etcd_debugging_mvcc_watcher_total', 'Total number of watchers.', () => watchers().all)
    gauge('etcd_debugging_mvcc_slow_watcher_total', 'Total number of unsynced slow watchers.', () => watchers().slow)
    gauge('etcd_debugging_mvcc_watch_stream_total', 'Total number of watch streams.', () => server.watchable.streamCount())
    const dbHelp = 'Total size of the underlying database physically allocated in bytes.'
    gauge('etcd_mvcc_db_total_size_in_bytes', dbHelp, async () => (await sources.dbSize()).total)
    gauge('etcd_debugging_mvcc_db_total_size_in_bytes', dbHelp, async () => (await sources.dbSize()).total)
    gauge('etcd_mvcc_db_total_size_in_use_in_bytes', 'Total size of the underlying database logically in use in bytes.',
      async () => (await sources.dbSize()).inUse)
  }

  /** The etcd version the server reports (Status, /version, etcd_server_version). */
  etcdVersion(): string {
    return this.sources.etcdVersion()
  }

  /** Count one /health answer (etcd_server_health_success / _failures). */
  healthChecked(ok: boolean): void {
    ;(ok ? this.healthSuccess : this.healthFailures).inc()
  }

  /**
   * Record one named check of /livez or /readyz (etcd's recordMetrics): etcd_server_healthcheck{type,name} 1 or 0,
   * and etcd_server_healthchecks_total{type,name,status="success"|"error"}.
   */
  namedCheckRun(type: string, name: string, ok: boolean): void {
    // Labels in sorted order, as Go's client prints them.
    this.healthcheck.set({ name, type }, ok ? 1 : 0)
    this.healthchecksTotal.inc({ name, status: ok ? 'success' : 'error', type })
  }

  /** The Prometheus text exposition: this server's metrics and the process's. */
  metrics(): Promise<string> {
    return Registry.merge([processMetrics(), this.registry]).metrics()
  }

  /** The Content-Type of {@link ServerMetrics.metrics} (Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.registry.contentType
  }
}

/** "3.5.17" -> "3.5" (etcd_cluster_version shows major.minor). */
export function majorMinor(version: string): string {
  const m = /^(\d+)\.(\d+)/.exec(version)
  return m === null ? version : `${m[1]}.${m[2]}`
}

const byServer = new WeakMap<EtcdServer, ServerMetrics>()

/** The metrics of `server` (made on first use, one registry per server). */
export function serverMetrics(server: EtcdServer): ServerMetrics {
  let m = byServer.get(server)
  if (m === undefined) {
    const maintenance = server.maintenance
    m = new ServerMetrics(server, {
      etcdVersion: () => maintenance.etcdVersion,
      // etcd sets the gauge to the configured value, so a disabled (negative) quota shows as negative.
      quotaBackendBytes: () => (maintenance.quotaBytes === Infinity ? -1 : maintenance.quotaBytes),
      dbSize: () => {
        const total = server.backend.size()
        return Promise.resolve({ total, inUse: total })
      },
    })
    byServer.set(server, m)
  }
  return m
}
