// The raft index a one-member etcd would be at. etcd appends every request that goes through raft to its
// log, whether it changes a key or not; etcdlite has no log, so it counts one entry per revision (the store
// has those) plus every applied request that made no revision, kept in the backend's meta bucket so the
// count survives restarts. Status's raftIndex, the tokens' index and the v2 index all read it.
import type { Backend } from '../backend/backend.js'
import { readU64, u64 } from '../backend/meta-u64.js'
import { META } from '../backend/schema.js'
import type { KV, TxnWrite } from '../mvcc/kv.js'

/** What the count uses of the backend: its meta bucket, commits, and whether it refuses writes. */
export type AppliedIndexBackend = Pick<Backend, 'get' | 'put' | 'commit' | 'failure'>

export class AppliedIndex {
  private readonly kv: Pick<KV, 'rev'>
  private readonly backend: AppliedIndexBackend
  /** Applied requests that made no revision. */
  private extra: number

  constructor(kv: Pick<KV, 'rev'>, backend: AppliedIndexBackend) {
    this.kv = kv
    this.backend = backend
    this.extra = Number(readU64(backend.get('meta', META.extraIndex)) ?? 0n)
  }

  /** The raft index a one-member etcd would be at: one entry per revision and per applied revisionless request. */
  raftIndex(): number {
    return this.kv.rev() + this.extra
  }

  /**
   * Count one applied request that takes no revision (a lease grant or revoke, a compaction), so the raft
   * index grows with it as etcd's does. The count is buffered into the backend and becomes durable with the
   * caller's commit.
   */
  noteApplied(): void {
    this.extra++
    this.backend.put('meta', META.extraIndex, u64(BigInt(this.extra)))
  }

  /**
   * Count a write txn that made no revision (a delete of no key, a txn whose branch only reads, one refused
   * by a check when applied): etcd logs every write request, changed or not.
   */
  noteUnchanged(tw: Pick<TxnWrite, 'changes'>): void {
    if (tw.changes().length === 0) this.noteAppliedInBackground()
  }

  /**
   * Count one applied request that may have made a revision (a lease revoke deletes its keys in one): etcd
   * appends it to its raft log once, succeeded or not, and a revision already counts it.
   */
  noteEntry(revBefore: number): void {
    if (this.kv.rev() === revBefore) this.noteAppliedInBackground()
  }

  /**
   * Count one applied request and commit the count in the background (nobody waits for the count alone). A
   * backend that refuses writes has nothing to count into: the request failed with it, or answers without it.
   */
  noteAppliedInBackground(): void {
    if (this.backend.failure !== undefined) return
    this.noteApplied()
    this.backend.commit().catch(() => undefined)
  }
}
