import type { AbstractBatchOperation, AbstractBatchOptions, AbstractLevel, AbstractSublevel } from 'abstract-level'
import { EtcdError } from '../pkg/errors.js'
import { deferred, type Deferred } from '../pkg/deferred.js'
import type { Backend, Entry } from './backend.js'
import { BUCKETS, type Bucket } from './schema.js'

type Db = AbstractLevel<Uint8Array | string, Uint8Array, Uint8Array>
type Sub = AbstractSublevel<Db, Uint8Array | string, Uint8Array, Uint8Array>
type Op = AbstractBatchOperation<Db, Uint8Array, Uint8Array>

/** A batch being filled or in flight: its ops, a read buffer over them, and the waiters of its commit. */
interface Batch {
  readonly ops: Op[]
  /** bucket-prefixed latin1 key -> value, or null for a delete; the newest write wins. */
  readonly buf: Map<string, Uint8Array | null>
  readonly done: Deferred<void>
  requested: boolean
}

function newBatch(): Batch {
  const done = deferred<void>()
  // A batch may complete with nobody waiting on it; never let that become an unhandled rejection.
  done.promise.catch(() => undefined)
  return { ops: [], buf: new Map(), done, requested: false }
}

const bufKey = (bucket: Bucket, key: Uint8Array): string =>
  bucket[0] + Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1')

export interface LevelBackendOptions {
  /** Sync each commit to disk (etcd's default; --unsafe-no-fsync turns it off). */
  readonly syncWrites: boolean
}

/**
 * The one Backend implementation: any abstract-level database (classic-level on disk, memory-level in
 * memory), one sublevel per bucket, one `db.batch()` per group commit.
 */
export class LevelBackend implements Backend {
  readonly syncWrites: boolean
  private readonly db: Db
  private readonly subs: Record<Bucket, Sub>
  private cur: Batch = newBatch()
  private inflight: Batch | undefined
  private failed: Error | undefined
  private closed = false

  private constructor(db: Db, subs: Record<Bucket, Sub>, opts: LevelBackendOptions) {
    this.db = db
    this.subs = subs
    this.syncWrites = opts.syncWrites
  }

  /** Open (or create) the database and wrap it. The caller hands over ownership: close() closes it. */
  static async open(db: Db, opts: LevelBackendOptions): Promise<LevelBackend> {
    if (db.status !== 'open') await db.open()
    const subs: Partial<Record<Bucket, Sub>> = {}
    for (const b of BUCKETS) {
      const sub = db.sublevel<Uint8Array, Uint8Array>(b, { keyEncoding: 'view', valueEncoding: 'view' })
      // A sublevel opens asynchronously after its parent; synchronous reads need it open.
      await sub.open()
      subs[b] = sub
    }
    return new LevelBackend(db, subs as Record<Bucket, Sub>, opts)
  }

  get(bucket: Bucket, key: Uint8Array): Uint8Array | undefined {
    if (this.cur.buf.size !== 0 || this.inflight !== undefined) {
      const k = bufKey(bucket, key)
      let v = this.cur.buf.get(k)
      if (v === undefined && this.inflight !== undefined) v = this.inflight.buf.get(k)
      if (v !== undefined) return v ?? undefined
    }
    return this.subs[bucket].getSync(key)
  }

  put(bucket: Bucket, key: Uint8Array, value: Uint8Array): void {
    this.checkWritable()
    this.cur.ops.push({ type: 'put', sublevel: this.subs[bucket], key, value } as unknown as Op)
    this.cur.buf.set(bufKey(bucket, key), value)
  }

  del(bucket: Bucket, key: Uint8Array): void {
    this.checkWritable()
    this.cur.ops.push({ type: 'del', sublevel: this.subs[bucket], key } as unknown as Op)
    this.cur.buf.set(bufKey(bucket, key), null)
  }

  commit(): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed)
    if (this.cur.ops.length === 0) return this.inflight?.done.promise ?? Promise.resolve()
    this.cur.requested = true
    const p = this.cur.done.promise
    if (this.inflight === undefined) this.flush()
    return p
  }

  async scan(bucket: Bucket, gte: Uint8Array, lt: Uint8Array, limit: number): Promise<Entry[]> {
    const out: Entry[] = []
    const it = this.subs[bucket].iterator({ gte, lt, limit })
    try {
      for (;;) {
        const chunk = await it.nextv(Math.min(limit - out.length, 1000))
        if (chunk.length === 0) break
        for (const [key, value] of chunk) out.push({ key, value })
        if (out.length >= limit) break
      }
    } finally {
      await it.close()
    }
    return out
  }

  async size(): Promise<number> {
    const db = this.db as Db & { approximateSize?: (start: string, end: string) => Promise<number> }
    if (typeof db.approximateSize !== 'function') return 0
    try {
      return await db.approximateSize('\x00', '\xff')
    } catch {
      return 0
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.failed === undefined) {
      try {
        while (this.inflight !== undefined || this.cur.ops.length !== 0) {
          if (this.cur.ops.length !== 0) await this.commitAll()
          else await this.inflight?.done.promise
        }
      } catch {
        // the failure is reported to every committer; closing still releases the database
      }
    }
    await this.db.close()
  }

  private commitAll(): Promise<void> {
    this.closed = false
    const p = this.commit()
    this.closed = true
    return p
  }

  private checkWritable(): void {
    if (this.failed !== undefined) throw this.failed
    if (this.closed) throw new EtcdError('STOPPED')
  }

  /** Write the current batch; batches written meanwhile wait for this one (one batch in flight). */
  private flush(): void {
    const b = this.cur
    this.cur = newBatch()
    this.inflight = b
    // classic-level honours `sync`; memory-level ignores it.
    const options: AbstractBatchOptions<Uint8Array, Uint8Array> & { sync?: boolean } = { sync: this.syncWrites }
    this.db.batch(b.ops, options).then(
      () => {
        this.inflight = undefined
        b.done.resolve()
        if (this.cur.ops.length !== 0) this.flush()
      },
      (err: unknown) => {
        // A failed write leaves memory ahead of disk: refuse every later write, as etcd panics.
        this.failed = err instanceof Error ? err : new Error(String(err))
        this.inflight = undefined
        b.done.reject(this.failed)
        this.cur.done.reject(this.failed)
      },
    )
  }
}
