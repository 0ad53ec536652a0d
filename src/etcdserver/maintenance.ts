// Mirrors etcd etcdserver/api/v3rpc/maintenance.go with the parts of etcdserver it calls (quota.go, the
// alarm applier in apply.go, server.go MoveLeader): status, hash/hashKV, defragment, snapshot, alarms and
// the backend quota, for a one-member server.
import { META } from '../backend/schema.js'
import { readU64, u64 } from '../backend/meta-u64.js'
import { EtcdError } from '../pkg/errors.js'
import type { Logger } from '../pkg/logger.js'
import type { EtcdServer } from './etcd-server.js'
import { AlarmStore, alarmText } from './alarm-store.js'
import { Cluster } from './cluster.js'
import { DISK_RESERVE_BYTES } from './quota.js'
import { Downgrader } from './downgrade.js'
import { hashBackend, hashByRev, type HashKVResult } from './hash.js'
import { majorMinor } from './metrics.js'
import { secondsSince } from '../pkg/histogram.js'
import type { CallCredentials } from './types/credentials.js'
import type {
  AlarmMember, AlarmRequest, AlarmResponse, DowngradeInfo, DowngradeRequest, DowngradeResponse, HashKVRequest,
  HashKVResponse, HashResponse, MoveLeaderRequest, SnapshotChunk, StatusResponse,
} from './types/maintenance.js'

export interface MaintenanceOptions {
  /**
   * etcd's --quota-backend-bytes: writes that would take the backend to this size or past it fail with
   * NO_SPACE and raise the NOSPACE alarm. 0 means the default (2 GiB); a negative value disables the quota
   * (a raised NOSPACE alarm still refuses writes).
   */
  readonly quotaBackendBytes: number
  /** The etcd version Status reports (clients gate features on it). */
  readonly etcdVersion: string
  /** Where the lines etcd logs from maintenance calls go (the downgrade ones); none by default. */
  readonly logger?: Logger | undefined
}

export const MAINTENANCE_DEFAULTS: MaintenanceOptions = { quotaBackendBytes: 0, etcdVersion: '3.5.17' }

/** etcd's DefaultQuotaBytes: the quota when --quota-backend-bytes is 0. */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024



/**
 * Status, hashes, defragment, snapshot, alarms and the quota over one EtcdServer. Alarms are loaded from
 * the backend by {@link Maintenance.restore}, which the server awaits before serving.
 */
export class Maintenance {
  /** The Cluster service's core (member list; membership cannot change). */
  readonly cluster: Cluster
  private readonly server: EtcdServer
  private readonly opts: MaintenanceOptions
  private alarms: AlarmStore | undefined
  private readonly restored: Promise<void>
  private readonly running = new Set<Promise<unknown>>()
  private readonly streams = new Set<AbortController>()
  private readonly downgrader: Downgrader
  private extraIndex: number

  constructor(server: EtcdServer, opts: MaintenanceOptions) {
    this.server = server
    this.opts = opts
    this.cluster = new Cluster(server)
    this.extraIndex = Number(readU64(server.backend.get('meta', META.extraIndex)) ?? 0n)
    this.downgrader = new Downgrader({
      backend: server.backend,
      etcdVersion: opts.etcdVersion,
      noteApplied: () => this.noteApplied(),
      logger: opts.logger,
    })
    this.restored = AlarmStore.open(server.backend).then((a) => {
      this.alarms = a
    })
    // A commit that failed because the disk is full raises NOSPACE, in memory only: the backend refuses
    // writes until the alarm is disarmed (which reopens it), and a restart starts without it.
    server.backend.onFailure((err) => {
      if (err instanceof EtcdError && err.code === 'NO_SPACE') this.raise({ memberId: server.memberId, alarm: 'NOSPACE' }, false)
    })
    // Surfaced by restore() and by every call that needs the alarms.
    this.restored.catch(() => undefined)
  }

  /**
   * Resolves once the persisted alarms are loaded (etcd's restoreAlarms). Until then the quota check
   * cannot see a NOSPACE alarm raised before a restart, so the server awaits this before it serves.
   */
  restore(): Promise<void> {
    return this.restored
  }

  /** The quota in bytes (Infinity when disabled). */
  get quotaBytes(): number {
    const q = this.opts.quotaBackendBytes
    return q < 0 ? Infinity : q === 0 ? DEFAULT_QUOTA_BYTES : q
  }

  /** The etcd version Status (and /version, and the etcd_server_version metric) reports. */
  get etcdVersion(): string {
    return this.opts.etcdVersion
  }

  /**
   * etcd's quotaKVServer/quotaLeaseServer check plus its capped applier. Throws NO_SPACE when a write that
   * adds `cost` bytes may not proceed: the NOSPACE alarm is raised, or the backend size plus `cost` reaches
   * the quota, which raises the alarm for this member. A cost of 0 (no puts) always passes. Costs (etcd's
   * quota.go): Put 256 + key + value bytes; Txn the larger of its success and failure branches' puts;
   * LeaseGrant 64. The disk is a quota too: a write that would leave less than DISK_RESERVE_BYTES free
   * on the data directory's filesystem raises the alarm the same way. Synchronous: call it before the
   * write begins.
   */
  checkQuota(cost: number): void {
    if (cost <= 0) return
    if (this.alarms?.has('NOSPACE') === true) throw new EtcdError('NO_SPACE')
    const backend = this.server.backend
    if (backend.size() + cost < this.quotaBytes && backend.freeBytes() - cost >= DISK_RESERVE_BYTES) return
    this.raise({ memberId: this.server.memberId, alarm: 'NOSPACE' })
    throw new EtcdError('NO_SPACE')
  }

  /**
   * Count one applied request that takes no revision (a lease grant or revoke, a compaction), so
   * Status's raftIndex grows with it as etcd's does. The count is buffered into the backend and becomes
   * durable with the caller's commit.
   */
  noteApplied(n = 1): void {
    this.extraIndex += n
    this.server.backend.put('meta', META.extraIndex, u64(BigInt(this.extraIndex)))
  }

  /** The raft index a one-member etcd would be at: one entry per revision and per applied revisionless request. */
  raftIndex(): number {
    return this.server.kv.rev() + this.extraIndex
  }

  /** etcd's Status for this member (header at the newest durable revision). */
  status(creds?: CallCredentials): Promise<StatusResponse> {
    return this.track(async () => {
      // Any user (etcd's hardening of CVE-2026-33413 and its relaxation for Status, etcd-io/etcd#21666).
      this.server.checkAuthenticated(creds)
      await this.restored
      const kv = this.server.kv
      const dbSize = this.server.backend.size()
      const raftIndex = this.raftIndex()
      return {
        header: this.server.header(kv.durableRev()),
        version: this.opts.etcdVersion,
        dbSize,
        dbSizeInUse: dbSize,
        leader: this.server.memberId,
        raftIndex,
        raftTerm: this.server.raftTerm,
        raftAppliedIndex: raftIndex,
        errors: this.alarmList().map(alarmText),
        isLearner: false,
      }
    })
  }

  /** CRC-32C over the whole backend (see hashBackend); header.revision is the current revision. */
  hash(creds?: CallCredentials): Promise<HashResponse> {
    return this.track(async () => {
      this.server.checkAdmin(creds)
      const started = performance.now()
      const rev = this.server.kv.rev()
      await this.server.kv.sync(rev)
      const hash = await hashBackend(this.server.backend)
      this.server.kv.metrics.hashSec.observe(secondsSince(started))
      return { header: this.server.header(rev), hash }
    })
  }

  /**
   * etcd's HashKV (HashByRev, see hash.ts): revision 0 or absent hashes up to the current revision; a
   * compacted revision fails with COMPACTED, a future one with FUTURE_REV.
   */
  hashKV(r: HashKVRequest = {}, creds?: CallCredentials): Promise<HashKVResponse> {
    return this.track(async () => {
      this.server.checkAdmin(creds)
      const started = performance.now()
      const res = await hashByRev(this.server.kv, this.server.backend, r.revision ?? 0)
      this.server.kv.metrics.hashRevSec.observe(secondsSince(started))
      return { header: this.server.header(res.revision), hash: res.hash, compactRevision: res.compactRevision }
    })
  }

  /**
   * The server's own HashByRev at the current revision, with no caller to authorize: what etcd's corruption
   * checker computes (it reads every revision kept, so a store it cannot read fails here).
   */
  localHash(): Promise<HashKVResult> {
    return this.track(() => hashByRev(this.server.kv, this.server.backend, 0))
  }

  /** Reclaim backend space (see Backend.defragment); allowed while NOSPACE is raised, as in etcd. */
  defragment(creds?: CallCredentials): Promise<void> {
    return this.track(async () => {
      this.server.checkAdmin(creds)
      const stats = this.server.stats
      const started = performance.now()
      stats.defragInflight = 1
      try {
        await this.server.backend.defragment()
      } finally {
        stats.defragInflight = 0
        stats.defragSec.observe(secondsSince(started))
      }
    })
  }

  /**
   * Stream a consistent snapshot of the backend as etcd's bbolt file (see snapshot.ts): what `etcdctl
   * snapshot save` stores, and `etcdctl snapshot restore` turns into a data dir for a real etcd. The first chunk's header names the newest revision in it. The stream ends with STOPPED
   * when the server closes, and with the signal's reason when it aborts; breaking out releases it.
   */
  async *snapshot(signal?: AbortSignal, creds?: CallCredentials): AsyncGenerator<SnapshotChunk> {
    this.checkOpen()
    this.server.checkAdmin(creds)
    const ac = new AbortController()
    const onAbort = (): void => ac.abort(signal?.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    if (signal?.aborted === true) onAbort()
    this.streams.add(ac)
    const started = performance.now()
    try {
      const kv = this.server.kv
      const rev = kv.rev()
      await kv.sync(rev)
      const member = { ...this.cluster.self(), clusterVersion: `${majorMinor(this.opts.etcdVersion)}.0` }
      // The bbolt writer loads with the first snapshot taken.
      const { snapshotStream } = await import('./snapshot.js')
      yield* snapshotStream(this.server.backend, this.server.header(rev), member, ac.signal)
    } finally {
      this.server.stats.snapshotSec.observe(secondsSince(started))
      this.streams.delete(ac)
      signal?.removeEventListener('abort', onAbort)
    }
  }

  /**
   * etcd's Alarm. GET lists raised alarms of a type (NONE: all). ACTIVATE raises an alarm for a member and
   * answers with it (nothing for type NONE, following etcd-io/etcd#13084); DEACTIVATE clears it and answers
   * with it (nothing if it was not raised). Raising NOSPACE refuses writes until it is cleared.
   */
  alarm(r: AlarmRequest, creds?: CallCredentials): Promise<AlarmResponse> {
    return this.track(async () => {
      // Listing alarms needs a user, raising or clearing them the root role (CVE-2026-33413; 3.4.23 let anyone).
      // The token is read even while auth is off, as for every call etcd sends through raft.
      const ai = this.server.authInfo(creds)
      if (r.action === 'GET') this.server.authStore.isUserPresent(ai)
      else this.server.authStore.isAdminPermitted(ai)
      await this.restored
      const alarms = this.loadedAlarms()
      const memberId = r.memberId ?? 0n
      const type = r.alarm ?? 'NONE'
      if (r.action === 'GET') {
        // A list goes through etcd's raft log too: one more applied request.
        const listed = this.server.stats.apply('Alarm', () => ({ alarms: alarms.get(type) }))
        // Not on a database that refuses writes (a full disk): the list must still answer there.
        if (this.server.backend.failure === undefined) {
          this.noteApplied()
          this.server.backend.commit().catch(() => undefined)
        }
        return listed
      }
      const changed = await this.server.stats.applyAsync('Alarm', async (): Promise<AlarmMember | undefined> => {
        if (r.action === 'ACTIVATE') return alarms.activate(memberId, type)
        // After a commit failed on a full disk, writes resume only once the database is reopened; if that
        // cannot be done yet (still too little room), the disarm fails with NO_SPACE and the alarm stays.
        if (type === 'NOSPACE') await this.server.backend.recover()
        return alarms.deactivate(memberId, type)
      })
      this.noteApplied()
      await this.server.backend.commit()
      return { alarms: changed === undefined ? [] : [changed] }
    })
  }

  /** Every raised alarm (what Status lists), ordered by type, then member. Empty until restored. */
  alarmList(): AlarmMember[] {
    return this.alarms?.get('NONE') ?? []
  }

  /**
   * etcd's MoveLeader on a one-member cluster: moving to this member succeeds at once (it leads already);
   * any other ID is not a member and fails with BAD_LEADER_TRANSFEREE.
   */
  moveLeader(r: MoveLeaderRequest, creds?: CallCredentials): Promise<void> {
    return this.track(() => {
      // The root role (CVE-2026-33413; 3.4.23 let anyone).
      this.server.checkAdmin(creds)
      if (r.targetId !== this.server.memberId) throw new EtcdError('BAD_LEADER_TRANSFEREE')
      return Promise.resolve()
    })
  }

  /**
   * etcd's Downgrade (see downgrade.ts): VALIDATE answers with the cluster version or fails; ENABLE and
   * CANCEL take effect and answer with it, as in etcd 3.6. The root role, once auth is on (etcd's
   * hardening of CVE-2026-33413; 3.5.17 let anyone).
   */
  downgrade(r: DowngradeRequest, creds?: CallCredentials): Promise<DowngradeResponse> {
    return this.track(async () => {
      this.server.checkAdmin(creds)
      const res = await this.downgrader.downgrade(r)
      return { header: this.server.header(this.server.kv.rev()), version: res.version }
    })
  }

  /** The downgrade info: what etcd 3.5 keeps in its backend and serves to peers at /downgrade/enabled. */
  downgradeInfo(): DowngradeInfo {
    return this.downgrader.info()
  }

  /**
   * End snapshot streams (they fail with STOPPED) and wait for the other calls in flight, which finish on
   * their own. The server calls this before it closes the backend.
   */
  async close(): Promise<void> {
    for (const ac of this.streams) ac.abort(new EtcdError('STOPPED'))
    await Promise.allSettled([...this.running])
    await this.restored.catch(() => undefined)
  }

  private raise(m: AlarmMember, persist = true): void {
    const alarms = this.alarms
    if (alarms === undefined || alarms.has(m.alarm)) return
    alarms.activate(m.memberId, m.alarm, persist)
    if (!persist) return
    this.noteApplied()
    // Durable with the next commit; nobody waits for it (the write that raised it is refused).
    void this.server.backend.commit().catch(() => undefined)
  }

  private loadedAlarms(): AlarmStore {
    if (this.alarms === undefined) throw new Error('maintenance: alarms are not loaded')
    return this.alarms
  }

  private checkOpen(): void {
    if (this.server.closed) throw new EtcdError('STOPPED')
  }

  /** Run a call, refusing it once the server is closing; close() waits for it. */
  private track<T>(fn: () => Promise<T>): Promise<T> {
    let p: Promise<T>
    try {
      this.checkOpen()
      p = fn()
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
    this.running.add(p)
    const done = (): void => {
      this.running.delete(p)
    }
    void p.then(done, done)
    return p
  }
}
