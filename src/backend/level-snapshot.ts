// A point-in-time view of a LevelBackend: an explicit abstract-level snapshot that every iterator reads from.
import type { AbstractSnapshot } from 'abstract-level'
import { EtcdError } from '../pkg/errors.js'
import type { BackendSnapshot, Entry } from './backend.js'
import type { Db } from './level-db.js'
import { BUCKET_PREFIX, prefixed, type Bucket } from './schema.js'

export class LevelSnapshot implements BackendSnapshot {
  private readonly db: Db
  private readonly snap: AbstractSnapshot
  private closing: Promise<void> | undefined

  constructor(db: Db, snap: AbstractSnapshot) {
    this.db = db
    this.snap = snap
  }

  async *entries(bucket: Bucket, gte?: Uint8Array, lt?: Uint8Array): AsyncGenerator<readonly Entry[]> {
    if (this.closing !== undefined) throw new EtcdError('STOPPED')
    const p = BUCKET_PREFIX[bucket]
    const it = this.db.iterator({
      gte: gte === undefined ? new Uint8Array([p]) : prefixed(bucket, gte),
      lt: lt === undefined ? new Uint8Array([p + 1]) : prefixed(bucket, lt),
      snapshot: this.snap,
    })
    try {
      for (;;) {
        const chunk = await it.nextv(1000)
        if (chunk.length === 0) return
        yield chunk.map(([key, value]) => ({ key: key.subarray(1), value }))
      }
    } finally {
      await it.close()
    }
  }

  close(): Promise<void> {
    this.closing ??= this.snap.close()
    return this.closing
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close()
  }
}
