// client-go's SharedIndexInformer over an etcd key range: a Reflector keeps a local, indexed cache of
// decoded objects, and every change is fanned out to any number of handlers, each on its own queue. No
// DeltaFIFO sits between them: changes are applied to the cache and queued for the handlers in the same
// synchronous step, so the cache never runs ahead of or behind what the handlers are told.
import { prefixEnd } from '../pkg/bytes.js'
import { realClock, type Clock, type ClockTimer } from '../pkg/clock.js'
import { CacheIndexer, type CacheEntry, type Indexer } from './indexer.js'
import { ProcessorListener, type EventHandler, type Notification } from './processor-listener.js'
import { Reflector, type ReflectorStats } from './reflector.js'
import type { ListWatchSource, SourceKeyValue, SourceWatchEvent } from './source.js'
import { checkHandlerOptions, checkInformerOptions, type HandlerOptions, type SharedInformerOptions } from './options.js'
import { errorMessage } from '../pkg/as-error.js'

/** A handler's place in the informer (client-go's ResourceEventHandlerRegistration). */
export interface HandlerRegistration {
  /** Resolves once the handler has been given every object of the initial list (or of the cache when added). */
  readonly synced: Promise<void>
  hasSynced(): boolean
  /** Notifications waiting for this handler. */
  readonly pending: number
  /** Whether its queue fell more than maxBuffered behind and now coalesces by key. */
  readonly coalescing: boolean
  /** Times its queue overflowed into coalescing. */
  readonly overflows: number
  /** Stop delivering to it; resolves once its call in progress (if any) has returned. */
  remove(): Promise<void>
}

export interface InformerStats extends ReflectorStats {
  /** Notifications queued for handlers by kind (once per change, not per handler). */
  adds: number
  updates: number
  deletes: number
  /** Values the decoder refused (and keys that were not UTF-8), left out of the cache. */
  decodeErrors: number
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

function defaultReport(err: unknown, context: string): void {
  process.emitWarning(`etcdlite informer: ${context}: ${errorMessage(err)}`)
}

export class SharedInformer<T> implements AsyncDisposable {
  /** Resolves once the first list is in the cache and queued for the handlers registered by then. */
  readonly synced: Promise<void>
  private readonly cache: CacheIndexer<T>
  private readonly reflector: Reflector
  private readonly decode: (value: Uint8Array, kv: SourceKeyValue) => T
  private readonly keyOf: (key: Uint8Array) => string
  private readonly clock: Clock
  private readonly report: (err: unknown, context: string) => void
  private readonly listeners = new Set<ProcessorListener<T>>()
  private readonly resyncTimers = new Map<ProcessorListener<T>, ClockTimer>()
  private readonly counts = { adds: 0, updates: 0, deletes: 0, decodeErrors: 0 }
  private hasSyncedFlag = false
  private resolveSynced!: () => void
  private started = false
  private stopping: Promise<void> | undefined

  constructor(source: ListWatchSource, opts: SharedInformerOptions<T>) {
    if (typeof source !== 'object' || source === null || typeof source.range !== 'function' || typeof source.watch !== 'function') {
      throw new TypeError('SharedInformer: source must have range() and watch() (a ListWatchSource such as Etcd)')
    }
    const o = checkInformerOptions(opts)
    this.decode = o.decode
    this.keyOf = o.keyOf ?? ((k) => UTF8.decode(k))
    this.clock = o.clock ?? realClock
    this.report = o.onError ?? defaultReport
    this.cache = new CacheIndexer<T>(o.indexers ?? {}, (err, key) => this.report(err, `index function for ${key}`))
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve))
    const key = o.prefix ?? o.key ?? new Uint8Array(0)
    const rangeEnd = o.prefix !== undefined ? prefixEnd(o.prefix) : (o.rangeEnd ?? new Uint8Array(0))
    this.reflector = new Reflector(source, {
      replace: (kvs, revision, relist) => this.replace(kvs, revision, relist),
      events: (evs) => this.events(evs),
      progress: (revision) => {
        if (revision > this.cache.revision) this.cache.revision = revision
      },
    }, {
      // Key "" means every key: etcd reads key "\0" with rangeEnd "\0" as the whole keyspace.
      key: key.length === 0 ? Uint8Array.of(0) : key,
      rangeEnd: key.length === 0 && rangeEnd.length === 0 ? Uint8Array.of(0) : rangeEnd,
      pageSize: o.pageSize ?? 500,
      clock: this.clock,
      progressIntervalMs: o.progressIntervalMs ?? 30_000,
      progressNotify: o.progressNotify ?? true,
      retryInitialMs: o.retryInitialMs ?? 100,
      retryMaxMs: o.retryMaxMs ?? 10_000,
      onError: this.report,
    })
  }

  /** The cache (read-only): get, list, indexes, and the revision it reflects. */
  get indexer(): Indexer<T> {
    return this.cache
  }

  /** The revision the cache reflects. */
  get revision(): number {
    return this.cache.revision
  }

  hasSynced(): boolean {
    return this.hasSyncedFlag
  }

  get stats(): Readonly<InformerStats> {
    return { ...this.reflector.stats, ...this.counts }
  }

  /** Start listing and watching (once; later calls do nothing). Returns this. */
  start(): this {
    if (this.stopping !== undefined) throw new Error('SharedInformer: start() after stop()')
    if (!this.started) {
      this.started = true
      this.reflector.run()
    }
    return this
  }

  /**
   * Add a handler. Before the first list it receives the list as adds; after it, the current cache as
   * adds (info.initial true), then every change. `resyncPeriodMs` re-delivers the cache to it
   * periodically as updates marked `resync`.
   */
  addEventHandler(handler: EventHandler<T>, opts: HandlerOptions = {}): HandlerRegistration {
    if (typeof handler !== 'object' || handler === null) throw new TypeError('addEventHandler: handler must be an object')
    const o = checkHandlerOptions(opts)
    if (this.stopping !== undefined) throw new Error('SharedInformer: addEventHandler() after stop()')
    const l = new ProcessorListener<T>(handler, o.maxBuffered ?? 10_000, (err, n) => this.report(err, `handler ${n.kind} of ${n.key}`))
    let synced = false
    let resolveSynced!: () => void
    const syncedP = new Promise<void>((resolve) => (resolveSynced = resolve))
    const markSynced = (): void => {
      void l.idle().then(() => {
        synced = true
        resolveSynced()
      })
    }
    if (this.hasSyncedFlag) {
      for (const e of this.cache.entries()) l.add({ kind: 'add', key: e.key, object: e.object, initial: true })
      markSynced()
    } else void this.synced.then(markSynced)
    this.listeners.add(l)
    if (o.resyncPeriodMs !== undefined) this.armResync(l, o.resyncPeriodMs)
    return {
      synced: syncedP,
      hasSynced: () => synced,
      get pending() {
        return l.pending
      },
      get coalescing() {
        return l.coalescing
      },
      get overflows() {
        return l.overflows
      },
      remove: () => {
        this.listeners.delete(l)
        this.resyncTimers.get(l)?.cancel()
        this.resyncTimers.delete(l)
        return l.stop()
      },
    }
  }

  /** Stop watching and delivering; pending notifications are dropped; resolves once handler calls in progress have returned. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.reflector.stop()
      for (const t of this.resyncTimers.values()) t.cancel()
      this.resyncTimers.clear()
      const ls = [...this.listeners]
      this.listeners.clear()
      await Promise.all(ls.map((l) => l.stop()))
    })()
    return this.stopping
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop()
  }

  private armResync(l: ProcessorListener<T>, periodMs: number): void {
    this.resyncTimers.set(l, this.clock.after(periodMs, () => {
      if (!this.listeners.has(l)) return
      if (this.hasSyncedFlag) {
        for (const e of this.cache.entries()) l.add({ kind: 'update', key: e.key, old: e.object, object: e.object, resync: true })
      }
      this.armResync(l, periodMs)
    }))
  }

  private distribute(n: Notification<T>): void {
    this.counts[n.kind === 'add' ? 'adds' : n.kind === 'update' ? 'updates' : 'deletes']++
    for (const l of this.listeners) l.add(n)
  }

  /** The cache key of an etcd key, or undefined (reported) if it cannot be one. */
  private key(k: Uint8Array): string | undefined {
    try {
      return this.keyOf(k)
    } catch (err) {
      this.counts.decodeErrors++
      this.report(err, 'key')
      return undefined
    }
  }

  /** Decode and cache `kv` under `key`; tells the handlers. An undecodable value counts as a delete. */
  private store(key: string, kv: SourceKeyValue, old: CacheEntry<T> | undefined, initial: boolean): void {
    let object: T
    try {
      object = this.decode(kv.value, kv)
    } catch (err) {
      this.counts.decodeErrors++
      this.report(err, `decode ${key}`)
      if (old !== undefined) {
        this.cache.delete(key)
        this.distribute({ kind: 'delete', key, object: old.object, finalStateUnknown: true })
      }
      return
    }
    this.cache.set({ key, object, modRevision: kv.modRevision, createRevision: kv.createRevision, version: kv.version })
    if (old === undefined) this.distribute({ kind: 'add', key, object, initial })
    else this.distribute({ kind: 'update', key, old: old.object, object, resync: false })
  }

  private replace(kvs: readonly SourceKeyValue[], revision: number, relist: boolean): void {
    const seen = this.cache.size > 0 ? new Set<string>() : undefined
    for (const kv of kvs) {
      const key = this.key(kv.key)
      if (key === undefined) continue
      seen?.add(key)
      const old = this.cache.getEntry(key)
      // Unchanged since the cache last saw it: no decode, no event.
      if (old !== undefined && old.modRevision === kv.modRevision) continue
      this.store(key, kv, old, !relist)
    }
    if (seen !== undefined) {
      for (const key of this.cache.listKeys()) {
        if (seen.has(key)) continue
        const old = this.cache.delete(key) as CacheEntry<T>
        this.distribute({ kind: 'delete', key, object: old.object, finalStateUnknown: true })
      }
    }
    this.cache.revision = revision
    if (!this.hasSyncedFlag) {
      this.hasSyncedFlag = true
      this.resolveSynced()
    }
  }

  private events(evs: readonly SourceWatchEvent[]): void {
    for (const ev of evs) {
      const rev = ev.kv.modRevision
      const key = this.key(ev.kv.key)
      if (key !== undefined) {
        const old = this.cache.getEntry(key)
        // A change the cache already holds (a resumed watch never repeats one, but a source might).
        if (old === undefined || old.modRevision < rev) {
          if (ev.type === 'PUT') this.store(key, ev.kv, old, false)
          else if (old !== undefined) {
            this.cache.delete(key)
            this.distribute({ kind: 'delete', key, object: old.object, finalStateUnknown: false })
          }
        }
      }
      if (rev > this.cache.revision) this.cache.revision = rev
    }
  }
}
