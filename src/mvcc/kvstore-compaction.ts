// Mirrors etcd mvcc/kvstore_compaction.go plus the FIFO scheduling of store.compact().
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { META } from '../backend/schema.js'
import type { KvStore } from './kvstore.js'
import { bytesToRev, revToBytes } from './revision.js'
import { revKey } from './key-index.js'
import { wholeMsSince } from '../pkg/histogram.js'

/** Keys of the index compacted per event-loop turn. */
const INDEX_CHUNK = 10000

/**
 * Runs compactions one after another (etcd's FIFO scheduler). Each job compacts the key index in chunks,
 * then deletes dead revisions from the backend in chunks of `batchLimit` keys, committing and yielding to
 * the event loop after each, and finally records finishedCompactRev. stop() makes the job in flight end at
 * its next chunk boundary; an unfinished job resumes when the store is reopened.
 */
export class Compactor {
  private readonly s: KvStore
  private readonly batchLimit: number
  private chain: Promise<void> = Promise.resolve()
  private pending = 0
  private stopped = false

  constructor(s: KvStore, batchLimit: number) {
    this.s = s
    this.batchLimit = batchLimit
  }

  /** Whether no compaction is scheduled or running. */
  get idle(): boolean {
    return this.pending === 0
  }

  schedule(rev: number): Promise<void> {
    this.pending++
    const job = this.chain.then(() => this.run(rev)).finally(() => {
      this.pending--
      if (this.pending === 0) this.s.compactionDone()
    })
    // The chain itself never rejects, so one failed job does not poison the next.
    this.chain = job.catch(() => undefined)
    return job
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.chain
  }

  private async run(rev: number): Promise<void> {
    if (this.stopped) return
    const m = this.s.metrics
    const available = new Set<string>()
    const keys = this.s.index.snapshot()
    // etcd holds its index for the whole index compaction; this one yields between chunks, so the pause it
    // reports is the time spent in the chunks.
    let pauseMs = 0
    for (let i = 0; i < keys.length; i += INDEX_CHUNK) {
      const chunkStarted = performance.now()
      for (const ki of keys.slice(i, i + INDEX_CHUNK)) this.s.index.compactKey(ki, rev, available)
      pauseMs += performance.now() - chunkStarted
      if (i + INDEX_CHUNK < keys.length) await yieldToLoop()
      if (this.stopped) return
    }
    m.indexCompactionPauseMs.observe(Math.floor(pauseMs))
    const totalStarted = performance.now()
    let deleted = 0
    try {
      const end = revToBytes({ main: rev + 1, sub: 0 }).subarray(0, 8)
      let last = revToBytes({ main: 0, sub: 0 })
      for (;;) {
        const batchStarted = performance.now()
        const entries = await this.s.backend.scan('key', last, end, this.batchLimit)
        for (const { key } of entries) {
          if (available.has(revKey(bytesToRev(key)))) continue
          this.s.backend.del('key', key)
          deleted++
        }
        if (entries.length < this.batchLimit) {
          this.s.backend.put('meta', META.finishedCompactRev, revToBytes({ main: rev, sub: 0 }))
          await this.s.backend.commit()
          return
        }
        const r = bytesToRev((entries[entries.length - 1] as { key: Uint8Array }).key)
        last = revToBytes({ main: r.main, sub: r.sub + 1 })
        await this.s.backend.commit()
        m.dbCompactionPauseMs.observe(wholeMsSince(batchStarted))
        if (this.stopped) return
        await yieldToLoop()
      }
    } finally {
      // As etcd's deferred observations: also when the pass ends early (the store is closing).
      m.dbCompactionTotalMs.observe(wholeMsSince(totalStarted))
      m.dbCompactionKeys += deleted
      m.dbCompactionLast = Math.floor(Date.now() / 1000)
    }
  }
}
