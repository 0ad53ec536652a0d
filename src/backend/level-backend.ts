import type { AbstractChainedBatch, AbstractChainedBatchWriteOptions, AbstractLevel } from 'abstract-level'
import { EtcdError } from '../pkg/errors.js'
import { deferred, type Deferred } from '../pkg/deferred.js'
import type { Backend, Entry } from './backend.js'
import { BUCKET_PREFIX, type Bucket } from './schema.js'

type Db = AbstractLevel<Uint8Array | string, Uint8Array, Uint8Array>
type Chain = AbstractChainedBatch<Db, Uint8Array, Uint8Array>

/**
 * A batch being filled or in flight: a chained batch that takes each op as it comes (an array batch costs
 * about six times as much CPU on the main thread in classic-level), a read buffer over its ops, and the
 * waiters of its commit.
 */
interface Batch {
  /** Created on the first write; undefined means the batch is empty. */
  chain: Chain | undefined
  /** Prefixed key as latin1 -> value, or null for a delete; the newest write wins. */
  readonly buf: Map<string, Uint8Array | null>
  readonly done: Deferred<void>
}

function newBatch(): Batch {
  const done = deferred<void>()
  // A batch may complete with nobody waiting on it; never let that become an unhandled rejection.
  done.promise.catch(() => undefined)
  return { chain: undefined, buf: new Map(), done }
}

/** The stored key: the bucket's prefix byte, then the key. */
function prefixed(bucket: Bucket, key: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(key.length + 1)
  out[0] = BUCKET_PREFIX[bucket]
  out.set(key, 1)
  return out
}

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
  private readonly db: Db
  private cur: Batch = newBatch()
  private inflight: Batch | undefined
  private failed: Error | undefined
  private closed = false

  private constructor(db: Db, opts: LevelBackendOptions) {
    this.db = db
    this.syncWrites = opts.syncWrites
  }

  /** Open (or create) the database and wrap it. The caller hands over ownership: close() closes it. */
  static async open(db: Db, opts: LevelBackendOptions): Promise<LevelBackend> {
    if (db.status !== 'open') await db.open()
    return new LevelBackend(db, opts)
  }

  get(bucket: Bucket, key: Uint8Array): Uint8Array | undefined {
    const k = prefixed(bucket, key)
    if (this.cur.buf.size !== 0 || this.inflight !== undefined) {
      const s = k.toString('latin1')
      let v = this.cur.buf.get(s)
      if (v === undefined && this.inflight !== undefined) v = this.inflight.buf.get(s)
      if (v !== undefined) return v ?? undefined
    }
    return this.db.getSync(k)
  }

  put(bucket: Bucket, key: Uint8Array, value: Uint8Array): void {
    this.checkWritable()
    const k = prefixed(bucket, key)
    this.chain().put(k, value)
    this.cur.buf.set(k.toString('latin1'), value)
  }

  del(bucket: Bucket, key: Uint8Array): void {
    this.checkWritable()
    const k = prefixed(bucket, key)
    this.chain().del(k)
    this.cur.buf.set(k.toString('latin1'), null)
  }

  commit(): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed)
    if (this.cur.chain === undefined) return this.inflight?.done.promise ?? Promise.resolve()
    const p = this.cur.done.promise
    if (this.inflight === undefined) this.flush()
    return p
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

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
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
    await this.db.close()
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
    chain.write(options).then(
      () => {
        this.inflight = undefined
        b.done.resolve()
        if (this.cur.chain !== undefined) this.flush()
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
