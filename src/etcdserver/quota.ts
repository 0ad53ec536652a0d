// Mirrors etcd etcdserver/quota.go: what a request may add to the backend, charged before it runs, and the
// backend quota that refuses it (with the NOSPACE alarm its quota servers raise).
import type { Backend } from '../backend/backend.js'
import { EtcdError } from '../pkg/errors.js'
import type { AlarmStore } from './alarm-store.js'
import type { PutRequest, RequestOp, TxnRequest } from './types/kv.js'

/** etcd's DefaultQuotaBytes: the quota when --quota-backend-bytes is 0. */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024

/** etcd's kvOverhead: bytes charged per put on top of its key and value. */
export const KV_OVERHEAD = 256
/** etcd's leaseOverhead: bytes charged per LeaseGrant. */
export const LEASE_OVERHEAD = 64

/**
 * Free bytes a write must leave on the data directory's filesystem, else it is refused as over the quota
 * (NOSPACE): room for LevelDB to turn a full write buffer (classic-level's 4 MiB) into a table, which it
 * does in the background after the write was acknowledged.
 */
export const DISK_RESERVE_BYTES = 4 * 1024 * 1024

export const costPut = (r: PutRequest): number => KV_OVERHEAD + r.key.length + (r.value?.length ?? 0)

/** Puts of one branch (nested txns cost nothing, as in etcd, which counts only top-level RequestPut). */
const costOps = (ops: readonly RequestOp[]): number => {
  let n = 0
  for (const op of ops) if (op.type === 'put') n += costPut(op.request)
  return n
}

/** A txn costs its more expensive branch. */
export const costTxn = (r: TxnRequest): number => Math.max(costOps(r.success ?? []), costOps(r.failure ?? []))

/** What the quota needs from the server. */
export interface BackendQuotaHost {
  readonly backend: Backend
  /** The raised alarms, loaded before the server serves (a NOSPACE raised before a restart still holds). */
  readonly alarms: AlarmStore
  /** The member the NOSPACE alarm is raised for. */
  readonly memberId: bigint
  /** Count the raft entry that raising an alarm is in etcd. */
  noteApplied(): void
}

/**
 * etcd's backendQuota with its quotaKVServer/quotaLeaseServer check and capped applier: a write that would
 * take the backend past --quota-backend-bytes, or leave the disk too full, raises NOSPACE and is refused,
 * and so is every write while NOSPACE is raised. A commit that failed on a full disk raises it too.
 */
export class BackendQuota {
  private readonly host: BackendQuotaHost
  private readonly quotaBackendBytes: number

  /** `quotaBackendBytes` is etcd's --quota-backend-bytes: 0 means the default (2 GiB), a negative value no quota. */
  constructor(host: BackendQuotaHost, quotaBackendBytes: number) {
    this.host = host
    this.quotaBackendBytes = quotaBackendBytes
    // A commit that failed because the disk is full raises NOSPACE, in memory only: the backend refuses
    // writes until the alarm is disarmed (which reopens it), and a restart starts without it.
    host.backend.onFailure((err) => {
      if (err instanceof EtcdError && err.code === 'NO_SPACE') this.raiseNoSpace(false)
    })
  }

  /** The quota in bytes (Infinity when disabled). */
  get bytes(): number {
    const q = this.quotaBackendBytes
    return q < 0 ? Infinity : q === 0 ? DEFAULT_QUOTA_BYTES : q
  }

  /**
   * Throws NO_SPACE when a write that adds `cost` bytes may not proceed: the NOSPACE alarm is raised, or the
   * backend size plus `cost` reaches the quota, which raises the alarm for this member. A cost of 0 (no
   * puts) always passes. The disk is a quota too: a write that would leave less than DISK_RESERVE_BYTES
   * free on the data directory's filesystem raises the alarm the same way. Synchronous: call it before the
   * write begins.
   */
  check(cost: number): void {
    if (cost <= 0) return
    if (this.host.alarms.has('NOSPACE')) throw new EtcdError('NO_SPACE')
    const backend = this.host.backend
    if (backend.size() + cost < this.bytes && backend.freeBytes() - cost >= DISK_RESERVE_BYTES) return
    this.raiseNoSpace(true)
    throw new EtcdError('NO_SPACE')
  }

  /** Raise NOSPACE for this member, durable with the next commit unless `persist` is false. */
  private raiseNoSpace(persist: boolean): void {
    const { alarms, backend, memberId } = this.host
    if (alarms.has('NOSPACE')) return
    alarms.activate(memberId, 'NOSPACE', persist)
    if (!persist) return
    this.host.noteApplied()
    // Durable with the next commit; nobody waits for it (the write that raised it is refused).
    void backend.commit().catch(() => undefined)
  }
}
