// The one Backend: etcd's mvcc/backend (buffered writes, group commit, Size, Snapshot, Defrag) over any
// abstract-level database. Tuned for speed where it says so: one chained batch per group commit, point reads
// answered from the buffered batches, the size estimated between measurements so the quota check is cheap.
import type { AbstractChainedBatchWriteOptions } from 'abstract-level'
import { EtcdError } from '../pkg/errors.js'
import type { Backend, BackendSnapshot, Entry } from './backend.js'
import { lookup, newBatch, type Batch } from './batch.js'
import { CommitTimes } from './commit-times.js'
import { freeBytes, isNoSpace, openLeavingNoTrace, reopenRoom } from './disk-space.js'
import { measureEntries, measureOnDisk, onDisk, OP_OVERHEAD, type Chain, type Db, type OnDisk } from './level-db.js'
import { LevelSnapshot } from './level-snapshot.js'
import { prefixed, type Bucket } from './schema.js'

/** Re-measure in the background once this many bytes were written since the last measurement… */
const REMEASURE_MIN_BYTES = 64 * 1024
/** …or an eighth of the measured size, whichever is larger (so measuring stays a small share of the work). */
const REMEASURE_FRACTION = 8

/** Look at the filesystem's free space again after a commit once this long has passed since the last look. */
const FREE_RECHECK_MS = 1000

/** Keys below and above every prefixed key, for a whole-keyspace compaction. */
const KEYSPACE_LOW = new Uint8Array([0x00])
const KEYSPACE_HIGH = new Uint8Array([0xff])

export interface LevelBackendOptions {
  /** Sync each commit to disk (etcd's default; --unsafe-no-fsync turns it off). */
  readonly syncWrites: boolean
}

/**
 * The one Backend implementation: any abstract-level database (classic-level on disk, memory-level in
 * memory), buckets as key prefixes, one `db.batch()` per group commit and at most one batch in flight.
 */
export class LevelBackend implements Backend {
  readonly syncWrites: boolean
  readonly commitTimes = new CommitTimes()
  private logWritten = 0
  private readonly db: Db
  private cur: Batch = newBatch()
  private inflight: Batch | undefined
  private failed: Error | undefined
  private readonly failureListeners: ((err: Error) => void)[] = []
  private recovering: Promise<void> | undefined
  private closed = false
  /** Size found by the last measurement (see size()). */
  private measured = 0
  /** Free bytes on the filesystem found by the last look (see freeBytes()); Infinity in memory. */
  private measuredFree = Infinity
  /** Estimated bytes written since the last look at the free space started. */
  private freeWritten = 0
  /** When the free space was last looked at (Date.now()), and the look running in the background. */
  private freeCheckedAt = 0
  private freeLook: Promise<void> | undefined
  /** Estimated bytes written since the last measurement started. */
  private written = 0
  private measuring: Promise<void> | undefined
  /** A setImmediate that writes the current batch is pending (see commit()). */
  private flushScheduled = false
  private readonly scheduledFlush = (): void => {
    this.flushScheduled = false
    // A batch completing in the meantime, or close(), may have written it already.
    if (this.inflight === undefined && this.cur.chain !== undefined && this.failed === undefined) this.flush()
  }

  private constructor(db: Db, opts: LevelBackendOptions) {
    this.db = db
    this.syncWrites = opts.syncWrites
  }

  /** Open (or create) the database and wrap it. The caller hands over ownership: close() closes it. */
  static async open(db: Db, opts: LevelBackendOptions): Promise<LevelBackend> {
    if (db.status !== 'open') {
      const disk = onDisk(db)
      if (disk !== undefined) await openLeavingNoTrace(disk.location, () => db.open())
      else await db.open()
    }
    const b = new LevelBackend(db, opts)
    await b.refreshSize()
    return b
  }

  get persistent(): boolean {
    return this.disk !== undefined
  }

  get(bucket: Bucket, key: Uint8Array): Uint8Array | undefined {
    const k = prefixed(bucket, key)
    if (this.cur.keys.length !== 0 || this.inflight !== undefined) {
      let v = lookup(this.cur, k)
      if (v === undefined && this.inflight !== undefined) v = lookup(this.inflight, k)
      if (v !== undefined) return v ?? undefined
    }
    return this.db.getSync(k)
  }

  put(bucket: Bucket, key: Uint8Array, value: Uint8Array): void {
    this.checkWritable()
    const k = prefixed(bucket, key)
    this.chain().put(k, value)
    this.cur.keys.push(k)
    this.cur.values.push(value)
    const n = k.length + value.length + OP_OVERHEAD
    this.cur.logBytes += n
    this.written += n
    this.freeWritten += n
  }

  del(bucket: Bucket, key: Uint8Array): void {
    this.checkWritable()
    const k = prefixed(bucket, key)
    this.chain().del(k)
    this.cur.keys.push(k)
    this.cur.values.push(null)
    this.cur.logBytes += k.length + OP_OVERHEAD
    // On disk a delete appends a tombstone to the write-ahead log; in memory it frees space (seen at the
    // next measurement).
    if (this.disk !== undefined) {
      this.written += k.length + OP_OVERHEAD
      this.freeWritten += k.length + OP_OVERHEAD
    }
  }

  /**
   * Commit what is buffered: resolves once it is durable. With no batch in flight, the batch is written at
   * the end of the current event-loop turn (setImmediate), so every request handled in the same turn (all
   * connections readable in one poll) joins it: one write and one fsync for all of them instead of one
   * for the first and another for the rest. With a batch in flight, it is written as soon as that one
   * completes (group commit).
   */
  commit(): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed)
    if (this.cur.chain === undefined) return this.inflight?.done.promise ?? Promise.resolve()
    if (this.inflight === undefined && !this.flushScheduled) {
      this.flushScheduled = true
      setImmediate(this.scheduledFlush)
    }
    return this.cur.done.promise
  }

  async scan(bucket: Bucket, gte: Uint8Array, lt: Uint8Array, limit: number): Promise<Entry[]> {
    const out: Entry[] = []
    const it = this.db.iterator({ gte: prefixed(bucket, gte), lt: prefixed(bucket, lt), limit })
    try {
      for (;;) {
        const chunk = await it.nextv(Math.min(limit - out.length, 1000))
        if (chunk.length === 0) break
        for (const [key, value] of chunk) out.push({ key: key.subarray(1), value })
        if (out.length >= limit) break
      }
    } finally {
      await it.close()
    }
    return out
  }

  get failure(): Error | undefined {
    return this.failed
  }

  onFailure(listener: (err: Error) => void): void {
    this.failureListeners.push(listener)
  }

  /**
   * Reopen the database in place after a failed commit (see Backend.recover). Refused, with the database
   * left open for reads, when the filesystem has less room than reopening needs (reopenRoom); a reopen
   * that fails anyway leaves it closed (reads fail) until a later recover() succeeds.
   */
  recover(): Promise<void> {
    if (this.failed === undefined) return Promise.resolve()
    if (this.closed) return Promise.reject(new EtcdError('STOPPED'))
    this.recovering ??= (async () => {
      try {
        await this.measuring?.catch(() => undefined)
        const disk = this.disk
        if (disk !== undefined) {
          const { needed, free } = await reopenRoom(disk.location)
          if (free < needed) {
            throw new EtcdError('NO_SPACE', undefined, {
              cause: new Error(`reopening the database needs ${needed} bytes free, ${free} are`),
            })
          }
          await this.db.close()
          await openLeavingNoTrace(disk.location, () => this.db.open())
        }
        this.failed = undefined
        this.written = 0
        this.freeWritten = 0
        await this.refreshSize()
      } finally {
        this.recovering = undefined
      }
    })()
    return this.recovering
  }

  freeBytes(): number {
    return this.measuredFree - this.freeWritten
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.recovering?.catch(() => undefined)
    await this.freeLook
    if (this.failed === undefined) {
      try {
        // Everything buffered is committed before the database closes.
        while (this.inflight !== undefined || this.cur.chain !== undefined) {
          if (this.inflight === undefined) this.flush()
          await this.inflight?.done.promise
        }
      } catch {
        // the failure is reported to every committer; closing still releases the database
      }
    }
    await this.measuring?.catch(() => undefined)
    // Closing the database closes its snapshots and their iterators.
    await this.db.close()
  }

  get writtenLogBytes(): number {
    return this.logWritten
  }

  /**
   * Bytes the database occupies: the last measurement plus what was written since (keys, values and
   * {@link OP_OVERHEAD} per op). Measured as:
   * - classic-level (a directory): the total size of LevelDB's data files — tables, write-ahead logs,
   *   manifest — the counterpart of etcd's bbolt file size. It shrinks when LevelDB compacts.
   * - any other database (memory-level): the bytes of every stored key and value.
   * The estimate is re-measured in the background after each commit once the bytes written since the last
   * measurement pass max(64 KiB, size/8), and at once by refreshSize() and defragment().
   */
  size(): number {
    return this.measured + this.written
  }

  refreshSize(): Promise<void> {
    this.measuring ??= (async () => {
      try {
        const before = this.written
        // What was buffered before is on disk (or in the memory tree) once this resolves.
        await this.commit()
        this.measured = await this.measure()
        this.written = Math.max(0, this.written - before)
      } finally {
        this.measuring = undefined
      }
    })()
    return this.measuring
  }

  snapshot(): BackendSnapshot {
    if (this.closed) throw new EtcdError('STOPPED')
    return new LevelSnapshot(this.db, this.db.snapshot())
  }

  /**
   * classic-level: compact the whole keyspace (LevelDB's CompactRange: the memtable is flushed, deleted and
   * overwritten entries are dropped, old write-ahead logs and tables are removed). memory-level keeps no
   * garbage, so only the size is measured again.
   */
  async defragment(): Promise<void> {
    if (this.closed) throw new EtcdError('STOPPED')
    await this.commit()
    if (this.disk !== undefined) await this.disk.compactRange(KEYSPACE_LOW, KEYSPACE_HIGH)
    // A measurement already in flight may predate the compaction: wait for it, then measure afresh.
    await this.measuring?.catch(() => undefined)
    await this.refreshSize()
  }

  private get disk(): (Db & OnDisk) | undefined {
    return onDisk(this.db)
  }

  private async measure(): Promise<number> {
    const disk = this.disk
    if (disk === undefined) return measureEntries(this.db)
    await this.lookAtFreeSpace(disk.location)
    return measureOnDisk(disk.location)
  }

  private async lookAtFreeSpace(location: string): Promise<void> {
    const before = this.freeWritten
    this.measuredFree = await freeBytes(location)
    this.freeWritten = Math.max(0, this.freeWritten - before)
    this.freeCheckedAt = Date.now()
  }

  /**
   * After a commit: measure again in the background when enough was written since the last time; look at
   * the free space at most every FREE_RECHECK_MS, as other processes use the disk too.
   */
  private maybeRemeasure(): void {
    const disk = this.disk
    if (disk !== undefined && this.freeLook === undefined && !this.closed && Date.now() - this.freeCheckedAt >= FREE_RECHECK_MS) {
      // Failures keep the last figure; close() awaits the look.
      this.freeLook = this.lookAtFreeSpace(disk.location).catch(() => undefined).finally(() => (this.freeLook = undefined))
    }
    if (this.measuring !== undefined || this.closed) return
    if (this.written < Math.max(REMEASURE_MIN_BYTES, this.measured / REMEASURE_FRACTION)) return
    // Failures leave the estimate as it is; the next commit tries again. close() awaits it.
    void this.refreshSize().catch(() => undefined)
  }

  private chain(): Chain {
    this.cur.chain ??= this.db.batch()
    return this.cur.chain
  }

  private checkWritable(): void {
    if (this.failed !== undefined) throw this.failed
    if (this.closed) throw new EtcdError('STOPPED')
  }

  /** Write the current batch; writes buffered meanwhile form the next batch (group commit). */
  private flush(): void {
    const b = this.cur
    this.cur = newBatch()
    this.inflight = b
    // classic-level honours `sync`; memory-level ignores it.
    const options: AbstractChainedBatchWriteOptions & { sync?: boolean } = { sync: this.syncWrites }
    const chain = b.chain
    if (chain === undefined) throw new Error('backend: flushing an empty batch')
    const started = performance.now()
    chain.write(options).then(
      () => {
        this.commitTimes.observe((performance.now() - started) / 1000)
        this.logWritten += b.logBytes
        this.inflight = undefined
        b.done.resolve()
        if (this.cur.chain !== undefined) this.flush()
        this.maybeRemeasure()
      },
      (err: unknown) => {
        // Refuse every later write until recover() reopens the database: after a failed append LevelDB's
        // log may end in a torn record, and what is appended after it is lost at the next open, so a put
        // acknowledged once the disk has room again would be gone after a reopen. The batch buffered
        // meanwhile is dropped with the failed one; the listeners undo what memory holds of both.
        const cause = err instanceof Error ? err : new Error(String(err))
        const failure = isNoSpace(cause) ? new EtcdError('NO_SPACE', undefined, { cause }) : cause
        this.failed = failure
        this.inflight = undefined
        const next = this.cur
        this.cur = newBatch()
        if (next.chain !== undefined) void next.chain.close().catch(() => undefined)
        // Committers hear of it in microtasks, so the listeners, called synchronously here, run first.
        b.done.reject(failure)
        next.done.reject(failure)
        for (const listener of this.failureListeners) listener(failure)
      },
    )
  }
}
