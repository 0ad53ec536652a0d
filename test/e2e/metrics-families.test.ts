// etcd's metric families on etcdlite's /metrics. FAMILIES lists every family etcdlite shows, with where its
// figure is counted, or why it is constant on one member; the first tests fail when etcdlite shows a family
// the list lacks, or the list names one etcdlite never shows. Then, against the real etcd 3.4 (skipped
// without /usr/bin/etcd and etcdctl): the same etcdctl workload (test/helpers/metrics-workload.ts) against
// both, etcdlite reporting 3.4.23; both must show the same families with the same TYPE, HELP, label names and
// bucket bounds, the same series, and each step must move every figure that does not depend on timing or on
// how the data is stored by the same amount. DELIBERATE lists every difference and why.
//
// etcdlite reports 3.5 by default, and shows 3.5's families then: the difference between its 3.4 and its
// 3.5 sets must be exactly what etcd's source changed between v3.4.23 and v3.5.17 (SINCE_3_5, UNTIL_3_4).
import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as grpc from '@grpc/grpc-js'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { httpHandler } from '../../src/embed/http.js'
import { GrpcServer } from '../../src/grpc/server.js'
import { rawClient } from '../helpers/grpc-client.js'
import { parseExposition, scrape, type Exposition } from '../helpers/metrics-text.js'
import { runWorkload, type StepResult } from '../helpers/metrics-workload.js'
import { haveEtcd, haveEtcdctl, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'

/** Every family etcdlite shows (nodejs_* aside): where it is counted, or why it is what it is. */
const FAMILIES: Readonly<Record<string, string>> = {
  // etcdserver/metrics.go
  etcd_server_has_leader: 'constant 1: a single member leads from its start',
  etcd_server_is_leader: 'constant 1: a single member leads from its start',
  etcd_server_is_learner: 'constant 0: the only member is a voter',
  etcd_server_leader_changes_seen_total: 'constant 1: the member elects itself once per start',
  etcd_server_learner_promote_successes: 'constant 0: there are no learners to promote',
  etcd_server_heartbeat_send_failures_total: 'constant 0: there are no followers to send heartbeats to',
  etcd_server_slow_apply_total: 'ServerStats: applies, ranges and read-only txns over 100 ms (etcd\'s warning duration)',
  etcd_server_snapshot_apply_in_progress_total: 'constant 0: no leader ever sends a snapshot',
  etcd_server_proposals_committed_total: 'Maintenance.raftIndex(): one per revision and per applied request that made none',
  etcd_server_proposals_applied_total: 'Maintenance.raftIndex(): committed proposals apply at once',
  etcd_server_proposals_pending: 'constant 0: a proposal commits as it is made',
  etcd_server_proposals_failed_total: 'constant 0: a proposal on one member cannot fail in consensus',
  etcd_server_slow_read_indexes_total: 'constant 0: a leader alone answers its read index at once',
  etcd_server_read_indexes_failed_total: 'constant 0: a leader alone answers its read index at once',
  etcd_debugging_server_lease_expired_total: 'EtcdServer.revokeExpired(): each lease the expiry loop revoked',
  etcd_server_quota_backend_bytes: 'the configured quota (--quota-backend-bytes)',
  etcd_server_version: 'the etcd version reported (--etcd-version)',
  etcd_server_go_version: 'the runtime and its version (node20.x; etcd shows its Go version)',
  etcd_server_id: 'the member ID',
  os_fd_used: 'entries of /proc/self/fd, read when scraped',
  os_fd_limit: 'the soft RLIMIT_NOFILE from /proc/self/limits',
  etcd_server_apply_duration_seconds: 'ServerStats.apply(): each request etcd would apply, by op and success; two v2 PUTs at start (3.5)',
  // membership, etcdhttp
  etcd_cluster_version: 'major.minor of the version reported',
  etcd_server_health_success: 'embed/http.ts: /health answers that were healthy',
  etcd_server_health_failures: 'embed/http.ts: /health answers that were not',
  etcd_server_healthcheck: 'embed/http.ts: the last result of each /livez and /readyz check (3.5)',
  etcd_server_healthchecks_total: 'embed/http.ts: each /livez and /readyz check by outcome (3.5)',
  // mvcc
  etcd_mvcc_range_total: 'MvccMetrics: each range of a txn, a compare, a prev_kv read, the read behind a compaction\'s header',
  etcd_mvcc_put_total: 'MvccMetrics: each put of a write txn',
  etcd_mvcc_delete_total: 'MvccMetrics: each delete range of a write txn (lease revokes included)',
  etcd_mvcc_txn_total: 'MvccMetrics: each txn that did more than one range, put or delete',
  etcd_debugging_mvcc_range_total: 'the same count as etcd_mvcc_range_total',
  etcd_debugging_mvcc_put_total: 'the same count as etcd_mvcc_put_total (3.4)',
  etcd_debugging_mvcc_delete_total: 'the same count as etcd_mvcc_delete_total (3.4)',
  etcd_debugging_mvcc_txn_total: 'the same count as etcd_mvcc_txn_total (3.4)',
  etcd_debugging_mvcc_total_put_size_in_bytes: 'MvccMetrics: key and value bytes of each put',
  etcd_debugging_mvcc_keys_total: 'the store\'s live keys, kept by its index',
  etcd_debugging_mvcc_watch_stream_total: 'the watchable store\'s streams',
  etcd_debugging_mvcc_watcher_total: 'the watchable store\'s watchers: synced, unsynced and victims',
  etcd_debugging_mvcc_slow_watcher_total: 'the watchable store\'s unsynced watchers and victims',
  etcd_debugging_mvcc_events_total: 'ServerWatchStream.trySend(): events handed to a watch stream',
  etcd_debugging_mvcc_pending_events_total: 'constant 0: the store hands events to the stream directly, none wait between them',
  etcd_debugging_mvcc_index_compaction_pause_duration_milliseconds: 'Compactor: time spent compacting the key index, whole ms',
  etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds: 'Compactor: each deletion batch but the last, whole ms',
  etcd_debugging_mvcc_db_compaction_total_duration_milliseconds: 'Compactor: each pass over the revision log, whole ms',
  etcd_debugging_mvcc_db_compaction_last: 'Compactor: unix seconds at the end of the last pass (3.5)',
  etcd_debugging_mvcc_db_compaction_keys_total: 'Compactor: revisions deleted from the revision log',
  etcd_mvcc_db_total_size_in_bytes: 'the backend\'s size: LevelDB\'s files on disk, entry bytes in memory',
  etcd_debugging_mvcc_db_total_size_in_bytes: 'the backend\'s size (3.4)',
  etcd_mvcc_db_total_size_in_use_in_bytes: 'the backend\'s size: LevelDB keeps no free pages to tell apart',
  etcd_mvcc_db_open_read_transactions: 'constant 1: etcd\'s backend keeps one shared read transaction open; reads here need none',
  etcd_mvcc_hash_duration_seconds: 'Maintenance.hash(): each Hash',
  etcd_mvcc_hash_rev_duration_seconds: 'Maintenance.hashKV(): each HashKV that hashed',
  etcd_debugging_mvcc_current_revision: 'the store\'s revision',
  etcd_debugging_mvcc_compact_revision: 'the store\'s compacted revision',
  // backend, wal: one LevelDB batch write with its log append and sync is etcd's commit, WAL write and fsync
  etcd_disk_backend_commit_duration_seconds: 'LevelBackend: each group commit',
  etcd_debugging_disk_backend_commit_rebalance_duration_seconds: 'one 0 s observation per commit: LevelDB has no B+tree to rebalance',
  etcd_debugging_disk_backend_commit_spill_duration_seconds: 'one 0 s observation per commit: LevelDB has no B+tree to spill',
  etcd_debugging_disk_backend_commit_write_duration_seconds: 'LevelBackend: each group commit',
  etcd_disk_backend_defrag_duration_seconds: 'Maintenance.defragment()',
  etcd_disk_backend_snapshot_duration_seconds: 'Maintenance.snapshot(): each snapshot stream, start to end',
  etcd_disk_defrag_inflight: 'Maintenance.defragment(): 1 while it runs',
  etcd_disk_wal_fsync_duration_seconds: 'LevelBackend: each group commit (its log is synced with it)',
  etcd_disk_wal_write_duration_seconds: 'LevelBackend: each group commit (3.5)',
  etcd_disk_wal_write_bytes_total: 'LevelBackend: bytes of the committed batches (keys, values, per-op framing)',
  // snap: raft snapshots
  etcd_debugging_snap_save_marshalling_duration_seconds: 'never observed: no raft, so no raft snapshots',
  etcd_debugging_snap_save_total_duration_seconds: 'never observed: no raft, so no raft snapshots',
  etcd_snap_fsync_duration_seconds: 'never observed: no raft, so no raft snapshots',
  etcd_snap_db_fsync_duration_seconds: 'never observed: no leader sends a snapshot',
  etcd_snap_db_save_total_duration_seconds: 'never observed: no leader sends a snapshot',
  // lease, auth
  etcd_debugging_lease_granted_total: 'Lessor.grant()',
  etcd_debugging_lease_revoked_total: 'Lessor.revoke(): by request and on expiry',
  etcd_debugging_lease_renewed_total: 'Lessor.renew(): each successful keep-alive',
  etcd_debugging_lease_ttl_total: 'Lessor.grant(): the TTL granted, after the raise to the minimum',
  etcd_debugging_auth_revision: 'the auth store\'s revision',
  // v2store
  etcd_debugging_store_expires_total: 'constant 0: nothing uses the v2 store',
  etcd_debugging_store_reads_total: 'constant: the read of the members a start makes',
  etcd_debugging_store_writes_total: 'constant: the member, its attributes and the cluster version a start writes',
  etcd_debugging_store_watch_requests_total: 'constant 0: nothing uses the v2 store',
  etcd_debugging_store_watchers: 'constant 0: nothing uses the v2 store',
  // grpcproxy: registered in every etcd binary
  etcd_grpc_proxy_watchers_coalescing_total: 'constant 0: not a gRPC proxy',
  etcd_grpc_proxy_events_coalescing_total: 'constant 0: not a gRPC proxy',
  etcd_grpc_proxy_cache_keys_total: 'constant 0: not a gRPC proxy',
  etcd_grpc_proxy_cache_hits_total: 'constant 0: not a gRPC proxy',
  etcd_grpc_proxy_cache_misses_total: 'constant 0: not a gRPC proxy',
  // promhttp, process
  promhttp_metric_handler_requests_in_flight: 'ServerMetrics.metrics(): scrapes being served',
  promhttp_metric_handler_requests_total: 'ServerMetrics.metrics(): scrapes served, by code',
  process_cpu_seconds_total: 'prom-client',
  process_max_fds: 'prom-client',
  process_open_fds: 'prom-client',
  process_resident_memory_bytes: 'prom-client',
  process_start_time_seconds: 'prom-client',
  process_virtual_memory_bytes: 'prom-client',
  process_virtual_memory_max_bytes: 'the soft address-space limit from /proc/self/limits',
  // grpc (go-grpc-prometheus, v3rpc)
  grpc_server_started_total: 'GrpcMetrics: each call, per method',
  grpc_server_handled_total: 'GrpcMetrics: each call\'s end, per method and code',
  grpc_server_msg_received_total: 'GrpcMetrics: each message unmarshalled, per method',
  grpc_server_msg_sent_total: 'GrpcMetrics: each message marshalled, per method',
  grpc_server_handling_seconds: 'GrpcMetrics: each call\'s time, with --metrics=extensive',
  etcd_network_client_grpc_received_bytes_total: 'GrpcMetrics: request message bytes',
  etcd_network_client_grpc_sent_bytes_total: 'GrpcMetrics: response message bytes',
  etcd_server_client_requests_total: 'GrpcMetrics: each call, by unary/stream and the client-api-version metadata',
  etcd_network_server_stream_failures_total: 'GrpcMetrics and the Watch service: messages that do not unmarshal, responses that cannot be sent',
}

/** The runtime's families, by prefix: nodejs_* in place of etcd's go_*. */
const RUNTIME_PREFIX = 'nodejs_'

/** Families only one side shows, by prefix, and why. */
const DELIBERATE = {
  onlyEtcd: { go_: 'the Go runtime\'s collector: this is not a Go process; nodejs_* describe its runtime instead' },
  onlyEtcdlite: { nodejs_: 'the Node.js runtime\'s figures (prom-client), in place of go_*' },
} as const

/**
 * etcdlite answers /health as etcd 3.5 does whatever version it reports (embed/http.ts): with a v3 Range.
 * etcd 3.4's /health is a v2 quorum GET through raft instead: a proposal, and a read of the v2 store.
 */
const HEALTH_3_5 = {
  step: '/health',
  onlyEtcd: ['etcd_debugging_store_reads_total{action="get"}'],
}

/**
 * A Watch call whose message does not unmarshal ends in etcd with the receive error (Internal) or with its
 * context's cancellation (Canceled), whichever its handler's select sees first: the step moves one of the
 * two, not always the same one.
 */
const RACY_IN_ETCD = {
  step: 'malformed watch request',
  series: /^grpc_server_handled_total\{grpc_code="(Canceled|Internal)",grpc_method="Watch",grpc_service="etcdserverpb\.Watch"/,
}

/** Labels whose values name the server, not what it did: the member ID and the runtime. */
const IDENTITY_SERIES = /^etcd_server_(id|go_version)\{/

/** etcd v3.5.17 against v3.4.23 (server/etcdserver/metrics.go, mvcc/metrics.go, wal/metrics.go, etcdhttp/health.go). */
const SINCE_3_5 = [
  'etcd_debugging_mvcc_db_compaction_last', 'etcd_disk_wal_write_duration_seconds', 'etcd_server_apply_duration_seconds',
  'etcd_server_healthcheck', 'etcd_server_healthchecks_total',
]
const UNTIL_3_4 = [
  'etcd_debugging_mvcc_db_total_size_in_bytes', 'etcd_debugging_mvcc_delete_total', 'etcd_debugging_mvcc_put_total',
  'etcd_debugging_mvcc_txn_total',
]

interface Lite {
  readonly etcd: Etcd
  readonly endpoint: string
  close(): Promise<void>
}

/** An etcdlite serving gRPC and HTTP on one port. */
async function lite(opts: Parameters<typeof openEtcd>[0]): Promise<Lite> {
  const etcd = await openEtcd(opts)
  const g = new GrpcServer(etcd.server, { maxRequestBytes: 1 << 20, report: (err) => assert.fail(String(err)), http: httpHandler(etcd.server, 'client') })
  const { port } = await g.bind('127.0.0.1', 0)
  return {
    etcd, endpoint: `127.0.0.1:${port}`,
    close: async () => {
      await g.shutdown()
      await etcd.close()
    },
  }
}

/** What makes etcdlite's lazily shown families appear: a gRPC call, a malformed watch request, /livez. */
async function touchEverything(l: Lite): Promise<Exposition> {
  const c = rawClient(l.endpoint)
  try {
    await c.kv.Put({ key: Buffer.from('k'), value: Buffer.from('v') })
  } finally {
    c.close()
  }
  const client = new grpc.Client(l.endpoint, grpc.credentials.createInsecure())
  await new Promise<void>((resolve) => {
    const call = client.makeBidiStreamRequest('/etcdserverpb.Watch/Watch', (b: Buffer) => b, (b: Buffer) => b)
    call.on('data', () => undefined)
    call.on('error', () => resolve())
    call.write(Buffer.from([0x0a, 0x05, 0x0a]))
  })
  client.close()
  await (await fetch(`http://${l.endpoint}/livez`)).text()
  return parseExposition(await scrape(l.endpoint))
}

const names = (e: Exposition): string[] => [...e.families.keys()].sort()
const without = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x))

describe('etcdlite\'s metric families', () => {
  let v34: Exposition
  let v35: Exposition
  before(async () => {
    for (const [version, set] of [['3.4.23', (e: Exposition) => (v34 = e)], ['3.5.17', (e: Exposition) => (v35 = e)]] as const) {
      const l = await lite({ memory: true, etcdVersion: version, metrics: 'extensive' })
      try {
        set(await touchEverything(l))
      } finally {
        await l.close()
      }
    }
  })

  it('every family shown is listed with where it is counted, and every listed family shows in 3.4 or 3.5', () => {
    const shown = [...new Set([...names(v34), ...names(v35)])].filter((n) => !n.startsWith(RUNTIME_PREFIX))
    assert.deepEqual(without(shown, Object.keys(FAMILIES)), [], 'shown but not listed')
    assert.deepEqual(without(Object.keys(FAMILIES), shown), [], 'listed but never shown')
    assert.ok(names(v35).some((n) => n.startsWith(RUNTIME_PREFIX)))
  })

  it('3.5\'s families are 3.4\'s with what etcd 3.5 added, less what it removed', () => {
    // The runtime's families come and go with the runtime (a histogram of GCs appears after the first GC).
    const etcds = (e: Exposition): string[] => names(e).filter((n) => !n.startsWith(RUNTIME_PREFIX))
    assert.deepEqual(without(etcds(v35), etcds(v34)), [...SINCE_3_5].sort())
    assert.deepEqual(without(etcds(v34), etcds(v35)), [...UNTIL_3_4].sort())
  })

  it('grpc_server_handling_seconds only with --metrics=extensive, as etcd', async () => {
    const l = await lite({ memory: true })
    try {
      const e = await touchEverything(l)
      assert.equal(e.families.has('grpc_server_handling_seconds'), false)
      assert.equal(v35.families.get('grpc_server_handling_seconds')?.type, 'histogram')
    } finally {
      await l.close()
    }
  })
})

/** Series whose moves depend on timing or on how the data is stored, not on the requests. */
const UNSTEADY = [
  /^(go|nodejs|process)_/, /^os_fd_/,
  // Durations (the lease TTL histogram holds TTLs, not times, and stays).
  /^(?!etcd_debugging_lease_ttl_total)[a-z_]+_(bucket|sum)\{?/,
  // How writes are grouped into commits, how big the database and its files are.
  /^etcd_disk_(backend_commit|wal)_/, /^etcd_debugging_disk_backend_commit_/, /^etcd_(debugging_)?mvcc_db_total_size/,
  /^etcd_network_client_grpc_(sent|received)_bytes_total/, /^etcd_mvcc_db_open_read_transactions/, /^grpc_server_msg_sent_total\{grpc_method="Snapshot"/,
  // Wall-clock time, and applies slower than 100 ms (bcrypt, a slow disk).
  /^etcd_debugging_mvcc_db_compaction_last/, /^etcd_server_slow_apply_total/,
  // Scrapes: a step that waits for something scrapes until it has happened.
  /^promhttp_metric_handler_requests_total/,
]
const steady = (series: string): boolean => !UNSTEADY.some((re) => re.test(series)) && !IDENTITY_SERIES.test(series)

/** Each step's moves of the steady series, as `series +n` lines by step. */
function moves(start: Exposition, steps: readonly StepResult[]): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  let prev = start
  for (const s of steps) {
    const moved: string[] = []
    for (const [k, v] of s.after.series) {
      if (!steady(k)) continue
      const d = v - (prev.series.get(k) ?? 0)
      if (d !== 0) moved.push(`${k} ${d > 0 ? '+' : ''}${d}`)
    }
    out[s.name] = moved.sort()
    prev = s.after
  }
  return out
}

describe('etcdlite (reporting 3.4.23) and the real etcd 3.4 after the same etcdctl workload', { skip: !(haveEtcd() && haveEtcdctl()) && 'etcd or etcdctl not installed' }, () => {
  let ref: { start: Exposition; steps: StepResult[] }
  let ours: { start: Exposition; steps: StepResult[] }
  const end = (r: { steps: StepResult[] }): Exposition => {
    const e = r.steps[r.steps.length - 1]?.after
    if (e === undefined) throw new Error('the workload ran no step')
    return e
  }
  before(async () => {
    const p: ServerProcess = await startReferenceEtcd()
    try {
      ref = await runWorkload(p.endpoint)
    } finally {
      await p.dispose()
    }
    const dir = await tempDir('metrics-families-')
    const l = await lite({ dataDir: `${dir.path}/data`, etcdVersion: '3.4.23' })
    try {
      ours = await runWorkload(l.endpoint)
    } finally {
      await l.close()
      await dir.remove()
    }
  })

  it('show the same families, but for the runtime\'s', () => {
    const theirs = names(end(ref))
    const mine = names(end(ours))
    const outside = (list: readonly string[], prefixes: object): string[] => list.filter((n) => !Object.keys(prefixes).some((p) => n.startsWith(p)))
    assert.deepEqual(without(outside(theirs, DELIBERATE.onlyEtcd), mine), [], 'only etcd shows')
    assert.deepEqual(without(outside(mine, DELIBERATE.onlyEtcdlite), theirs), [], 'only etcdlite shows')
    // The deliberate differences are real: each side does show them.
    for (const p of Object.keys(DELIBERATE.onlyEtcd)) assert.ok(theirs.some((n) => n.startsWith(p)), p)
    for (const p of Object.keys(DELIBERATE.onlyEtcdlite)) assert.ok(mine.some((n) => n.startsWith(p)), p)
  })

  it('with the same TYPE, HELP, label names and bucket bounds', () => {
    const theirs = end(ref).families
    const differ: string[] = []
    for (const [name, f] of end(ours).families) {
      const t = theirs.get(name)
      if (t === undefined) continue
      if (JSON.stringify(f) !== JSON.stringify(t)) differ.push(`${name}: ${JSON.stringify(f)} vs etcd's ${JSON.stringify(t)}`)
    }
    assert.deepEqual(differ, [])
  })

  it('and the same series, but for the member ID and the runtime\'s version', () => {
    const keys = (e: Exposition): string[] => [...e.series.keys()].filter((k) => !/^(go|nodejs)_/.test(k) && !IDENTITY_SERIES.test(k)).sort()
    const theirs = keys(end(ref))
    const mine = keys(end(ours))
    assert.deepEqual({ onlyEtcd: without(theirs, mine), onlyEtcdlite: without(mine, theirs) }, { onlyEtcd: HEALTH_3_5.onlyEtcd, onlyEtcdlite: [] })
  })

  it('each step moves the same figures by the same amounts', () => {
    const theirs = moves(ref.start, ref.steps)
    const mine = moves(ours.start, ours.steps)
    for (const m of [theirs, mine]) {
      const racy = m[RACY_IN_ETCD.step] ?? []
      assert.equal(racy.filter((l) => RACY_IN_ETCD.series.test(l) && l.endsWith(' +1')).length, 1, racy.join('\n'))
      m[RACY_IN_ETCD.step] = racy.filter((l) => !RACY_IN_ETCD.series.test(l))
    }
    const differ = Object.keys(theirs).filter((step) => step !== HEALTH_3_5.step && JSON.stringify(mine[step]) !== JSON.stringify(theirs[step]))
    for (const step of differ) assert.deepEqual(mine[step], theirs[step], step)
    assert.deepEqual(Object.keys(mine), Object.keys(theirs))
  })
})
