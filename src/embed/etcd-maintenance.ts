// The embedded Etcd's Maintenance and Cluster services: status, hashes, defragment, snapshots out and in,
// alarms, leadership, downgrade, and the one-member MemberList.
import type { MemberListRequest, MemberListResponse } from '../etcdserver/types/cluster.js'
import type {
  AlarmMember, AlarmRequest, AlarmResponse, DowngradeRequest, DowngradeResponse, HashKVRequest, HashKVResponse,
  HashResponse, MoveLeaderRequest, StatusResponse,
} from '../etcdserver/types/maintenance.js'
import { EtcdConcurrency } from './etcd-concurrency.js'
import { checkRequest, checkSignalOptions, checkString, type Input } from './input.js'
import type { EtcdOptions } from './options.js'
import { loadSnapshot } from './restore-snapshot.js'

export abstract class EtcdMaintenance extends EtcdConcurrency {
  /** etcd's Status: version, db size, leader (this member), raft index and term, raised alarms. */
  status(): Promise<StatusResponse> {
    return this.server.maintenance.status(this.creds)
  }

  /** CRC-32C over the whole backend (etcd's Hash). */
  hash(): Promise<HashResponse> {
    return this.server.maintenance.hash(this.creds)
  }

  /**
   * etcd's HashKV: CRC-32C over the revision log up to `revision` (0 or absent: the current one), equal to
   * real etcd's for the same history and stable across restarts. Rejects with COMPACTED or FUTURE_REV.
   */
  hashKV(req: HashKVRequest = {}): Promise<HashKVResponse> {
    return this.checked('hashKV', req, (r) => this.server.maintenance.hashKV(r, this.creds))
  }

  /** Reclaim space: compacts LevelDB (classic-level) and measures the size again. */
  defragment(): Promise<void> {
    return this.server.maintenance.defragment(this.creds)
  }

  /**
   * A consistent snapshot of the data as a byte stream: exactly the file `etcdctl snapshot save` writes,
   * etcd's bbolt database ending in its SHA-256. Start a server from it with the `restoreSnapshot` option
   * or `etcdlite --restore-snapshot`, or a real etcd after `etcdctl snapshot restore`. `break` or the
   * signal stops it; close() ends it with STOPPED.
   */
  snapshot(opts: { readonly signal?: AbortSignal } = {}): AsyncGenerator<Uint8Array> {
    // Checked here, so a wrong signal throws at the call rather than at the first chunk.
    return this.snapshotChunks(checkSignalOptions('snapshot', opts).signal)
  }

  private async *snapshotChunks(signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
    for await (const chunk of this.server.maintenance.snapshot(signal, this.creds)) yield chunk.blob
  }

  /**
   * Prepare a server that starts from a snapshot file (written by `etcdctl snapshot save` from etcdlite or a
   * real etcd, or by snapshot()): its keys, revisions, compaction state, leases, users, roles, auth and
   * alarms come back; the member gets new IDs, as after etcd's `snapshot restore`. Resolves with the options to open it with:
   * `await openEtcd(await Etcd.restoreSnapshot('snap.db', { dataDir: 'new.etcdlite' }))`.
   * On disk, `dataDir` must not exist or be empty: the data is loaded into `<dataDir>.restoring`, then
   * renamed into place. With `memory` (or a given `db`) the data is loaded into the database the returned
   * options carry. Rejects (changing nothing) if the file is damaged or not a snapshot.
   */
  static async restoreSnapshot(file: string, opts: EtcdOptions = {}): Promise<EtcdOptions> {
    checkString('restoreSnapshot', 'file', file)
    checkRequest('restoreSnapshot', opts)
    return loadSnapshot(file, opts)
  }

  /** etcd's Alarm RPC: GET, ACTIVATE or DEACTIVATE an alarm (see AlarmRequest). */
  alarm(req: Input<AlarmRequest>): Promise<AlarmResponse> {
    return this.checked('alarm', req, (r) => this.server.maintenance.alarm(r, this.creds))
  }

  /** Every raised alarm (`etcdctl alarm list`). */
  async alarmList(): Promise<AlarmMember[]> {
    return (await this.server.maintenance.alarm({ action: 'GET' }, this.creds)).alarms
  }

  /**
   * Clear every raised alarm, as `etcdctl alarm disarm` does (a NOSPACE alarm comes back at the next write
   * if the backend is still over its quota). Resolves with the alarms cleared.
   */
  async alarmDisarm(): Promise<AlarmMember[]> {
    const m = this.server.maintenance
    const cleared: AlarmMember[] = []
    for (const a of (await m.alarm({ action: 'GET' }, this.creds)).alarms) {
      cleared.push(...(await m.alarm({ action: 'DEACTIVATE', memberId: a.memberId, alarm: a.alarm }, this.creds)).alarms)
    }
    return cleared
  }

  /** Move leadership: succeeds for this member's ID, fails with BAD_LEADER_TRANSFEREE for any other. */
  moveLeader(req: Input<MoveLeaderRequest>): Promise<void> {
    return this.checked('moveLeader', req, (r) => this.server.maintenance.moveLeader(r, this.creds))
  }

  /**
   * etcd 3.5's Downgrade. VALIDATE (the default) resolves with the cluster version ("3.5.0") when
   * `version` is the one allowed target (the previous minor version, "3.4" or "3.4.x") and no downgrade
   * is in progress; it rejects with WRONG_DOWNGRADE_VERSION_FORMAT, INVALID_DOWNGRADE_TARGET_VERSION or
   * DOWNGRADE_IN_PROCESS otherwise. ENABLE makes the same checks and starts the downgrade; CANCEL stops
   * it (NO_INFLIGHT_DOWNGRADE when none is enabled); both resolve with the cluster version, as etcd 3.6's
   * do. The root role once auth is on.
   */
  downgrade(req: Input<DowngradeRequest> = {}): Promise<DowngradeResponse> {
    return this.checked('downgrade', req, (r) => this.server.maintenance.downgrade(r, this.creds))
  }

  /** This member, as `etcdctl member list` shows it. `linearizable` is accepted as etcd 3.5 takes it. */
  memberList(req: Input<MemberListRequest> = {}): Promise<MemberListResponse> {
    return this.checked('memberList', req, (r) => this.server.cluster.memberList(r, this.creds))
  }
}
