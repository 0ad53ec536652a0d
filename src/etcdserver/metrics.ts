// The /metrics of one EtcdServer: every etcd metric family that has a meaning on a one-member server, under
// etcd's names, types, HELP texts, labels and buckets (etcd 3.5 server/etcdserver/metrics.go,
// mvcc/metrics.go, mvcc/backend/metrics.go, wal/metrics.go, snap/metrics.go, lease/metrics.go,
// auth/metrics.go, api/v2store/metrics.go, api/membership/metrics.go, api/etcdhttp/health.go,
// proxy/grpcproxy/metrics.go, and client_golang's promhttp and process collectors), written as etcd's Go client
// library writes them (pkg/expfmt.ts). The transports add theirs (grpc/metrics.ts) through addSource().
//
// Nothing is counted here: the store, the lessor, the backend and the server keep plain numbers where etcd
// counts (mvcc/metrics.ts, lease/metrics.ts, backend/commit-times.ts, server-stats.ts), and the families are
// built from them when scraped (metric-families.ts, one function per etcd metrics file), in time independent
// of the number of keys.
//
// The families follow the etcd version the server reports (Status, /version): 3.4 and 3.5 differ in a few
// (VERSIONED below). test/e2e/metrics-families.test.ts lists every family with where it is counted, or why it
// is constant on one member, and compares the set with a real etcd's.
import { formatFamilies, TEXT_CONTENT_TYPE, type MetricFamily } from '../pkg/expfmt.js'
import type { EtcdServer } from './etcd-server.js'
import {
  diskFamilies, grpcProxyFamilies, healthFamilies, leaseAuthFamilies, mvccFamilies, promhttpFamilies, serverFamilies,
  snapFamilies, v2storeFamilies,
} from './metric-families.js'
import { processFamilies } from './process-metrics.js'

/** What shapes the families: the minor version of the etcd version reported (3.4 or 3.5), and --metrics. */
export interface MetricsContext {
  readonly minor: number
  /** etcd's --metrics=extensive (adds grpc_server_handling_seconds). */
  readonly extensive: boolean
}

/** Families added by a transport, built when scraped. */
export type FamilySource = (ctx: MetricsContext) => readonly MetricFamily[]

/** Figures the metrics read from the server at scrape time, beyond the server's own public state. */
export interface ServerMetricsSources {
  /** The etcd version Status reports (etcd_server_version, etcd_cluster_version, and which families exist). */
  readonly etcdVersion: () => string
  /** Backend quota in bytes (etcd_server_quota_backend_bytes). */
  readonly quotaBackendBytes: () => number
  /** Backend size: physically allocated and logically in use, in bytes (etcd_mvcc_db_total_size_*). */
  readonly dbSize: () => { readonly total: number; readonly inUse: number }
  /** etcd's --metrics: 'basic' (default) or 'extensive'. */
  readonly level: 'basic' | 'extensive'
}

/**
 * Families only one of the etcd versions has: 3.5 dropped the etcd_debugging_mvcc_* duplicates of the mvcc
 * counters (but kept range_total) and of the db size, and added the rest.
 */
const VERSIONED: Readonly<Record<string, 'until 3.4' | 'since 3.5'>> = {
  etcd_debugging_mvcc_put_total: 'until 3.4',
  etcd_debugging_mvcc_delete_total: 'until 3.4',
  etcd_debugging_mvcc_txn_total: 'until 3.4',
  etcd_debugging_mvcc_db_total_size_in_bytes: 'until 3.4',
  etcd_debugging_mvcc_db_compaction_last: 'since 3.5',
  etcd_disk_wal_write_duration_seconds: 'since 3.5',
  etcd_server_apply_duration_seconds: 'since 3.5',
  etcd_server_healthcheck: 'since 3.5',
  etcd_server_healthchecks_total: 'since 3.5',
}

const inVersion = (name: string, minor: number): boolean => {
  const v = VERSIONED[name]
  return v === undefined || (v === 'until 3.4' ? minor <= 4 : minor >= 5)
}

/** The metrics of one server: what it counts at the edges (health checks, scrapes) and the exposition. */
export class ServerMetrics {
  private readonly server: EtcdServer
  private readonly sources: ServerMetricsSources
  private readonly extra: FamilySource[] = []
  /** What /health, /livez and /readyz counted (HealthCounts). */
  private readonly health = { success: 0, failures: 0, checks: new Map<string, number>(), checksTotal: new Map<string, number>() }
  /** promhttp's own figures: scrapes being served, and scrapes served by HTTP status code. */
  private scrapesInFlight = 0
  private readonly scrapes = new Map<string, number>([['200', 0], ['500', 0], ['503', 0]])

  constructor(server: EtcdServer, sources: ServerMetricsSources) {
    this.server = server
    this.sources = sources
  }

  /** Add families a transport keeps (the gRPC server's). */
  addSource(source: FamilySource): void {
    this.extra.push(source)
  }

  /** The etcd version the server reports (Status, /version, etcd_server_version). */
  etcdVersion(): string {
    return this.sources.etcdVersion()
  }

  /** What the families depend on now. */
  context(): MetricsContext {
    const m = /^\d+\.(\d+)/.exec(this.sources.etcdVersion())
    return { minor: m === null ? 5 : Number(m[1]), extensive: this.sources.level === 'extensive' }
  }

  /** Count one /health answer (etcd_server_health_success / _failures). */
  healthChecked(ok: boolean): void {
    if (ok) this.health.success++
    else this.health.failures++
  }

  /**
   * Record one named check of /livez or /readyz (etcd's recordMetrics): etcd_server_healthcheck{type,name} 1 or 0,
   * and etcd_server_healthchecks_total{type,name,status="success"|"error"}.
   */
  namedCheckRun(type: string, name: string, ok: boolean): void {
    this.health.checks.set(`${type}|${name}`, ok ? 1 : 0)
    const k = `${type}|${name}|${ok ? 'success' : 'error'}`
    this.health.checksTotal.set(k, (this.health.checksTotal.get(k) ?? 0) + 1)
  }

  /** Every family as it stands now (those without a series included: the exposition leaves them out). */
  async families(): Promise<MetricFamily[]> {
    const ctx = this.context()
    const s = this.server
    const version = this.sources.etcdVersion()
    const all: MetricFamily[] = [
      ...serverFamilies(s, version, this.sources.quotaBackendBytes()),
      ...healthFamilies(majorMinor(version), this.health),
      ...mvccFamilies(s, this.sources.dbSize()),
      ...diskFamilies(s),
      ...snapFamilies(),
      ...leaseAuthFamilies(s),
      ...v2storeFamilies(),
      ...grpcProxyFamilies(),
      ...promhttpFamilies(this.scrapesInFlight, this.scrapes),
      ...this.extra.flatMap((source) => source(ctx)),
      ...(await processFamilies()),
    ]
    return all.filter((f) => inVersion(f.name, ctx.minor))
  }

  /** The Prometheus text exposition, as etcd's /metrics serves it; a scrape counts in promhttp_*. */
  async metrics(): Promise<string> {
    this.scrapesInFlight++
    let text: string
    try {
      text = formatFamilies(await this.families())
    } catch (err) {
      this.scrapesInFlight--
      this.scrapes.set('500', (this.scrapes.get('500') ?? 0) + 1)
      throw err
    }
    this.scrapesInFlight--
    this.scrapes.set('200', (this.scrapes.get('200') ?? 0) + 1)
    return text
  }

  /** The Content-Type of {@link ServerMetrics.metrics} (Prometheus text format 0.0.4). */
  get contentType(): string {
    return TEXT_CONTENT_TYPE
  }
}

/** "3.5.17" -> "3.5" (etcd_cluster_version shows major.minor). */
export function majorMinor(version: string): string {
  const m = /^(\d+)\.(\d+)/.exec(version)
  return m === null ? version : `${m[1]}.${m[2]}`
}

const byServer = new WeakMap<EtcdServer, ServerMetrics>()

/** The metrics of `server` (made on first use, one set per server). */
export function serverMetrics(server: EtcdServer): ServerMetrics {
  let m = byServer.get(server)
  if (m === undefined) {
    const maintenance = server.maintenance
    m = new ServerMetrics(server, {
      etcdVersion: () => maintenance.etcdVersion,
      quotaBackendBytes: () => (server.quota.bytes === Infinity ? -1 : server.quota.bytes),
      dbSize: () => {
        const total = server.backend.size()
        return { total, inUse: total }
      },
      level: server.metricsLevel,
    })
    byServer.set(server, m)
  }
  return m
}
