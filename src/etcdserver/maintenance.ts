// Mirrors etcd etcdserver/api/v3rpc/maintenance.go with the parts of etcdserver it calls (the alarm applier
// in apply.go, server.go MoveLeader, v3_server.go Downgrade): status, hash/hashKV, defragment, snapshot,
// alarms, leader moves and downgrades, for a one-member server. The quota the NOSPACE alarm enforces is
// BackendQuota (quota.ts); the raft index Status reports is AppliedIndex (applied-index.ts).
import type { Backend } from '../backend/backend.js'
import type { AuthStore } from '../auth/store.js'
import { EtcdError } from '../pkg/errors.js'
import type { Logger } from '../pkg/logger.js'
import type { KV } from '../mvcc/kv.js'
import { alarmText, type AlarmStore } from './alarm-store.js'
import type { AppliedIndex } from './applied-index.js'
import type { CallerAuth } from './caller-auth.js'
import type { CallTracker } from './call-tracker.js'
import { Downgrader } from './downgrade.js'
import { hashBackend, hashByRev, type HashKVResult } from './hash.js'
import { majorMinor } from './metrics.js'
import type { ServerStats } from './server-stats.js'
import { secondsSince } from '../pkg/histogram.js'
import type { Member } from './types/cluster.js'
import type { CallCredentials } from './types/credentials.js'
import type { ResponseHeader } from './types/header.js'
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

/** What the Maintenance service uses of the server. */
export interface MaintenanceServer {
  readonly kv: KV
  readonly backend: Backend
  readonly memberId: bigint
  readonly raftTerm: number
  readonly stats: ServerStats
  /** The raised alarms, loaded before the server serves. */
  readonly alarms: AlarmStore
  /** Listing alarms needs a user, changing them the root role. */
  readonly authStore: Pick<AuthStore, 'isUserPresent' | 'isAdminPermitted'>
  readonly callerAuth: CallerAuth
  readonly appliedIndex: Pick<AppliedIndex, 'noteApplied' | 'noteAppliedInBackground' | 'raftIndex'>
  /** This member as MemberList shows it (the snapshot's membership). */
  self(): Member
  header(revision: number): ResponseHeader
  readonly calls: Pick<CallTracker, 'checkOpen'>
}

/** Status, hashes, defragment, snapshot, alarms, leader moves and downgrades over one EtcdServer. */
export class Maintenance {
  private readonly server: MaintenanceServer
  private readonly opts: MaintenanceOptions
  private readonly running = new Set<Promise<unknown>>()
  private readonly streams = new Set<AbortController>()
  private readonly downgrader: Downgrader

  constructor(server: MaintenanceServer, opts: MaintenanceOptions) {
    this.server = server
    this.opts = opts
    this.downgrader = new Downgrader({
      backend: server.backend,
      etcdVersion: opts.etcdVersion,
      noteApplied: () => server.appliedIndex.noteApplied(),
      logger: opts.logger,
    })
  }

  /** The etcd version Status (and /version, and the etcd_server_version metric) reports. */
  get etcdVersion(): string {
    return this.opts.etcdVersion
  }

  /** etcd's Status for this member (header at the newest durable revision). */
  status(creds?: CallCredentials): Promise<StatusResponse> {
    return this.track(() => {
      // Any user (etcd's hardening of CVE-2026-33413 and its relaxation for Status, etcd-io/etcd#21666).
      this.server.callerAuth.checkAuthenticated(creds)
      const kv = this.server.kv
      const dbSize = this.server.backend.size()
      const raftIndex = this.server.appliedIndex.raftIndex()
      return Promise.resolve({
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
      })
    })
  }

  /** CRC-32C over the whole backend (see hashBackend); header.revision is the current revision. */
  hash(creds?: CallCredentials): Promise<HashResponse> {
    return this.track(async () => {
      this.server.callerAuth.checkAdmin(creds)
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
      this.server.callerAuth.checkAdmin(creds)
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
      this.server.callerAuth.checkAdmin(creds)
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
    this.server.calls.checkOpen()
    this.server.callerAuth.checkAdmin(creds)
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
      const member = { ...this.server.self(), clusterVersion: `${majorMinor(this.opts.etcdVersion)}.0` }
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
      const ai = this.server.callerAuth.authInfo(creds)
      if (r.action === 'GET') this.server.authStore.isUserPresent(ai)
      else this.server.authStore.isAdminPermitted(ai)
      const alarms = this.server.alarms
      const memberId = r.memberId ?? 0n
      const type = r.alarm ?? 'NONE'
      if (r.action === 'GET') {
        // A list goes through etcd's raft log too: one more applied request.
        const listed = this.server.stats.apply('Alarm', () => ({ alarms: alarms.get(type) }))
        // Not counted on a database that refuses writes (a full disk): the list must still answer there.
        this.server.appliedIndex.noteAppliedInBackground()
        return listed
      }
      const changed = await this.server.stats.applyAsync('Alarm', async (): Promise<AlarmMember | undefined> => {
        if (r.action === 'ACTIVATE') return alarms.activate(memberId, type)
        // After a commit failed on a full disk, writes resume only once the database is reopened; if that
        // cannot be done yet (still too little room), the disarm fails with NO_SPACE and the alarm stays.
        if (type === 'NOSPACE') await this.server.backend.recover()
        return alarms.deactivate(memberId, type)
      })
      this.server.appliedIndex.noteApplied()
      await this.server.backend.commit()
      return { alarms: changed === undefined ? [] : [changed] }
    })
  }

  /** Every raised alarm (what Status lists), ordered by type, then member. */
  alarmList(): AlarmMember[] {
    return this.server.alarms.get('NONE')
  }

  /**
   * etcd's MoveLeader on a one-member cluster: moving to this member succeeds at once (it leads already);
   * any other ID is not a member and fails with BAD_LEADER_TRANSFEREE.
   */
  moveLeader(r: MoveLeaderRequest, creds?: CallCredentials): Promise<void> {
    return this.track(() => {
      // The root role (CVE-2026-33413; 3.4.23 let anyone).
      this.server.callerAuth.checkAdmin(creds)
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
      this.server.callerAuth.checkAdmin(creds)
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
  }

  /** Run a call, refusing it once the server is closing; close() waits for it. */
  private track<T>(fn: () => Promise<T>): Promise<T> {
    let p: Promise<T>
    try {
      this.server.calls.checkOpen()
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
