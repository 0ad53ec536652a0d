// The server core without a transport (etcd's etcdserver minus raft): owns the backend and the MVCC store,
// validates and applies requests, fills response headers, and closes cleanly.
import type { Backend } from '../backend/backend.js'
import { EtcdError } from '../pkg/errors.js'
import { realClock, type Clock } from '../pkg/clock.js'
import { IdGenerator } from '../pkg/id-generator.js'
import { Lessor, type Lease } from '../lease/lessor.js'
import type { AuthInfo } from '../auth/permission.js'
import { AuthStore } from '../auth/store.js'
import type { JwtOptions } from '../auth/jwt-token.js'
import { KvStore } from '../mvcc/kvstore.js'
import { CHECKPOINT_MIN_ENTRIES } from '../mvcc/index-checkpointer.js'
import type { KV, TxnWrite } from '../mvcc/kv.js'
import type { WatchableStore } from '../mvcc/watchable-store.js'
import type { ServerWatchStream, WatchHost, WatchResponseSink } from './watch.js'
import { WatchServer } from './watch-server.js'
import {
  applyDeleteRange, applyPut, applyRange, applyTxnOps, checkTxnPath, compareToPath, isTxnReadonly, type HeaderOf,
  type LeaseLookup,
} from './apply.js'

import { AutoCompactor, type CompactionRetention } from './auto-compactor.js'
import {
  checkDeleteRangeAuth, checkLeasePuts, checkLeaseTimeToLiveAuth, checkPutAuth, checkRangeAuth, checkTxnAuth,
} from './apply-auth.js'
import { Authenticator } from './authenticator.js'
import { costPut, costTxn, LEASE_OVERHEAD } from './quota.js'
import { startIdentity, type Identity, type NewIdentity } from './identity.js'
import type { V2Server } from './v2-server.js'
import { Maintenance, MAINTENANCE_DEFAULTS, type MaintenanceOptions } from './maintenance.js'
import { deleteRangeSize, putSize, raftRequestSize, txnSize } from './request-size.js'
import { ServerStats } from './server-stats.js'
import { AccessController } from './access-controller.js'
import type { CallCredentials } from './types/credentials.js'
import type { ResponseHeader } from './types/header.js'
import type {
  CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse, PutRequest, PutResponse,
  RangeRequest, RangeResponse, ResponseOp, TxnRequest, TxnResponse,
} from './types/kv.js'
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseLeasesResponse,
  LeaseRevokeRequest, LeaseRevokeResponse, LeaseTimeToLiveRequest, LeaseTimeToLiveResponse,
} from './types/lease.js'
import { checkDeleteRequest, checkPutRequest, checkRangeRequest, checkTxn } from './validate.js'

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

/** The key etcd's compaction reads to learn the current revision ("which key to get is not important"). */
const COMPACTION_KEY = new TextEncoder().encode('compaction')

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
  /** Status, hashes, defragment, snapshot, alarms and the quota. */
  readonly maintenance: Maintenance
  /** Users, roles, permissions, the enabled flag and tokens. */
  readonly authStore: AuthStore
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
  private readonly leaseExists: LeaseLookup
  private readonly autoCompactor: AutoCompactor | undefined
  private readonly idGen: IdGenerator
  private inflight = 0
  private drained: (() => void) | undefined
  private closing: Promise<void> | undefined

  /** CORS origins and the Host whitelist for the client URLs' HTTP. */
  get accessController(): AccessController {
    return this.opts.accessController
  }

  private constructor(
    kv: KvStore,
    backend: Backend,
    lessor: Lessor,
    authStore: AuthStore,
    ids: Identity,
    opts: EtcdServerOptions,
    restored: RestoreInfo,
  ) {
    this.kv = kv
    this.restored = restored
    this.authStore = authStore
    this.backend = backend
    this.member = opts.member
    this.memberId = ids.memberId
    this.clusterId = ids.clusterId
    this.raftTerm = ids.raftTerm
    this.opts = opts
    this.clock = opts.clock
    this.lessor = lessor
    this.leaseExists = (id) => lessor.exists(id)
    this.idGen = new IdGenerator(ids.memberId)
    this.fragmentBytes = opts.maxRequestBytes + GRPC_OVERHEAD_BYTES
    this.watches = new WatchServer(this, {
      progressIntervalMs: opts.watchProgressNotifyIntervalMs,
      clock: opts.clock,
      storeClock: realClock,
      onError: opts.onBackgroundError,
    })
    this.maintenance = new Maintenance(this, opts.maintenance)
    this.auth = new Authenticator(this)
    this.stats.started()
    // A one-member server becomes leader on every start: leases get their TTL again (etcd's Promote).
    lessor.promote(opts.leaseRenewOnStartMs)
    lessor.startExpiry((leases) => this.revokeExpired(leases))
    if (opts.autoCompaction !== undefined) {
      this.autoCompactor = new AutoCompactor(
        { rev: () => this.kv.rev(), compact: (revision) => this.compact({ revision }) },
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
    const server = new EtcdServer(kv, backend, lessor, authStore, identity, opts, {
      currentRev: kv.rev(),
      compactRev: kv.compactRev(),
      indexFrom: kv.restoredFrom,
      logEntriesRead: kv.restoreReplayed,
    })
    // Raised alarms (NOSPACE) are in force before the first request.
    await server.maintenance.restore()
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

  /** {@link EtcdServer.header}, bound, for the apply functions. */
  private readonly headerOf: HeaderOf = (revision) => this.header(revision)

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
   * Range. Linearizable and serializable reads alike are served at the newest durable revision, which
   * includes every acknowledged write and nothing that is not yet durable. Synchronous.
   */
  range(r: RangeRequest, creds?: CallCredentials): RangeResponse {
    this.checkOpen()
    checkRangeRequest(r)
    const started = performance.now()
    checkRangeAuth(this.authStore, this.authInfo(creds), r)
    const resp = applyRange(this.kv.read(), r, this.headerOf)
    this.stats.readDone(started)
    return resp
  }

  /**
   * Put. Checks, applies and ends its write txn synchronously, then resolves once the revision is durable
   * (rejects with the check's error otherwise; never throws).
   */
  put(r: PutRequest, creds?: CallCredentials): Promise<PutResponse> {
    let resp: PutResponse
    try {
      this.checkOpen()
      checkPutRequest(r)
      const ai = this.authInfo(creds)
      this.checkSize(putSize(r))
      this.maintenance.checkQuota(costPut(r))
      // What follows is what etcd checks and does when it applies the request.
      resp = this.stats.apply('Put', () => {
        checkPutAuth(this.authStore, this.lessor, ai, r)
        const lease = r.lease ?? 0n
        if (lease !== 0n && !this.lessor.exists(lease)) throw new EtcdError('LEASE_NOT_FOUND')
        return this.applyWrite(applyPut, r)
      })
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
    return this.durable(resp)
  }

  deleteRange(r: DeleteRangeRequest, creds?: CallCredentials): Promise<DeleteRangeResponse> {
    let resp: DeleteRangeResponse
    try {
      this.checkOpen()
      checkDeleteRequest(r)
      const ai = this.authInfo(creds)
      this.checkSize(deleteRangeSize(r))
      resp = this.stats.apply('DeleteRange', () => {
        checkDeleteRangeAuth(this.authStore, ai, r)
        return this.applyWrite(applyDeleteRange, r)
      })
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
    return this.durable(resp)
  }

  /** etcd's --metrics level (etcdserver/metrics.ts). */
  get metricsLevel(): 'basic' | 'extensive' {
    return this.opts.metrics
  }

  /** etcd's --max-txn-ops, which also bounds how deep a txn can nest (wire/txn.ts). */
  get maxTxnOps(): number {
    return this.opts.maxTxnOps
  }

  txn(r: TxnRequest, creds?: CallCredentials): Promise<TxnResponse> {
    return this.track(async () => {
      checkTxn(r, this.opts.maxTxnOps)
      const ai = this.authInfo(creds)
      if (isTxnReadonly(r)) {
        const started = performance.now()
        checkTxnAuth(this.authStore, this.lessor, ai, r)
        const rv = this.kv.read()
        try {
          const path = compareToPath(rv, r)
          checkTxnPath(rv, r, path, false, this.leaseExists)
          const responses: ResponseOp[] = []
          applyTxnOps(rv, r, path, responses)
          return { header: this.header(rv.rev()), succeeded: path[0] === true, responses }
        } finally {
          rv.endOps()
          this.stats.readDone(started)
        }
      }
      this.checkSize(txnSize(r))
      this.maintenance.checkQuota(costTxn(r))
      const { rev, succeeded, responses } = this.stats.apply('Txn', () => this.applyTxnWrite(r, ai))
      await this.kv.sync(rev)
      return { header: this.header(rev), succeeded, responses }
    })
  }

  /** The write half of txn(): the checks etcd makes when it applies the txn, then its ops in one write txn. */
  private applyTxnWrite(r: TxnRequest, ai: AuthInfo | undefined): { rev: number; succeeded: boolean; responses: ResponseOp[] } {
    checkTxnAuth(this.authStore, this.lessor, ai, r)
    const tw = this.kv.write()
    let rev: number
    let responses: ResponseOp[]
    let succeeded: boolean
    try {
      let path: boolean[]
      try {
        path = compareToPath(tw, r)
        checkTxnPath(tw, r, path, true, this.leaseExists)
      } finally {
        // etcd evaluates the compares and checks in a read txn of their own, then opens the write txn.
        tw.endOps()
      }
      succeeded = path[0] === true
      responses = []
      applyTxnOps(tw, r, path, responses)
    } finally {
      rev = tw.end()
      this.noteUnchanged(tw)
    }
    return { rev, succeeded, responses }
  }

  compact(r: CompactionRequest, creds?: CallCredentials): Promise<CompactionResponse> {
    return this.track(async () => {
      // etcd asks for no permission to compact; the token must still be valid.
      this.authInfo(creds)
      const before = this.kv.rev()
      let done: Promise<void>
      try {
        ;({ done } = await this.stats.applyAsync('Compaction', () => this.kv.compact(r.revision)))
      } finally {
        // Counted whether or not it succeeds: a refused compaction is an applied raft entry in etcd too.
        this.noteEntry(before)
      }
      if (r.physical === true) await done
      else done.catch(() => undefined)
      // etcd reads the current revision for the header with a Range (of the key "compaction"), which its
      // range counter counts.
      const rv = this.kv.read()
      const { rev } = rv.range(COMPACTION_KEY, undefined)
      rv.endOps()
      return { header: this.header(rev) }
    })
  }

  /**
   * Grant a lease. ID 0 (or none): the server picks a random positive ID. A TTL below the minimum is raised
   * to it (the response says so). Resolves once the lease is durable.
   */
  leaseGrant(r: LeaseGrantRequest, creds?: CallCredentials): Promise<LeaseGrantResponse> {
    return this.track(async () => {
      // Any user may grant a lease (no permission), but it must be a user; the token is read even while auth
      // is off, as for every call etcd sends through raft.
      this.authStore.isUserPresent(this.authInfo(creds))
      this.maintenance.checkQuota(LEASE_OVERHEAD)
      let id = r.id ?? 0n
      // etcd: the next request ID as a positive int64. The generator never repeats itself, but a lease
      // granted with an explicit ID may hold one it produces: skip those.
      while (id === 0n || (r.id ?? 0n) === 0n && this.lessor.exists(id)) id = this.idGen.next() & 0x7fff_ffff_ffff_ffffn
      const l = this.stats.apply('LeaseGrant', () => this.lessor.grant(id, r.ttl))
      this.maintenance.noteApplied()
      try {
        await this.backend.commit()
      } catch (err) {
        // The grant did not reach the disk (the backend now refuses writes): memory forgets it too.
        if (this.backend.failure !== undefined) this.lessor.forget(id)
        throw err
      }
      return { header: this.header(this.kv.durableRev()), id, ttl: l.ttl, error: '' }
    })
  }

  /** Revoke a lease: its keys are deleted in one txn (one revision). LEASE_NOT_FOUND if unknown. */
  leaseRevoke(r: LeaseRevokeRequest, creds?: CallCredentials): Promise<LeaseRevokeResponse> {
    return this.track(async () => {
      const ai = this.authInfo(creds)
      const l = this.lessor.lookup(r.id)
      const keys = l?.keys() ?? []
      const before = this.kv.rev()
      let rev: number
      try {
        rev = this.stats.apply('LeaseRevoke', () => {
          checkLeasePuts(this.authStore, this.lessor, ai, r.id)
          this.authStore.isUserPresent(ai)
          return this.lessor.revoke(r.id)
        })
      } finally {
        this.noteEntry(before)
      }
      try {
        await this.kv.sync(rev)
        await this.backend.commit()
      } catch (err) {
        // The revoke did not reach the disk; the store has undone the deletes of its keys.
        if (l !== undefined && this.backend.failure !== undefined) this.lessor.reinstate(l, keys)
        throw err
      }
      return { header: this.header(this.kv.durableRev()) }
    })
  }

  /**
   * Renew a lease (one LeaseKeepAlive message): its expiry restarts and the granted TTL comes back. An
   * unknown lease answers TTL 0, not an error; so does one past its expiry, which is revoked first.
   */
  leaseRenew(r: LeaseKeepAliveRequest, creds?: CallCredentials): Promise<LeaseKeepAliveResponse> {
    return this.track(async () => {
      this.checkAuthenticated(creds)
      // etcd fills the header before renewing.
      const header = this.header(this.kv.durableRev())
      const l = this.lessor.lookup(r.id)
      if (l === undefined) return { header, id: r.id, ttl: 0 }
      const ttl = this.lessor.renew(r.id)
      if (ttl !== undefined) return { header, id: r.id, ttl }
      await this.revokeExpired([l])
      return { header, id: r.id, ttl: 0 }
    })
  }

  /** Time left on a lease, in whole seconds; TTL -1 for an unknown lease (not an error). */
  leaseTimeToLive(r: LeaseTimeToLiveRequest, creds?: CallCredentials): LeaseTimeToLiveResponse {
    this.checkOpen()
    if (this.authStore.enabled) checkLeaseTimeToLiveAuth(this.authStore, this.lessor, this.authInfo(creds), r.id)
    const header = this.header(this.kv.durableRev())
    const l = this.lessor.lookup(r.id)
    if (l === undefined) return { header, id: r.id, ttl: -1, grantedTtl: 0, keys: [] }
    // Go's int64(Duration.Seconds()) truncates toward zero.
    const ttl = Math.trunc(l.remainingMs(this.lessor.now()) / 1000) || 0
    return { header, id: r.id, ttl, grantedTtl: l.ttl, keys: r.keys === true ? l.keys() : [] }
  }

  /** Every live lease, soonest expiry first. */
  leaseLeases(creds?: CallCredentials): LeaseLeasesResponse {
    this.checkOpen()
    this.checkAuthenticated(creds)
    return { header: this.header(this.kv.durableRev()), leases: this.lessor.leases().map((l) => ({ id: l.id })) }
  }

  /** Revoke leases the expiry loop found expired (or a renew found past expiry), then commit once. */
  private async revokeExpired(leases: readonly Lease[]): Promise<void> {
    if (this.closing !== undefined) return
    let rev = 0
    const revoked: [Lease, Uint8Array[]][] = []
    for (const l of leases) {
      if (l.revoked || !this.lessor.exists(l.id)) continue
      const before = this.kv.rev()
      try {
        const keys = l.keys()
        rev = Math.max(rev, this.stats.apply('LeaseRevoke', () => this.lessor.revoke(l.id)))
        revoked.push([l, keys])
      } catch (err) {
        // The lessor looks at it again after its retry interval.
        this.opts.onBackgroundError(err)
      } finally {
        this.noteEntry(before)
      }
    }
    try {
      await this.kv.sync(rev)
      await this.backend.commit()
    } catch (err) {
      // The revokes did not reach the disk; the store has undone the deletes of their keys.
      if (this.backend.failure !== undefined) for (const [l, keys] of revoked) this.lessor.reinstate(l, keys)
      throw err
    }
    // etcd counts an expired lease once its revoke has gone through.
    this.stats.leaseExpired += revoked.length
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
    this.authStore.isRangePermitted(this.authInfo(creds), key, rangeEnd)
  }

  // ---- Auth: who is calling ----

  /**
   * Who a call runs as (etcd's AuthInfoFromCtx): the user of its token, else the common name of its verified
   * client certificate, else nobody. A token that is unknown, expired or malformed fails with
   * INVALID_AUTH_TOKEN, even while auth is disabled (etcd does the same).
   */
  authInfo(creds: CallCredentials | undefined): AuthInfo | undefined {
    if (creds === undefined) return undefined
    if (creds.token !== undefined) {
      const ai = this.authStore.authInfoFromToken(creds.token)
      if (ai === undefined) throw new EtcdError('INVALID_AUTH_TOKEN')
      return ai
    }
    if (creds.commonName !== undefined) return { username: creds.commonName, revision: this.authStore.revision() }
    return undefined
  }

  /** Throws unless the caller holds the root role (no-op while auth is disabled): maintenance, membership, auth admin. */
  checkAdmin(creds: CallCredentials | undefined): void {
    this.authStore.isAdminPermitted(this.authInfo(creds))
  }

  /**
   * Throws USER_EMPTY unless the call comes from a user, INVALID_AUTH_TOKEN for a bad token. While auth is
   * disabled the credentials are not even read (Status, MemberList, keep-alives and LeaseLeases never read
   * them in etcd 3.4.23). See AuthStore.isUserPresent.
   */
  checkAuthenticated(creds: CallCredentials | undefined): void {
    if (this.authStore.enabled) this.authStore.isUserPresent(this.authInfo(creds))
  }
  // ---- end Auth ----

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

  /**
   * Run one write txn, synchronous from begin to end, and give its response the outer header. Even a txn
   * that changed nothing answers from the newest state, so its caller waits for durability too.
   */
  private applyWrite<Q, R>(apply: (tw: TxnWrite, r: Q, headerOf: HeaderOf) => R, r: Q): R {
    const tw = this.kv.write()
    try {
      return apply(tw, r, this.headerOf)
    } finally {
      tw.end()
      this.noteUnchanged(tw)
    }
  }

  /**
   * etcd appends every write request to its raft log, whether it changes anything or not (a delete of no
   * key, a txn whose branch only reads, one refused by a check when applied): count one that made no
   * revision in raftIndex (Status, etcd_server_proposals_*), and commit the count soon.
   */
  private noteUnchanged(tw: TxnWrite): void {
    // A backend that refuses writes has nothing to count into (the request failed with it).
    if (tw.changes().length !== 0 || this.backend.failure !== undefined) return
    this.maintenance.noteApplied()
    this.backend.commit().catch(() => undefined)
  }

  /**
   * Count one applied request that may have made a revision (a lease revoke deletes its keys in one): etcd
   * appends it to its raft log once, succeeded or not, and a revision already counts it in raftIndex.
   */
  private noteEntry(revBefore: number): void {
    if (this.kv.rev() !== revBefore || this.backend.failure !== undefined) return
    this.maintenance.noteApplied()
    this.backend.commit().catch(() => undefined)
  }

  /**
   * Resolve with `resp` once its revision is durable: one promise on the commit, counted as in flight
   * (close() waits for it) without an async wrapper per call.
   */
  private durable<R extends { readonly header: ResponseHeader }>(resp: R): Promise<R> {
    const rev = resp.header.revision
    if (this.kv.durableRev() >= rev) return Promise.resolve(resp)
    this.inflight++
    return this.kv.sync(rev).then(
      () => {
        this.untrack()
        return resp
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

  private checkSize(size: number): void {
    if (raftRequestSize(size) > this.opts.maxRequestBytes) throw new EtcdError('REQUEST_TOO_LARGE')
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

  private untrack(): void {
    this.inflight--
    if (this.inflight === 0 && this.drained !== undefined) this.drained()
  }
}
