// Mirrors etcd mvcc/watcher.go (WatchStream) and the watcher struct of mvcc/watchable_store.go.
import { bytesToLatin1, compareBytes, FROM_KEY, type RangeEnd } from '../pkg/bytes.js'
import { DuplicateWatchIdError, EmptyWatcherRangeError, WatcherNotExistError } from './errors.js'
import type { Event } from './kv.js'
import type { WatchableStore } from './watchable-store.js'
import type { WatchId } from '../pkg/watch-id.js'

/** watch_id 0 in a create request: the stream picks the ID (etcd's clientv3.AutoWatchID). */
export const AUTO_WATCH_ID = 0
/** The watch_id of responses that belong to no watcher: failed creates, stream-wide progress (etcd's InvalidWatchID). */
export const INVALID_WATCH_ID = -1

/** Which events a watcher drops (etcd's FilterFunc list, reduced to the two filters the protocol has). */
export interface WatchFilters {
  readonly noPut: boolean
  readonly noDelete: boolean
}

export const NO_FILTERS: WatchFilters = { noPut: false, noDelete: false }
const FILTER_SETS: readonly WatchFilters[] = [NO_FILTERS, { noPut: true, noDelete: false }, { noPut: false, noDelete: true }, { noPut: true, noDelete: true }]

/** The shared filters object for a combination (watchers are many; their filters are four objects). */
export function watchFilters(noPut: boolean, noDelete: boolean): WatchFilters {
  return FILTER_SETS[(noPut ? 1 : 0) + (noDelete ? 2 : 0)] as WatchFilters
}

/** What the store hands a stream (etcd's mvcc.WatchResponse). */
export interface StoreWatchResponse {
  readonly watchId: WatchId
  /** Events in revision order; empty for a progress notification or a compacted response. */
  readonly events: readonly Event[]
  /** The store revision the watcher has now seen everything up to (0 in a compacted response, as etcd). */
  readonly revision: number
  /** Non-zero: the watcher's start revision was compacted away; the watcher is gone. */
  readonly compactRevision: number
}

/**
 * Where the store delivers a stream's responses. `trySend` never blocks: `false` means "full, nothing
 * taken", and the watcher becomes a victim whose batch is retried later (etcd's non-blocking channel
 * send). When a full sink can take more again, its owner calls the stream's resume().
 */
export interface WatchSink {
  trySend(resp: StoreWatchResponse): boolean
}

/** Where a watcher lives, as in etcd's watchable store: caught up, catching up, or waiting for its stream. */
export type WatcherState = 'synced' | 'unsynced' | 'victim' | 'gone'

/** One watcher. Fields other than the identity ones are the store's to change. */
export class Watcher {
  readonly id: WatchId
  /** The key as an order-preserving string, for the single-key map. */
  readonly keyStr: string
  /** The key's bytes, kept only by range watchers (memory: a watcher costs a few hundred bytes). */
  private readonly keyBytes: Uint8Array | undefined
  /** undefined: the single key; FROM_KEY: every key >= key; else keys in [key, end). */
  readonly end: RangeEnd
  /** The revision asked for at creation (0: from now). */
  readonly startRev: number
  readonly filters: WatchFilters
  readonly stream: WatchStream
  /** The smallest revision this watcher still has to receive. */
  minRev: number
  state: WatcherState = 'gone'

  constructor(id: WatchId, key: Uint8Array, end: RangeEnd, startRev: number, filters: WatchFilters, stream: WatchStream) {
    this.id = id
    this.keyStr = bytesToLatin1(key)
    this.keyBytes = end === undefined ? undefined : key
    this.end = end
    this.startRev = startRev
    this.minRev = startRev
    this.filters = filters
    this.stream = stream
  }

  /** The watched key (or the start of the watched range). */
  get key(): Uint8Array {
    return this.keyBytes ?? Buffer.from(this.keyStr, 'latin1')
  }

  /**
   * Offer events (or a progress/compacted response) to the stream, after the filters. Events all filtered
   * out: nothing is sent and that counts as delivered (etcd's watcher.send).
   */
  send(events: readonly Event[], revision: number, compactRevision = 0): boolean {
    let evs = events
    if (evs.length !== 0 && (this.filters.noPut || this.filters.noDelete)) {
      evs = evs.filter((e) => (e.type === 'PUT' ? !this.filters.noPut : !this.filters.noDelete))
      if (evs.length === 0) return true
    }
    return this.stream.sink.trySend({ watchId: this.id, events: evs, revision, compactRevision })
  }
}

/**
 * A set of watchers sharing one sink (etcd's mvcc WatchStream; one per gRPC Watch call). Synchronous:
 * every method takes effect before it returns.
 */
export class WatchStream {
  readonly sink: WatchSink
  private readonly store: WatchableStore
  private readonly watchers = new Map<WatchId, Watcher>()
  private nextId = 0
  private closed = false
  /** A progress request is waiting for every watcher to be synced (etcd 3.4.25+ deferredProgress). */
  progressDeferred = false

  constructor(store: WatchableStore, sink: WatchSink) {
    this.store = store
    this.sink = sink
  }

  /**
   * Create a watcher on [key, end) from startRev (0: from the next revision) and return its ID.
   * id AUTO_WATCH_ID picks the lowest free ID counting up from the last one picked.
   * Throws EmptyWatcherRangeError (key >= end, or the stream is closed, as etcd) or DuplicateWatchIdError.
   */
  watch(id: number, key: Uint8Array, end: RangeEnd, startRev: number, filters?: WatchFilters): number
  watch(id: WatchId, key: Uint8Array, end: RangeEnd, startRev: number, filters?: WatchFilters): WatchId
  watch(id: WatchId, key: Uint8Array, end: RangeEnd, startRev: number, filters: WatchFilters = NO_FILTERS): WatchId {
    checkWatchRange(key, end)
    if (this.closed) throw new EmptyWatcherRangeError()
    if (id === AUTO_WATCH_ID) {
      while (this.watchers.has(this.nextId)) this.nextId++
      id = this.nextId++
    } else if (this.watchers.has(id)) throw new DuplicateWatchIdError()
    const w = new Watcher(id, key, end, startRev, filters, this)
    this.watchers.set(id, w)
    this.store.addWatcher(w)
    return id
  }

  /** Remove a watcher; WatcherNotExistError if the stream has no such ID. */
  cancel(id: WatchId): void {
    const w = this.watchers.get(id)
    if (w === undefined) throw new WatcherNotExistError()
    this.watchers.delete(id)
    this.store.cancelWatcher(w)
  }

  /** The watcher with this ID, if any. */
  get(id: WatchId): Watcher | undefined {
    return this.watchers.get(id)
  }

  /** How many watchers the stream has. */
  get size(): number {
    return this.watchers.size
  }

  /** The revision watchers have been notified up to (what a created response reports). */
  rev(): number {
    return this.store.rev()
  }

  /** Progress for one watcher: sent only if it is synced and its sink has room (etcd's RequestProgress). */
  requestProgress(id: WatchId): void {
    const w = this.watchers.get(id)
    if (w !== undefined) this.store.progressIfSync([w], w.id)
  }

  /**
   * Progress for the whole stream (watch_id -1), ordered after every event already delivered: sent at once
   * if every watcher is synced, else deferred until they are (etcd 3.4.25+). No watchers: nothing is sent.
   */
  requestProgressAll(): void {
    if (this.progressDeferred) return
    if (!this.store.progressIfSync(this.watchers.values(), -1)) {
      this.progressDeferred = true
      this.store.deferProgress(this)
    }
  }

  /** @internal The store retries a deferred progress request; true once it went out. */
  retryProgress(): boolean {
    if (!this.progressDeferred) return true
    if (this.watchers.size === 0) return false
    if (this.store.progressIfSync(this.watchers.values(), -1)) this.progressDeferred = false
    return !this.progressDeferred
  }

  /**
   * The sink refused a response and can take more now: the store retries its victims at once rather than
   * on the victim loop's next tick (the retry covers every stream's victims, as etcd's moveVictims does).
   */
  resume(): void {
    this.store.kickVictims()
  }

  /** Remove every watcher; later watch() calls fail. Idempotent. */
  close(): void {
    if (this.closed) return
    this.closed = true
    for (const w of this.watchers.values()) this.store.cancelWatcher(w)
    this.watchers.clear()
    this.store.streamClosed(this)
  }
}

/** A watch over [key, end) with key >= end is refused (etcd's ErrEmptyWatcherRange); FROM_KEY and single keys never are. */
export function checkWatchRange(key: Uint8Array, end: RangeEnd): void {
  if (end instanceof Uint8Array && compareBytes(key, end) >= 0) throw new EmptyWatcherRangeError()
}

/** True when `key` is watched by a watcher over [wkey, end). */
export function watches(w: Watcher, key: Uint8Array): boolean {
  if (w.end === undefined) return compareBytes(key, w.key) === 0
  if (compareBytes(key, w.key) < 0) return false
  return w.end === FROM_KEY || compareBytes(key, w.end) < 0
}
