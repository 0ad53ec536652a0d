// client-go's Reflector over etcd: list a key range (paginated, every page at the first page's revision),
// then watch from that revision + 1, resuming from the last revision seen after any end of the watch
// other than compaction; only a compacted start revision makes it list again. While the watch is quiet
// it asks for progress, so its revision keeps up with the store's and a later compaction does not
// overtake it.
import type { Clock, ClockTimer } from '../pkg/clock.js'
import { isCompactedError, type ListWatchSource, type SourceKeyValue, type SourceWatchEvent, type SourceWatcher } from './source.js'

/** Where the reflector delivers what it reads; every call is synchronous and in revision order. */
export interface ReflectorSink {
  /** A complete, consistent list of the range at `revision`. */
  replace(kvs: readonly SourceKeyValue[], revision: number, relist: boolean): void
  /** The events of one watch response. */
  events(events: readonly SourceWatchEvent[]): void
  /** Every change up to `revision` has been delivered. */
  progress(revision: number): void
}

export interface ReflectorOptions {
  readonly key: Uint8Array
  readonly rangeEnd: Uint8Array
  readonly pageSize: number
  readonly clock: Clock
  /** Ask for progress after this long without a watch response. */
  readonly progressIntervalMs: number
  /** Ask the server for its periodic progress notifications too. */
  readonly progressNotify: boolean
  /** Retry delays after a failed list or a lost watch: doubling from initialMs up to maxMs. */
  readonly retryInitialMs: number
  readonly retryMaxMs: number
  readonly onError: (err: unknown, context: string) => void
}

export interface ReflectorStats {
  /** Complete lists (the first one and every relist). */
  lists: number
  /** Lists that followed a compaction. */
  relists: number
  /** Watches opened (the first one and every resume). */
  watches: number
  /** Progress requests sent while idle. */
  progressRequests: number
  /** Failed list pages and watch ends other than compaction. */
  failures: number
}

export class Reflector {
  /** The last revision delivered to the sink (0 before the first list). */
  revision = 0
  readonly stats: ReflectorStats = { lists: 0, relists: 0, watches: 0, progressRequests: 0, failures: 0 }
  private readonly source: ListWatchSource
  private readonly o: ReflectorOptions
  private readonly sink: ReflectorSink
  private stopped = false
  private loop: Promise<void> | undefined
  private watcher: SourceWatcher | undefined
  private sleeping: { timer: ClockTimer; wake: () => void } | undefined
  private attempt = 0

  constructor(source: ListWatchSource, sink: ReflectorSink, o: ReflectorOptions) {
    this.source = source
    this.sink = sink
    this.o = o
  }

  run(): void {
    this.loop ??= this.main()
  }

  /** Stop listing and watching; resolves once the loop has ended. */
  async stop(): Promise<void> {
    this.stopped = true
    this.sleeping?.timer.cancel()
    this.sleeping?.wake()
    const w = this.watcher
    if (w !== undefined) await w.cancel().catch(() => undefined)
    await this.loop
  }

  private async main(): Promise<void> {
    let needList = true
    while (!this.stopped) {
      if (needList) {
        if (!(await this.list())) {
          await this.backoff()
          continue
        }
        needList = false
        this.attempt = 0
      }
      const ended = await this.watchOnce()
      if (this.stopped) break
      if (ended === 'compacted') {
        needList = true
        this.stats.relists++
      } else {
        this.stats.failures++
        await this.backoff()
      }
    }
  }

  /** One complete list, delivered to the sink; false if a page failed (reported). */
  private async list(): Promise<boolean> {
    const all: SourceKeyValue[] = []
    let revision = 0
    let key = this.o.key
    try {
      for (;;) {
        const r = await this.source.range({ key, rangeEnd: this.o.rangeEnd, limit: this.o.pageSize, revision })
        if (this.stopped) return false
        if (revision === 0) revision = r.header.revision
        for (const kv of r.kvs) all.push(kv)
        const last = r.kvs[r.kvs.length - 1]
        if (!r.more || last === undefined) break
        key = new Uint8Array(last.key.length + 1)
        key.set(last.key)
      }
    } catch (err) {
      if (this.stopped) return false
      this.stats.failures++
      // A compaction between two pages: the snapshot is gone; the next list starts over at a new one.
      this.o.onError(err, isCompactedError(err) ? 'list (compacted while paging)' : 'list')
      return false
    }
    const relist = this.stats.lists > 0
    this.stats.lists++
    this.revision = revision
    this.sink.replace(all, revision, relist)
    return true
  }

  /** Watch from revision + 1 until the watcher ends; 'compacted' if its start revision was compacted. */
  private async watchOnce(): Promise<'compacted' | 'ended'> {
    // stop() may have come while the list was being delivered: it found no watcher to cancel.
    if (this.stopped) return 'ended'
    let w: SourceWatcher
    try {
      w = this.source.watch({
        key: this.o.key,
        rangeEnd: this.o.rangeEnd,
        startRevision: this.revision + 1,
        prevKv: true,
        progressNotify: this.o.progressNotify,
      })
    } catch (err) {
      this.o.onError(err, 'watch')
      return 'ended'
    }
    this.stats.watches++
    this.watcher = w
    let quietSince = this.o.clock.now()
    let timer: ClockTimer | undefined
    const check = (): void => {
      if (this.o.clock.now() - quietSince >= this.o.progressIntervalMs) {
        this.stats.progressRequests++
        quietSince = this.o.clock.now()
        try {
          w.requestProgress()
        } catch (err) {
          this.o.onError(err, 'progress request')
        }
      }
      timer = this.o.clock.after(this.o.progressIntervalMs - (this.o.clock.now() - quietSince), check)
    }
    timer = this.o.clock.after(this.o.progressIntervalMs, check)
    let compacted = false
    try {
      for await (const r of w) {
        if (this.stopped) break
        quietSince = this.o.clock.now()
        if ((r.compactRevision ?? 0) !== 0) {
          compacted = true
          break
        }
        if (r.canceled === true) break
        if (r.created === true) continue
        this.attempt = 0
        if (r.events.length === 0) {
          if (r.header.revision > this.revision) {
            this.revision = r.header.revision
            this.sink.progress(r.header.revision)
          }
          continue
        }
        this.sink.events(r.events)
        const last = r.events[r.events.length - 1] as SourceWatchEvent
        if (last.kv.modRevision > this.revision) this.revision = last.kv.modRevision
      }
    } catch (err) {
      if (!this.stopped) this.o.onError(err, 'watch stream')
    } finally {
      timer?.cancel()
      this.watcher = undefined
    }
    if (!compacted && !this.stopped) {
      // The iteration can end before `closed` says why (a compaction reported only there).
      const end = await Promise.race([w.closed, Promise.resolve(undefined)])
      compacted = end?.reason === 'compacted'
    }
    await w.cancel().catch(() => undefined)
    return compacted ? 'compacted' : 'ended'
  }

  private async backoff(): Promise<void> {
    if (this.stopped) return
    const ms = Math.min(this.o.retryMaxMs, this.o.retryInitialMs * 2 ** this.attempt)
    this.attempt = Math.min(this.attempt + 1, 30)
    await new Promise<void>((resolve) => {
      const timer = this.o.clock.after(ms, () => {
        this.sleeping = undefined
        resolve()
      })
      this.sleeping = { timer, wake: resolve }
    })
    this.sleeping = undefined
  }
}
