// Contracts of the MVCC store, as etcd's mvcc/kv.go. Implementations: kvstore.ts, kvstore-txn.ts, and for
// the revision log's reader revision-log.ts.
import type { RangeEnd } from '../pkg/bytes.js'
import type { WireKeyValue } from '../wire/keyvalue.js'
import type { MvccMetrics } from './metrics.js'

/**
 * A key-value pair at some revision (mvccpb.KeyValue): key, value, create_revision, mod_revision, version
 * (puts since creation) and lease (0n when none). Its wire form lives in wire/keyvalue.ts.
 */
export type KeyValue = WireKeyValue

export interface RangeOptions {
  /** At most this many kvs; 0 or less means no limit. `count` still counts every match. */
  readonly limit?: number
  /** Read at this revision; 0 or less means the view's revision. */
  readonly rev?: number
  /** Return only the count. */
  readonly count?: boolean
}

export interface RangeResult {
  readonly kvs: KeyValue[]
  /** The view's revision (not the requested one), as etcd reports it. */
  readonly rev: number
  /** Number of keys that matched, before any limit. */
  readonly count: number
}

/** One change made by a write txn: a put (full kv) or a delete (kv holds only the key). */
export interface Change {
  readonly type: 'put' | 'delete'
  readonly kv: KeyValue
}

/**
 * A consistent view of the store at one revision. Every call is synchronous, so a view never observes a
 * concurrent write.
 */
export interface ReadView {
  /** The first revision still readable: the compacted revision (-1 before any compaction). */
  firstRev(): number
  /** The revision the view reads at. */
  rev(): number
  /**
   * Keys in [key, end) at `ro.rev` (0: the view's revision). `end` undefined: the single key; FROM_KEY:
   * every key >= `key`. Throws FutureRevError for ro.rev > rev(), CompactedError for ro.rev < firstRev().
   */
  range(key: Uint8Array, end: RangeEnd, ro?: RangeOptions): RangeResult
}

/** A read txn: a ReadView whose ops count in the metrics (mvcc/metrics.ts). */
export interface TxnRead extends ReadView {
  /**
   * Count the ops done so far as one txn when there were more than one, and start counting afresh
   * (etcd's metricsTxnWrite.End). A write txn's end() does it too.
   */
  endOps(): void
}

export interface WriteView {
  /** Delete the keys in the range; returns how many and the txn's revision (unchanged when nothing). */
  deleteRange(key: Uint8Array, end: RangeEnd): { readonly deleted: number; readonly rev: number }
  /** Put a key; returns the revision the txn will commit at. */
  put(key: Uint8Array, value: Uint8Array, lease: bigint): number
}

/**
 * A write transaction. It is synchronous from begin to `end()`: no await may sit between them, which is
 * what makes it atomic. `end()` publishes the new revision and returns it; durability is awaited
 * separately with {@link KV.sync}.
 */
export interface TxnWrite extends TxnRead, WriteView {
  changes(): readonly Change[]
  end(): number
}

/** Receives the store's write history as it happens (the watchable store hooks in here). */
export interface TxnObserver {
  /** A write txn ended at `rev` with these changes (never empty). Synchronous, inside end(), in order. */
  txnEnded(rev: number, changes: readonly Change[]): void
  /** Every revision up to `rev` is now durable. Called in increasing order, after the commit that did it. */
  durable(rev: number): void
  /**
   * A commit failed: the txns after `rev` (the durable revision) are undone and their revisions will be
   * used again; forget them.
   */
  rolledBack(rev: number): void
}

/**
 * A change as a watcher sees it (mvccpb.Event without prev_kv). A DELETE's kv holds the key and
 * modRevision = the deleting revision; its other fields are zero.
 */
export interface Event {
  readonly type: 'PUT' | 'DELETE'
  readonly kv: KeyValue
}

export interface CompactResult {
  /** Resolves when the physical compaction has finished (etcd's physical=true waits on it). */
  readonly done: Promise<void>
}

/**
 * A span of the revision log, decoded: every event of the revisions [from, upTo], in revision order (a
 * DELETE's kv holds the key and modRevision = the deleting revision, as {@link Event} says).
 */
export interface LogRead {
  readonly upTo: number
  readonly events: Event[]
  /** Encoded size of the events' stored values (what keeping the span in memory costs). */
  readonly bytes: number
}

/**
 * What the watchable store needs of the store under it (etcd's watchableStore embeds its *store for the
 * same things): the revisions, the write history as it happens, and the revision log for catch-up.
 */
export interface WatchSource {
  /** Newest revision, including writes not yet durable. */
  rev(): number
  /** Newest revision known to be durable; reads are served here. */
  durableRev(): number
  /** The compacted revision, -1 before any compaction. */
  compactRev(): number
  /** Register an observer of write txns and of durability (see TxnObserver). */
  observe(o: TxnObserver): void
  /**
   * The events of revisions [from, to] from the revision log, reading one consistent snapshot. Once `limit`
   * entries are read it stops early, at the end of a whole revision (a single revision with more entries
   * than `limit` is read whole), and `upTo` says where.
   */
  readLog(from: number, to: number, limit: number): Promise<LogRead>
}

export interface KV extends WatchSource {
  /** Keys that exist now, durable or not (etcd_debugging_mvcc_keys_total); kept as keys come and go, not counted per call. */
  keyCount(): number
  /** The requests served by kind, compactions, hashes and watch events (etcd_mvcc_*, etcd_debugging_mvcc_*). */
  readonly metrics: MvccMetrics
  /** A read view at the newest durable revision. */
  read(): TxnRead
  /** Begin a write txn (synchronous until end()). */
  write(): TxnWrite
  /** Resolves once revision `rev` (and all before it) is durable. */
  sync(rev: number): Promise<void>
  /** Compact history up to `rev` (see kvstore-compaction.ts). */
  compact(rev: number): Promise<CompactResult>
  /**
   * The revisions a compaction at `rev` would keep, as `main_sub` strings (etcd's treeIndex.Keep): what
   * HashKV hashes besides the revisions above `rev`.
   */
  keep(rev: number): Set<string>
  /** Stop background work, then close the backend. */
  close(): Promise<void>
}
