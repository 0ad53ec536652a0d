// The server core without a transport (etcd's etcdserver minus raft): builds and owns the backend's stores
// and the services over them, runs their background loops, fills response headers, and closes cleanly once
// the calls in flight are done. The services' handlers live in one file each (kv-service.ts,
// lease-service.ts, authenticator.ts, maintenance.ts, cluster.ts); each sees only what its interface names.
import type { Backend } from '../backend/backend.js'
import { EtcdError } from '../pkg/errors.js'
import { realClock, type Clock } from '../pkg/clock.js'
import { Lessor } from '../lease/lessor.js'
import { AuthStore } from '../auth/store.js'
import { KvStore } from '../mvcc/kvstore.js'
import type { KV } from '../mvcc/kv.js'
import type { WatchableStore } from '../mvcc/watchable-store.js'
import type { ServerWatchStream, WatchHost, WatchResponseSink } from './watch.js'
import { WatchServer } from './watch-server.js'
import { AlarmStore } from './alarm-store.js'
import { AppliedIndex } from './applied-index.js'
import { AutoCompactor } from './auto-compactor.js'
import { Authenticator } from './authenticator.js'
import type { CallTracker } from './call-tracker.js'
import { CallerAuth } from './caller-auth.js'
import { Cluster } from './cluster.js'
import { startIdentity, type Identity } from './identity.js'
import { KvService } from './kv-service.js'
import { LeaseService } from './lease-service.js'
import { Maintenance } from './maintenance.js'
import { BackendQuota } from './quota.js'
import { GRPC_OVERHEAD_BYTES, SERVER_DEFAULTS, type EtcdServerOptions, type MemberInfo } from './server-options.js'
import { ServerStats } from './server-stats.js'
import type { V2Server } from './v2-server.js'
import type { AccessController } from './access-controller.js'
import type { CallCredentials } from './types/credentials.js'
import type { ResponseHeader } from './types/header.js'

/** What the open of the store did (EtcdServer.restored). */
export interface RestoreInfo {
  readonly currentRev: number
  readonly compactRev: number
  /** The index checkpoint plus the log past it, or the whole log. */
  readonly indexFrom: 'checkpoint' | 'log'
  /** Revision-log entries read to restore the index. */
  readonly logEntriesRead: number
}

export class EtcdServer implements WatchHost {
  readonly kv: KV
  readonly fragmentBytes: number
  /** The watchable store, the open watch streams and their progress ticker. */
  private readonly watches: WatchServer
  private lastHeader: ResponseHeader | undefined
  readonly memberId: bigint
  readonly clusterId: bigint
  readonly raftTerm: number
  /** The storage under the store (maintenance: size, snapshot, defragment). */
  readonly backend: Backend
  /** The clock of leases, progress notifications and auto-compaction. */
  readonly clock: Clock
  /** Leases: grant, revoke, renew, expiry; keys attached to them. */
  readonly lessor: Lessor
  /** Users, roles, permissions, the enabled flag and tokens. */
  readonly authStore: AuthStore
  /** Who a call runs as, and the admin and user checks. */
  readonly callerAuth: CallerAuth
  /** Raised alarms (NOSPACE, CORRUPT), loaded before the first request. */
  readonly alarms: AlarmStore
  /** --quota-backend-bytes and the disk reserve, which raise NOSPACE. */
  readonly quota: BackendQuota
  /** The raft index a one-member etcd would be at (Status, tokens, the v2 index). */
  readonly appliedIndex: AppliedIndex
  /** The KV service: range, put, deleteRange, txn, compact. */
  readonly kvService: KvService
  /** The Lease service: grant, revoke, renew (keep-alive), time-to-live, list; and expiry. */
  readonly leaseService: LeaseService
  /** Status, hashes, defragment, snapshot, alarms, leader moves and downgrades. */
  readonly maintenance: Maintenance
  /** The Cluster service's core (member list; membership cannot change). */
  readonly cluster: Cluster
  /** The Auth service (enable, authenticate, users and roles), with etcd's permission rules. */
  readonly auth: Authenticator
  /** Applies, slow requests, expired leases, defragmentations and snapshots, for the metrics. */
  readonly stats = new ServerStats()
  /** This member as MemberList shows it; client URLs are added as listeners bind. */
  member: MemberInfo
  /** How the open restored the store: its revisions, and where its key index came from (for the start-up log). */
  readonly restored: RestoreInfo
  /** The v2 API (store, auth, stats) when enabled; the HTTP handler serves /v2 from it. */
  v2: V2Server | undefined
  private readonly opts: EtcdServerOptions
  /** The services' view of {@link EtcdServer.track} and the closing state. */
  private readonly calls: CallTracker
  private readonly autoCompactor: AutoCompactor | undefined
  private inflight = 0
  private drained: (() => void) | undefined
  private closing: Promise<void> | undefined

  /** CORS origins and the Host whitelist for the client URLs' HTTP. */
  get accessController(): AccessController {
    return this.opts.accessController
  }

  /** etcd's --metrics level (etcdserver/metrics.ts). */
  get metricsLevel(): 'basic' | 'extensive' {
    return this.opts.metrics
  }

  /** etcd's --max-txn-ops, which also bounds how deep a txn can nest (wire/txn.ts). */
  get maxTxnOps(): number {
    return this.opts.maxTxnOps
  }

  private constructor(
    kv: KvStore,
    backend: Backend,
    lessor: Lessor,
    authStore: AuthStore,
    alarms: AlarmStore,
    ids: Identity,
    opts: EtcdServerOptions,
    restored: RestoreInfo,
  ) {
    this.kv = kv
    this.restored = restored
    this.authStore = authStore
    this.alarms = alarms
    this.backend = backend
    this.member = opts.member
    this.memberId = ids.memberId
    this.clusterId = ids.clusterId
    this.raftTerm = ids.raftTerm
    this.opts = opts
    this.clock = opts.clock
    this.lessor = lessor
    this.fragmentBytes = opts.maxRequestBytes + GRPC_OVERHEAD_BYTES
    this.watches = new WatchServer(this, {
      progressIntervalMs: opts.watchProgressNotifyIntervalMs,
      clock: opts.clock,
      storeClock: realClock,
      onError: opts.onBackgroundError,
    })
    const isClosed = (): boolean => this.closed
    const member = (): MemberInfo => this.member
    this.calls = {
      get closed() {
        return isClosed()
      },
      checkOpen: () => this.checkOpen(),
      track: (fn) => this.track(fn),
      trackUntil: (settles, value) => this.trackUntil(settles, value),
    }
    this.callerAuth = new CallerAuth(authStore)
    this.appliedIndex = new AppliedIndex(kv, backend)
    this.quota = new BackendQuota(
      { backend, alarms, memberId: ids.memberId, noteApplied: () => this.appliedIndex.noteApplied() },
      opts.maintenance.quotaBackendBytes,
    )
    const header = (revision: number): ResponseHeader => this.header(revision)
    const common = {
      kv, backend, authStore, lessor, header, callerAuth: this.callerAuth, calls: this.calls, quota: this.quota,
      appliedIndex: this.appliedIndex, stats: this.stats, memberId: ids.memberId,
    }
    this.kvService = new KvService({ ...common, maxRequestBytes: opts.maxRequestBytes, maxTxnOps: opts.maxTxnOps })
    this.leaseService = new LeaseService({ ...common, onBackgroundError: opts.onBackgroundError })
    this.cluster = new Cluster({
      memberId: ids.memberId,
      clusterId: ids.clusterId,
      raftTerm: ids.raftTerm,
      get member() {
        return member()
      },
      callerAuth: this.callerAuth,
      get closed() {
        return isClosed()
      },
    })
    this.maintenance = new Maintenance(
      { ...common, alarms, raftTerm: ids.raftTerm, self: () => this.cluster.self() },
      opts.maintenance,
    )
    this.auth = new Authenticator({ ...common, durableHeader: () => this.header(kv.durableRev()) })
    this.stats.started()
    // A one-member server becomes leader on every start: leases get their TTL again (etcd's Promote).
    lessor.promote(opts.leaseRenewOnStartMs)
    lessor.startExpiry((leases) => this.leaseService.revokeExpired(leases))
    if (opts.autoCompaction !== undefined) {
      this.autoCompactor = new AutoCompactor(
        { rev: () => this.kv.rev(), compact: (revision) => this.kvService.compact({ revision }) },
        { retention: opts.autoCompaction, clock: opts.clock, onError: opts.onBackgroundError },
      )
      this.autoCompactor.start()
    }
  }

  /**
   * Open the server over a backend: restore the MVCC store, and load (or create) the member and cluster
   * IDs. Each start counts as one more election term, as a single-member etcd campaigns once per start.
   */
  static async open(backend: Backend, options: Partial<EtcdServerOptions> = {}): Promise<EtcdServer> {
    const opts = { ...SERVER_DEFAULTS, ...options }
    const lessor = await Lessor.open(backend, {
      minLeaseTtl: opts.minLeaseTtl,
      revokeRate: opts.leaseRevokeRate,
      clock: opts.clock,
      onError: opts.onBackgroundError,
    })
    const kv = await KvStore.open(backend, {
      leases: lessor,
      checkpointMinEntries: opts.indexCheckpointEntries === 0 ? Infinity : opts.indexCheckpointEntries,
    })
    lessor.setRangeDeleter(() => kv.write())
    const authStore = await AuthStore.open(backend, {
      bcryptCost: opts.auth.bcryptCost,
      tokenTtlMs: opts.auth.tokenTtlMs,
      clock: opts.clock,
      onError: opts.onBackgroundError,
      jwt: opts.auth.jwt,
    })
    const identity = startIdentity(backend, opts.newIdentity)
    try {
      await backend.commit()
    } catch (err) {
      // The first write of every start (the new term): a full disk stops the start here, with the reason.
      if (err instanceof EtcdError && err.code === 'NO_SPACE') {
        throw new Error('cannot start: no space left on device to record the start in the database', { cause: err })
      }
      throw err
    }
    // Raised alarms (NOSPACE) are in force before the first request (etcd's restoreAlarms).
    const alarms = await AlarmStore.open(backend)
    const server = new EtcdServer(kv, backend, lessor, authStore, alarms, identity, opts, {
      currentRev: kv.rev(),
      compactRev: kv.compactRev(),
      indexFrom: kv.restoredFrom,
      logEntriesRead: kv.restoreReplayed,
    })
    if (opts.enableV2) {
      try {
        // Loaded only when enabled: the v2 API is many modules, and a plain start must fit in few descriptors.
        const { V2Server } = await import('./v2-server.js')
        server.v2 = await V2Server.open(server, opts.onBackgroundError)
      } catch (err) {
        await server.close()
        throw err
      }
    }
    return server
  }

  /** The header etcd puts on every response. */
  /** The header etcd puts on every response. */
  header(revision: number): ResponseHeader {
    // One object per revision, shared by every response at it (watch fan-out encodes it once).
    let h = this.lastHeader
    if (h?.revision !== revision) {
      h = { clusterId: this.clusterId, memberId: this.memberId, revision, raftTerm: this.raftTerm }
      this.lastHeader = h
    }
    return h
  }

  /**
   * Open a watch stream (etcd's Watch RPC without the transport): requests go to `handle()`, responses to
   * `out`. Throws STOPPED once the server is closing.
   */
  newWatchStream(out: WatchResponseSink, creds?: CallCredentials): ServerWatchStream {
    this.checkOpen()
    return this.watches.newWatchStream(out, creds)
  }

  /** Watchers over the store (synced/unsynced groups, victims), for the metrics. */
  get watchable(): WatchableStore {
    return this.watches.watchable
  }

  /** @internal WatchHost */
  checkWatchPermitted(creds: CallCredentials | undefined, key: Uint8Array, rangeEnd: Uint8Array): void {
    this.authStore.isRangePermitted(this.callerAuth.authInfo(creds), key, rangeEnd)
  }

  /**
   * Stop taking requests, let those in flight finish, end every watch stream, then close the store and
   * backend. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.autoCompactor?.stop()
      await this.v2?.close()
      if (this.inflight > 0) await new Promise<void>((resolve) => (this.drained = resolve))
      await this.watches.stopProgress()
      await this.lessor.stop()
      await this.maintenance.close()
      await this.authStore.close()
      await this.watches.close()
      await this.kv.close()
    })()
    return this.closing
  }

  get closed(): boolean {
    return this.closing !== undefined
  }

  /** @internal Run a call the server waits for when it closes (STOPPED once closing). */
  async track<T>(fn: () => Promise<T>): Promise<T> {
    this.checkOpen()
    this.inflight++
    try {
      return await fn()
    } finally {
      this.untrack()
    }
  }

  /** Resolve with `value` once `settles` does, counted as in flight meanwhile (see CallTracker.trackUntil). */
  private trackUntil<T>(settles: Promise<void>, value: T): Promise<T> {
    this.inflight++
    return settles.then(
      () => {
        this.untrack()
        return value
      },
      (err: unknown) => {
        this.untrack()
        throw err
      },
    )
  }

  private checkOpen(): void {
    if (this.closing !== undefined) throw new EtcdError('STOPPED')
  }

  private untrack(): void {
    this.inflight--
    if (this.inflight === 0 && this.drained !== undefined) this.drained()
  }
}
