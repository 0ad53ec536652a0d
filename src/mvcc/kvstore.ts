// Mirrors etcd mvcc/kvstore.go: the revisioned store over a Backend, with an in-memory key index.
import type { Backend } from '../backend/backend.js'
import type { LeaseItems } from '../lease/lessor.js'
import { META } from '../backend/schema.js'
import { invariant, verify } from '../pkg/verify.js'
import { CompactedError, FutureRevError } from './errors.js'
import type { Change, CompactResult, KV, KeyValue, LogRead, TxnObserver, TxnRead, TxnWrite } from './kv.js'
import { bytesToRev, revToBytes, type Revision } from './revision.js'
import { TreeIndex } from './tree-index.js'
import type { KeyIndex } from './key-index.js'
import { restoreIndex } from './kvstore-restore.js'
import { readRevisionLog } from './revision-log.js'
import { decodeStored, StoreTxnRead, StoreTxnWrite } from './kvstore-txn.js'
import { Compactor } from './kvstore-compaction.js'
import { compactionMarkers, dropCheckpoint, readCheckpoint, writeCheckpoint, type CheckpointState } from './index-checkpoint.js'
import { CHECKPOINT_KEYS_PER_TURN, CHECKPOINT_MIN_ENTRIES, IndexCheckpointer } from './index-checkpointer.js'
import { MvccMetrics } from './metrics.js'

export interface KvStoreOptions {
  /** Revision-log keys deleted per physical compaction step (etcd's CompactionBatchLimit). */
  readonly compactionBatchLimit: number
  /** Keys read per step when rebuilding the index on open (etcd's restoreChunkKeys). */
  readonly restoreChunkKeys: number
  /** The lessor: puts attach keys to leases, deletes detach them, restore re-attaches them. */
  readonly leases?: LeaseItems
  /**
   * Log entries written past the index checkpoint before a new one is written in the background, at the
   * least (see index-checkpointer.ts; persistent backends only).
   */
  readonly checkpointMinEntries: number
  /** Keys of the index the background checkpoint encodes per event-loop turn. */
  readonly checkpointKeysPerTurn: number
}

export const KVSTORE_DEFAULTS: KvStoreOptions = {
  compactionBatchLimit: 1000,
  restoreChunkKeys: 10000,
  checkpointMinEntries: CHECKPOINT_MIN_ENTRIES,
  checkpointKeysPerTurn: CHECKPOINT_KEYS_PER_TURN,
}

/**
 * KvStore: revisions, the key index and compaction over one Backend.
 *
 * Revisions: a fresh store is at revision 1. `rev()` counts every ended write txn; `durableRev()` trails
 * it until the backend commit that holds those writes completes. Reads (`read()`) are served at the
 * durable revision, so a read never sees a write that is not yet durable, and sees every write that
 * was acknowledged (acknowledgement waits for `sync`).
 */
export class KvStore implements KV {
  /** @internal */ readonly backend: Backend
  /** @internal */ readonly index = new TreeIndex()
  /** What the store counts for the metrics (mvcc/metrics.ts). */
  readonly metrics = new MvccMetrics()
  /** @internal */ readonly leases: LeaseItems | undefined
  private indexSource: 'checkpoint' | 'log' = 'log'
  private replayed = 0
  private currentRev = 1
  private compactMainRev = -1
  private durable = 1
  /**
   * Ended write txns past the durable revision, oldest first, kept for the rollback after a failed
   * commit. Every writer syncs its revision right after end(), so this holds what one or two commits
   * carry.
   */
  private undurable: { readonly rev: number; readonly changes: readonly Change[] }[] = []
  private readonly observers: TxnObserver[] = []
  private readonly compactor: Compactor
  /** Writes the index checkpoint in the background (persistent backends only). */
  private readonly checkpointer: IndexCheckpointer | undefined
  private closed = false

  private constructor(backend: Backend, opts: KvStoreOptions) {
    this.backend = backend
    this.leases = opts.leases
    this.compactor = new Compactor(this, opts.compactionBatchLimit)
    this.checkpointer = backend.persistent ? new IndexCheckpointer(this, opts.checkpointMinEntries, opts.checkpointKeysPerTurn) : undefined
    backend.onFailure(() => this.rollback())
  }

  /** Open a store over `backend`, rebuilding the key index from the revision log. */
  static async open(backend: Backend, opts: Partial<KvStoreOptions> = {}): Promise<KvStore> {
    const o = { ...KVSTORE_DEFAULTS, ...opts }
    const s = new KvStore(backend, o)
    await s.restore(o.restoreChunkKeys)
    return s
  }

  rev(): number {
    return this.currentRev
  }

  /** How the open rebuilt the key index: from the checkpoint and the log past it, or from the whole log. */
  get restoredFrom(): 'checkpoint' | 'log' {
    return this.indexSource
  }

  /** Log entries the open read: past the checkpoint, or the whole log. */
  get restoreReplayed(): number {
    return this.replayed
  }

  /** Index checkpoints written in the background since the open. */
  get checkpointsWritten(): number {
    return this.checkpointer?.checkpoints ?? 0
  }

  /** @internal Whether no compaction is scheduled or running. */
  get compactionIdle(): boolean {
    return this.compactor.idle
  }

  /** @internal The compactor's last job ended. */
  compactionDone(): void {
    this.checkpointer?.poke()
  }

  /** @internal A key's lease as the lessor has it (0n for none). */
  leaseOf(ki: KeyIndex): bigint {
    return this.leases?.leaseOfLatin1(ki.k) ?? 0n
  }

  /** @internal What a checkpoint of the index as it is now would claim (index-checkpoint.ts). */
  checkpointState(): CheckpointState {
    return { rev: this.currentRev, compactRev: this.compactMainRev, ...compactionMarkers(this.backend) }
  }

  durableRev(): number {
    return this.durable
  }

  compactRev(): number {
    return this.compactMainRev
  }

  keyCount(): number {
    return this.index.liveKeys
  }

  read(): TxnRead {
    return new StoreTxnRead(this, this.compactMainRev, this.durable)
  }

  write(): TxnWrite {
    this.checkOpen()
    // A write txn changes memory as it goes: refuse it before it starts while the backend refuses writes.
    const failure = this.backend.failure
    if (failure !== undefined) throw failure
    return new StoreTxnWrite(this, this.currentRev)
  }

  observe(o: TxnObserver): void {
    this.observers.push(o)
  }

  readLog(from: number, to: number, limit: number): Promise<LogRead> {
    return readRevisionLog(this.backend, from, to, limit)
  }

  keep(rev: number): Set<string> {
    return this.index.keep(rev)
  }

  async sync(rev: number): Promise<void> {
    if (this.durable >= rev) return
    await this.backend.commit()
    if (rev > this.durable) {
      this.durable = rev
      let n = 0
      while (n < this.undurable.length && (this.undurable[n] as { rev: number }).rev <= rev) n++
      if (n !== 0) this.undurable.splice(0, n)
      for (const o of this.observers) o.durable(rev)
    }
  }

  /**
   * Compact at `rev`: rev <= compacted revision -> CompactedError; rev > current -> FutureRevError.
   * The new compacted revision takes effect for reads at once; the index and physical passes run in the
   * background (FIFO) and `done` resolves when they finish.
   */
  async compact(rev: number): Promise<CompactResult> {
    this.checkCompact(rev)
    // The compact revision must be durable before reads depend on it (reads are served at durableRev).
    await this.sync(rev)
    this.checkCompact(rev)
    this.checkOpen()
    this.compactMainRev = rev
    this.checkpointer?.compacting()
    this.backend.put('meta', META.scheduledCompactRev, revToBytes({ main: rev, sub: 0 }))
    await this.backend.commit()
    return { done: this.compactor.schedule(rev) }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // The checkpointer first: a compaction ending during compactor.stop() would start a checkpoint.
    await this.checkpointer?.stop()
    await this.compactor.stop()
    if (this.backend.persistent) {
      try {
        writeCheckpoint(this.backend, this.checkpointState(), this.index.snapshot(), (ki) => this.leaseOf(ki))
      } catch {
        // A failed backend refuses writes; the next open rebuilds the index from the log.
      }
    }
    await this.backend.close()
  }

  /** @internal Called by StoreTxnWrite.end(): publish the revision and notify observers. */
  endWrite(changes: readonly Change[]): number {
    if (changes.length === 0) return this.currentRev
    this.currentRev++
    verify(() => this.verifyChanges(changes))
    this.checkpointer?.wrote(changes.length)
    this.undurable.push({ rev: this.currentRev, changes })
    for (const o of this.observers) o.txnEnded(this.currentRev, changes)
    return this.currentRev
  }

  /**
   * A commit failed (the backend dropped every write not yet durable): undo the txns past the durable
   * revision, newest change first, so that the index, the revision, the keys' leases and the watchers
   * agree with the disk again. The revisions are used again by the next writes.
   */
  private rollback(): void {
    const touched = new Map<string, Uint8Array>()
    for (let i = this.undurable.length - 1; i >= 0; i--) {
      const { rev, changes } = this.undurable[i] as { rev: number; changes: readonly Change[] }
      for (let sub = changes.length - 1; sub >= 0; sub--) {
        const key = (changes[sub] as Change).kv.key
        this.index.unwind(key, { main: rev, sub })
        touched.set(Buffer.from(key).toString('latin1'), key)
      }
    }
    this.undurable = []
    this.currentRev = this.durable
    const le = this.leases
    if (le !== undefined) {
      for (const key of touched.values()) {
        const at = this.index.get(key, this.durable)
        const lease = at === undefined ? 0n : this.readRevision(at.modified).lease
        const now = le.leaseOf(key)
        if (now === lease) continue
        if (now !== 0n) le.detach(now, key)
        if (lease !== 0n) le.attach(lease, key)
      }
    }
    for (const o of this.observers) o.rolledBack(this.durable)
  }

  /** The index agrees with the txn just ended: each changed key's last change is what it now reads as. */
  private verifyChanges(changes: readonly Change[]): void {
    const last = new Map<string, Change>()
    for (const c of changes) last.set(Buffer.from(c.kv.key).toString('latin1'), c)
    for (const c of last.values()) {
      const at = this.index.get(c.kv.key, this.currentRev)
      if (c.type === 'put') {
        invariant(at !== undefined && at.modified.main === this.currentRev && at.version === c.kv.version, 'index disagrees with a put')
        invariant(at.created.main === c.kv.createRevision, 'index disagrees with a create revision')
      } else invariant(at === undefined, 'index still has a deleted key')
    }
  }

  /** @internal Point-read the value stored at a (non-tombstone) revision. */
  readRevision(rev: Revision): KeyValue {
    return decodeStored(this.backend.get('key', revToBytes(rev)), rev)
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('mvcc: store is closed')
  }

  private checkCompact(rev: number): void {
    if (rev <= this.compactMainRev) throw new CompactedError()
    if (rev > this.currentRev) throw new FutureRevError()
  }

  /** Rebuild the key index from the revision log (etcd's restore), then resume an unfinished compaction. */
  private async restore(chunk: number): Promise<void> {
    const finished = this.backend.get('meta', META.finishedCompactRev)
    if (finished !== undefined) this.compactMainRev = bytesToRev(finished).main
    const scheduledRaw = this.backend.get('meta', META.scheduledCompactRev)
    const scheduled = scheduledRaw === undefined ? 0 : bytesToRev(scheduledRaw).main

    // The index as a checkpoint left it, if it describes this log (see index-checkpoint.ts), and the log past it.
    const found = {
      // What finishRestore makes the compacted revision: an unfinished scheduled compaction counts.
      compactRev: scheduled !== 0 && scheduled > this.compactMainRev ? scheduled : this.compactMainRev,
      ...compactionMarkers(this.backend),
    }
    const cp = this.backend.persistent ? readCheckpoint(this.backend, found) : undefined
    const { last, entries } = await restoreIndex(this.backend, this.index, this.leases, chunk, cp)
    this.indexSource = cp === undefined ? 'log' : 'checkpoint'
    this.replayed = entries
    // A checkpoint that does not describe this log is of no further use.
    if (cp === undefined && dropCheckpoint(this.backend)) await this.backend.commit()
    this.finishRestore(last, scheduled)
    this.checkpointer?.opened(entries)
  }

  /** Set the revisions after a restore, then resume an unfinished compaction. */
  private finishRestore(last: number, scheduled: number): void {
    this.currentRev = Math.max(last, this.compactMainRev, 1)
    this.durable = this.currentRev
    if (scheduled <= this.compactMainRev) scheduled = 0
    if (scheduled !== 0) {
      this.compactMainRev = scheduled
      this.checkpointer?.compacting()
      void this.compactor.schedule(scheduled).catch(() => undefined)
    }
  }
}
