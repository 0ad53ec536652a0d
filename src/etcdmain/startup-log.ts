// The lines etcd 3.5.17 logs from `etcd` starting to serving clients, and on a signal to stopping, for a
// one-member cluster: same messages, fields, field types and order, each naming the etcd call site that
// logs it, because harnesses wait for these lines and tools parse them. Left out are the lines about raft,
// the WAL, snapshot files and peer traffic ("became leader at term 2", "started to purge file", "serving
// peer traffic", ...), which describe machinery etcdlite does not have and nothing is known to wait for.
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { GoDuration } from '../pkg/duration.js'
import type { ZapLogger } from '../pkg/logger.js'
import type { LogEntry } from './log-entry.js'
import type { DowngradeInfo } from '../etcdserver/types/maintenance.js'
import type { Member, ServingListener, StartupFacts } from './startup-facts.js'
import { clusterVersion, compactionRetention, DEFAULT_QUOTA_BYTES, goArch, goSignalName, humanizeBytes } from './startup-values.js'

/** etcd's call sites (zap's short caller) in v3.5.17, one per line logged here. */
const AT = {
  singlePort: 'embed/config.go:689',
  running: 'etcdmain/etcd.go:73',
  failedToVerifyFlags: 'etcdmain/etcd.go:75',
  alreadyInitialized: 'etcdmain/etcd.go:116',
  failedToStart: 'etcdmain/etcd.go:146',
  discoveryFailed: 'etcdmain/etcd.go:204',
  notifying: 'etcdmain/main.go:44',
  notifyFailed: 'etcdmain/main.go:47',
  notified: 'etcdmain/main.go:50',
  configuringPeers: 'embed/etcd.go:128',
  configuringClients: 'embed/etcd.go:136',
  nowServing: 'embed/etcd.go:280',
  startingAnEtcdServer: 'embed/etcd.go:311',
  pprofEnabled: 'embed/etcd.go:621',
  closing: 'embed/etcd.go:378',
  closed: 'embed/etcd.go:380',
  servingMetrics: 'embed/etcd.go:871',
  readyToServe: 'embed/serve.go:103',
  servingInsecurely: 'embed/serve.go:187',
  servingSecurely: 'embed/serve.go:250',
  openedBackend: 'etcdserver/backend.go:81',
  downgrading: 'membership/downgrade.go:50',
  invalidDowngrade: 'membership/downgrade.go:59',
  startingLocalMember: 'etcdserver/raft.go:505',
  restartingLocalMember: 'etcdserver/raft.go:540',
  simpleToken: 'auth/store.go:1241',
  disabledQuota: 'etcdserver/quota.go:81',
  defaultQuota: 'etcdserver/quota.go:94',
  quota: 'etcdserver/quota.go:117',
  startingEtcdServer: 'etcdserver/server.go:873',
  startingCorruptCheck: 'etcdserver/corrupt.go:96',
  corruptCheckPassed: 'etcdserver/corrupt.go:177',
  skippedLeadershipTransfer: 'etcdserver/server.go:1543',
  published: 'etcdserver/server.go:2140',
  settingUpClusterVersion: 'etcdserver/server.go:2651',
  clusterVersionUpdated: 'etcdserver/server.go:2675',
  addedMember: 'membership/cluster.go:421',
  setClusterVersion: 'membership/cluster.go:584',
  capabilities: 'api/capability.go:75',
  receivedSignal: 'osutil/interrupt_unix.go:64',
} as const

const hex = (id: bigint): string => id.toString(16)

/** The start-up and shutdown lines of one `etcd` process, in etcd's order. */
export class StartupLog {
  /** The client URLs this member advertises: the flag's, else the bound ones once known. */
  private advertised: readonly string[]

  constructor(private readonly lg: ZapLogger, private readonly facts: StartupFacts) {
    this.advertised = facts.advertiseClientUrls ?? facts.listenClientUrls
  }

  /**
   * From the command line to configuring listeners: etcd validates its config twice (parsing the flags and
   * starting the server), warning each time that gRPC and HTTP share the client port.
   */
  starting(args: readonly string[], notes: readonly LogEntry[] = []): void {
    const f = this.facts
    if (!f.splitHttp) this.lg.warn('Running http and grpc server on single port. This is not recommended for production.', {}, AT.singlePort)
    this.lg.info('Running: ', { args }, AT.running)
    // The default host and data dir etcdmain settles on after parsing its flags.
    for (const n of notes) this.lg.log(n.level, n.msg, n.fields, n.caller)
    if (f.memberInitialized) this.lg.info('server has been already initialized', { 'data-dir': f.dataDir, 'dir-type': 'member' }, AT.alreadyInitialized)
    if (!f.splitHttp) this.lg.warn('Running http and grpc server on single port. This is not recommended for production.', {}, AT.singlePort)
    this.lg.info('configuring peer listeners', { 'listen-peer-urls': f.listenPeerUrls }, AT.configuringPeers)
    this.lg.info('configuring client listeners', { 'listen-client-urls': f.listenClientUrls }, AT.configuringClients)
  }

  /** --enable-pprof, as etcd configures its client listeners. */
  pprofEnabled(): void {
    this.lg.info('pprof is enabled', { path: '/debug/pprof' }, AT.pprofEnabled)
  }

  /** The server's configuration, as embed.StartEtcd prints it before creating the server. */
  startingAnEtcdServer(): void {
    const f = this.facts
    const retention = compactionRetention(f.autoCompactionMode, f.autoCompactionRetention)
    const ticks = Math.floor(f.electionTimeoutMs / f.heartbeatIntervalMs)
    const cpus = availableParallelism()
    this.lg.info('starting an etcd server', {
      'etcd-version': f.etcdVersion,
      'git-sha': 'Not provided (use ./build instead of go build)',
      'go-version': process.version,
      'go-os': process.platform,
      'go-arch': goArch(process.arch),
      'max-cpu-set': cpus,
      'max-cpu-available': cpus,
      'member-initialized': f.memberInitialized,
      name: f.name,
      'data-dir': f.dataDir,
      'wal-dir': '',
      'wal-dir-dedicated': '',
      'member-dir': join(f.dataDir, 'member'),
      'force-new-cluster': false,
      'heartbeat-interval': GoDuration.ms(f.heartbeatIntervalMs),
      'election-timeout': GoDuration.ms(ticks * f.heartbeatIntervalMs),
      'initial-election-tick-advance': true,
      'snapshot-count': 100000,
      'max-wals': 5,
      'max-snapshots': 5,
      'snapshot-catchup-entries': 5000,
      'initial-advertise-peer-urls': f.initialAdvertisePeerUrls,
      'listen-peer-urls': f.listenPeerUrls,
      'advertise-client-urls': this.advertised,
      'listen-client-urls': f.listenClientUrls,
      'listen-metrics-urls': f.listenMetricsUrls,
      cors: ['*'],
      'host-whitelist': ['*'],
      // etcd reads the initial cluster and its token only for a member it has yet to create.
      'initial-cluster': f.memberInitialized ? '' : f.initialCluster,
      'initial-cluster-state': f.initialClusterState,
      'initial-cluster-token': f.memberInitialized ? '' : f.initialClusterToken,
      'quota-backend-bytes': f.quotaBackendBytes === 0 ? DEFAULT_QUOTA_BYTES : f.quotaBackendBytes,
      'max-request-bytes': f.maxRequestBytes,
      'max-concurrent-streams': 4294967295,
      'pre-vote': true,
      'initial-corrupt-check': false,
      'corrupt-check-time-interval': '0s',
      'compact-check-time-enabled': false,
      'compact-check-time-interval': GoDuration.ms(60_000),
      'auto-compaction-mode': f.autoCompactionMode,
      'auto-compaction-retention': retention,
      'auto-compaction-interval': retention.toString(),
      'discovery-url': '',
      'discovery-proxy': '',
      'downgrade-check-interval': '5s',
      // etcdlite's own facts.
      'etcdlite-version': f.etcdliteVersion,
      memory: f.memory,
    }, AT.startingAnEtcdServer)
  }

  /** etcdserver.NewServer up to the store: the backend opened (in `tookMs`), the member, the token warning. */
  openedBackend(member: Member, tookMs: number): void {
    const f = this.facts
    this.lg.info('opened backend db', { path: f.memory ? ':memory:' : f.dataDir, took: GoDuration.ms(tookMs) }, AT.openedBackend)
    if (f.memberInitialized) {
      this.lg.info('restarting local member', { 'cluster-id': hex(member.clusterId), 'local-member-id': hex(member.memberId) }, AT.restartingLocalMember)
    } else {
      this.lg.info('starting local member', { 'local-member-id': hex(member.memberId), 'cluster-id': hex(member.clusterId) }, AT.startingLocalMember)
    }
    if (f.simpleToken) this.lg.warn('simple token is not cryptographically signed', {}, AT.simpleToken)
  }

  /** The rest of NewServer: the backend quota. */
  quotaEnabled(): void {
    const quota = this.facts.quotaBackendBytes
    if (quota === 0) {
      this.lg.info('enabled backend quota with default value', { 'quota-name': 'v3-applier', 'quota-size-bytes': DEFAULT_QUOTA_BYTES, 'quota-size': humanizeBytes(DEFAULT_QUOTA_BYTES) }, AT.defaultQuota)
    } else {
      this.lg.info('enabled backend quota', { 'quota-name': 'v3-applier', 'quota-size-bytes': quota, 'quota-size': humanizeBytes(quota) }, AT.quota)
    }
  }

  /** --experimental-initial-corrupt-check on a restart, before anything serves: the check starts... */
  corruptCheckStarted(member: Member, timeoutMs: number): void {
    this.lg.info('starting initial corruption check', { 'local-member-id': hex(member.memberId), timeout: GoDuration.ms(timeoutMs) }, AT.startingCorruptCheck)
  }

  /** ...and passes: the local hash was read and no peer disagrees (a single member has none). */
  corruptCheckPassed(member: Member): void {
    this.lg.info('initial corruption checking passed; no corruption', { 'local-member-id': hex(member.memberId) }, AT.corruptCheckPassed)
  }

  /**
   * EtcdServer.Start: the server, and the member joining the cluster. A restart replays the cluster version
   * from its log here, before serving.
   */
  serverStarted(member: Member): void {
    const f = this.facts
    this.lg.info('starting etcd server', { 'local-member-id': hex(member.memberId), 'local-server-version': f.etcdVersion, 'cluster-version': 'to_be_decided' }, AT.startingEtcdServer)
    this.lg.info('added member', {
      'cluster-id': hex(member.clusterId),
      'local-member-id': hex(member.memberId),
      'added-peer-id': hex(member.memberId),
      'added-peer-peer-urls': f.initialAdvertisePeerUrls,
    }, AT.addedMember)
    if (f.memberInitialized) this.clusterVersionSet(member)
  }

  private clusterVersionSet(member: Member): void {
    const version = clusterVersion(this.facts.etcdVersion)
    this.lg.info('set initial cluster version', { 'cluster-id': hex(member.clusterId), 'local-member-id': hex(member.memberId), 'cluster-version': version }, AT.setClusterVersion)
    this.lg.info('enabled capabilities for version', { 'cluster-version': version }, AT.capabilities)
  }

  /** The listeners serve: `bound` are the client URLs as bound (they are advertised unless the flag says otherwise). */
  nowServing(member: Member, bound: readonly string[]): void {
    const f = this.facts
    this.advertised = f.advertiseClientUrls ?? bound
    this.lg.info('now serving peer/client/metrics', {
      'local-member-id': hex(member.memberId),
      'initial-advertise-peer-urls': f.initialAdvertisePeerUrls,
      'listen-peer-urls': f.listenPeerUrls,
      'advertise-client-urls': this.advertised,
      'listen-client-urls': f.listenClientUrls,
      'listen-metrics-urls': f.listenMetricsUrls,
    }, AT.nowServing)
    // etcd names each metrics listener by its flag URL.
    for (const u of f.listenMetricsUrls) this.lg.info('serving metrics', { address: u }, AT.servingMetrics)
  }

  /**
   * From the member publishing itself to every client listener serving: etcd's publish, the cluster version
   * a new cluster settles on, the listeners' ready lines and the systemd notification.
   */
  ready(member: Member, listeners: readonly ServingListener[]): void {
    const f = this.facts
    const ticks = Math.floor(f.electionTimeoutMs / f.heartbeatIntervalMs)
    const version = clusterVersion(f.etcdVersion)
    this.lg.info('published local member to cluster through raft', {
      'local-member-id': hex(member.memberId),
      // Go's %+v of the member's attributes.
      'local-member-attributes': `{Name:${f.name} ClientURLs:[${this.advertised.join(' ')}]}`,
      'request-path': `/0/members/${hex(member.memberId)}/attributes`,
      'cluster-id': hex(member.clusterId),
      // The server's request timeout: 5 s plus two election timeouts.
      'publish-timeout': GoDuration.ms(5000 + 2 * ticks * f.heartbeatIntervalMs),
    }, AT.published)
    if (!f.memberInitialized) this.lg.info('setting up initial cluster version using v2 API', { 'cluster-version': version }, AT.settingUpClusterVersion)
    for (let i = 0; i < listeners.length; i++) this.lg.info('ready to serve client requests', {}, AT.readyToServe)
    this.notifySystemd()
    if (!f.memberInitialized) {
      this.clusterVersionSet(member)
      this.lg.info('cluster version is updated', { 'cluster-version': version }, AT.clusterVersionUpdated)
    }
    for (const l of listeners) {
      if (l.secure) this.lg.info('serving client traffic securely', { traffic: l.traffic, address: l.address }, AT.servingSecurely)
      else this.lg.info('serving client traffic insecurely; this is strongly discouraged!', { traffic: l.traffic, address: l.address }, AT.servingInsecurely)
    }
  }

  /**
   * etcd's notifySystemd. Without NOTIFY_SOCKET there is nobody to tell and etcd reports success; with it,
   * etcd sends READY=1 over a unixgram socket, which Node cannot open, so etcdlite reports the failure.
   */
  private notifySystemd(): void {
    this.lg.info('notifying init daemon', {}, AT.notifying)
    const socket = process.env['NOTIFY_SOCKET'] ?? ''
    if (socket !== '') {
      this.lg.error('failed to notify systemd for readiness', { error: `dial unixgram ${socket}: etcdlite cannot send unixgram datagrams` }, AT.notifyFailed)
      return
    }
    this.lg.info('successfully notified init daemon', {}, AT.notified)
  }

  /** SIGINT or SIGTERM arrived. */
  receivedSignal(signal: NodeJS.Signals): void {
    this.lg.info('received signal; shutting down', { signal: goSignalName(signal) }, AT.receivedSignal)
  }

  private closeFields(): Readonly<Record<string, unknown>> {
    const f = this.facts
    return { name: f.name, 'data-dir': f.dataDir, 'advertise-peer-urls': f.initialAdvertisePeerUrls, 'advertise-client-urls': this.advertised }
  }

  /** embed.Etcd.Close begins; a running member is the leader of its one-member cluster and keeps it. */
  closing(member: Member | undefined): void {
    this.lg.info('closing etcd server', this.closeFields(), AT.closing)
    if (member !== undefined) {
      this.lg.info('skipped leadership transfer for single voting member cluster', { 'local-member-id': hex(member.memberId), 'current-leader-member-id': hex(member.memberId) }, AT.skippedLeadershipTransfer)
    }
  }

  closed(): void {
    this.lg.info('closed etcd server', this.closeFields(), AT.closed)
  }

  /**
   * etcd's mustDetectDowngrade as a restarted member recovers its cluster state: with a downgrade enabled,
   * only a server of the target version may run ("cluster is downgrading to target version"); any other
   * logs a fatal line and exits 1 (false here; the caller exits). Only a restarted member, or one restored
   * from a snapshot taken during a downgrade, has the info enabled.
   */
  downgradeChecked(info: DowngradeInfo): boolean {
    const f = this.facts
    if (!info.enabled || info.targetVersion === '') return true
    const local = `${clusterVersion(f.etcdVersion)}.0`
    if (local === info.targetVersion) {
      // The cluster version recovered is still the one the downgrade started from: one minor above.
      const [major = '', minor = ''] = info.targetVersion.split('.')
      this.lg.info('cluster is downgrading to target version', {
        'target-cluster-version': info.targetVersion,
        'determined-cluster-version': `${major}.${Number(minor) + 1}`,
        'current-server-version': f.etcdVersion,
      }, AT.downgrading)
      return true
    }
    this.lg.log('fatal', 'invalid downgrade; server version is not allowed to join when downgrade is enabled', {
      'current-server-version': f.etcdVersion,
      'target-cluster-version': info.targetVersion,
    }, AT.invalidDowngrade)
    return false
  }

  /**
   * The server could not start: etcd closes what it started, then etcdmain gives up with a fatal line (the
   * caller exits 1).
   */
  failedToStart(err: unknown): void {
    this.closing(undefined)
    this.closed()
    this.lg.warn('failed to start etcd', { error: err }, AT.failedToStart)
    this.lg.log('fatal', 'discovery failed', { error: err }, AT.discoveryFailed)
  }
}

/** etcdmain's lines when the flags fail validation (the caller exits 1). */
export function logFailedToVerifyFlags(lg: ZapLogger, args: readonly string[], err: unknown): void {
  lg.info('Running: ', { args }, AT.running)
  lg.warn('failed to verify flags', { error: err }, AT.failedToVerifyFlags)
}

/**
 * etcdmain's lines when the start fails before the server exists (a retention or --auth-token etcd's server
 * refuses, a listener etcdlite cannot serve): the warning and the fatal line (the caller exits 1).
 */
export function logFailedToStart(lg: ZapLogger, err: unknown): void {
  lg.warn('failed to start etcd', { error: err }, AT.failedToStart)
  lg.log('fatal', 'discovery failed', { error: err }, AT.discoveryFailed)
}
