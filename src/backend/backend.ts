import type { Bucket } from './schema.js'

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
export interface Backend {
  /** Whether commits are synced to disk (false with --unsafe-no-fsync, and for memory). */
  readonly syncWrites: boolean
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
}
