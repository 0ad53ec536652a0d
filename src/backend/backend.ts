import type { Bucket } from './schema.js'
import type { CommitTimes } from './commit-times.js'

/** One stored entry. */
export interface Entry {
  readonly key: Uint8Array
  readonly value: Uint8Array
}

/**
 * Durable bytes, the contract of etcd's mvcc/backend over LevelDB.
 *
 * Writes are buffered synchronously (no await inside a critical section) and become durable on
 * {@link Backend.commit}. Writes that arrive while a commit is in flight share the next batch (group
 * commit). Point reads are synchronous and see buffered writes, like etcd's read tx over the write buffer.
 */
export interface Backend extends BackendFailure, BackendMaintenance {
  /** Whether commits are synced to disk (false with --unsafe-no-fsync, and for memory). */
  readonly syncWrites: boolean
  /** Whether the data outlives the process (a database on disk), so a later open can read what close() leaves. */
  readonly persistent: boolean
  /** Synchronous point read; sees writes not yet committed. */
  get(bucket: Bucket, key: Uint8Array): Uint8Array | undefined
  /** Buffer a put; durable after the next commit resolves. */
  put(bucket: Bucket, key: Uint8Array, value: Uint8Array): void
  /** Buffer a delete; durable after the next commit resolves. */
  del(bucket: Bucket, key: Uint8Array): void
  /** Resolves once every write buffered before the call is durable; rejects if the database failed. */
  commit(): Promise<void>
  /**
   * Committed entries with gte <= key < lt in key order, at most `limit` of them. Buffered writes are not
   * seen: callers scan only ranges they have committed.
   */
  scan(bucket: Bucket, gte: Uint8Array, lt: Uint8Array, limit: number): Promise<Entry[]>
  /** Commit what is buffered, then close the database. Idempotent. */
  close(): Promise<void>
  /** How long each commit took: write and sync (etcd_disk_backend_commit_duration_seconds, the WAL histograms). */
  readonly commitTimes: CommitTimes
  /**
   * Bytes the commits so far handed to the database's write-ahead log, as estimated for size() (entry keys,
   * values and per-op framing; etcd_disk_wal_write_bytes_total).
   */
  readonly writtenLogBytes: number
}

/**
 * A commit that did not reach the disk: the backend refuses writes from then on, its owner undoes what memory
 * holds of the lost writes, and recover() reopens the database.
 */
export interface BackendFailure {
  /**
   * Why writes are refused, from the first failed commit until {@link Backend.recover} succeeds; undefined
   * while writes are accepted. A commit that failed because the disk is full is `EtcdError('NO_SPACE')`
   * with the database's error as its cause.
   */
  readonly failure: Error | undefined
  /**
   * Called once per failed commit, synchronously, after the failed batches are dropped (reads see only
   * what is on disk) and before any committer's promise rejects: the owner of in-memory state derived
   * from those writes undoes it here.
   */
  onFailure(listener: (err: Error) => void): void
  /**
   * After a failed commit: reopen the database in place, so that writes go to a fresh write-ahead log
   * (LevelDB's log after a failed append may hold a torn record, and a record appended after it is lost
   * at the next open). Resolves once writes are accepted again (at once if nothing failed); rejects, still
   * failed, when the database cannot be opened (e.g. too little free space).
   */
  recover(): Promise<void>
  /**
   * Free bytes on the database's filesystem for this process, as last measured (with size()) minus what
   * was written since; Infinity for a database in memory.
   */
  freeBytes(): number
}

/** Size, snapshot and defragment (etcd's backend Size, Snapshot and Defrag). */
export interface BackendMaintenance {
  /**
   * Bytes the database occupies, as last measured plus an estimate of what was written since (etcd's
   * backend Size()). Synchronous and cheap: the quota check calls it before every write. How each kind of
   * database is measured is said by the implementation (LevelBackend: files on disk, or entry bytes).
   */
  size(): number
  /** Measure the size again now (after committing what is buffered); size() then reflects it. */
  refreshSize(): Promise<void>
  /**
   * A consistent read-only view of everything committed when it is called (buffered writes are not in it:
   * commit first to include them). Reads from it never see later writes, deletes or compaction. Close it
   * when done; closing the backend closes it too.
   */
  snapshot(): BackendSnapshot
  /** Reclaim space (etcd's Defrag): rewrites the store compactly where the database can, then re-measures. */
  defragment(): Promise<void>
}

/** A point-in-time view of a Backend (see {@link Backend.snapshot}). */
export interface BackendSnapshot extends AsyncDisposable {
  /**
   * Entries of `bucket` in key order, in chunks, as they were when the snapshot was taken. `gte`/`lt`
   * bound the keys (absent: the whole bucket). Breaking out of the loop releases the underlying iterator.
   */
  entries(bucket: Bucket, gte?: Uint8Array, lt?: Uint8Array): AsyncIterable<readonly Entry[]>
  /** Release the snapshot. Idempotent. */
  close(): Promise<void>
}
