// Mirrors etcd mvcc/watchable_store.go: watchers in a synced group, an unsynced group and a victim batch,
// fed by the write path (notify) and two background loops (syncWatchers, syncVictims).
//
//            watch(startRev 0 or future)                     watch(startRev <= rev)
//                     |                                               |
//                     v          caught up (minRev > rev)             v
//   +--------> [ synced ] <------------------------------------- [ unsynced ] <---+
//   |                 |  notify: sink full                            |            |
//   | sent, and       v                                               | sink full  | sent, still behind
//   | caught up   [ victim ] <----------------------------------------+            |
//   +-----------------+--------------------------------------------------------------+
//
// Deviation from etcd: events are delivered only once the revision is durable (etcd notifies in End()
// and relies on its raft log for durability). Writes ended but not yet durable wait in PendingTxns
// (watchable-store-pending.ts). The victims and their retry are in watchable-store-victims.ts; what
// unsynced watchers catch up from (recent events in memory, else the revision log read through the
// WatchSource) in watchable-store-catchup.ts. The store under it is any WatchSource (mvcc/kv.ts).
import type { Clock } from '../pkg/clock.js'
import { Ticker } from '../pkg/ticker.js'
import { bytesToLatin1 } from '../pkg/bytes.js'
import { invariant } from '../pkg/verify.js'
import type { Change, Event, TxnObserver, WatchSource } from './kv.js'
import { CatchUpLog } from './watchable-store-catchup.js'
import { PendingTxns, toEvent } from './watchable-store-pending.js'
import { Victims } from './watchable-store-victims.js'
import { WatcherGroup, newWatcherBatch } from './watcher-group.js'
import { WatchStream, type WatchSink, type Watcher } from './watcher.js'
import type { WatchId } from '../pkg/watch-id.js'

export interface WatchableStoreOptions {
  /** Unsynced watchers served per catch-up round (etcd's maxWatchersPerSync). */
  readonly maxWatchersPerSync: number
  /** Distinct revisions per catch-up response (etcd's watchBatchMaxRevs). */
  readonly watchBatchMaxRevs: number
  /** Catch-up loop period in ms (etcd: 100 ms). */
  readonly syncIntervalMs: number
  /** Victim retry period in ms (etcd: 10 ms). */
  readonly victimIntervalMs: number
  /**
   * Most revision-log entries read in one catch-up round. etcd reads the whole range; a cap keeps a far
   * behind watcher from pulling the whole history into memory at once. Watchers then catch up over rounds.
   */
  readonly syncScanLimit: number
  /**
   * Keys, values and object overhead of the newest revisions' events kept in memory while any watch stream
   * is open (see RecentEvents): catch-up over those revisions reads no backend. 0 turns it off.
   */
  readonly recentEventsMaxBytes: number
  readonly clock: Clock
  /** Receives errors thrown by the background loops (which keep going). */
  readonly onError: (err: unknown) => void
}

export const WATCHABLE_STORE_DEFAULTS = {
  maxWatchersPerSync: 512,
  watchBatchMaxRevs: 1000,
  syncIntervalMs: 100,
  victimIntervalMs: 10,
  syncScanLimit: 100_000,
  recentEventsMaxBytes: 8 * 1024 * 1024,
} as const

/** With no victims the victim loop sleeps this long (it is poked awake when one appears). */
const IDLE_MS = 60_000

export class WatchableStore implements TxnObserver {
  /** The store under it: revisions, write history, the revision log. */
  private readonly source: WatchSource
  private readonly opts: WatchableStoreOptions
  private readonly synced = new WatcherGroup()
  private readonly unsynced = new WatcherGroup()
  private readonly victims = new Victims()
  private readonly deferred = new Set<WatchStream>()
  private readonly streams = new Set<WatchStream>()
  /** Ended write txns waiting for their commit. */
  private readonly pending = new PendingTxns()
  /** What unsynced watchers catch up from: recent events in memory, else the revision log. */
  private readonly catchUp: CatchUpLog
  /** Watchers have been notified of every revision up to this one. */
  private notified: number
  private readonly syncLoop: Ticker
  private readonly victimLoop: Ticker
  private closed = false

  constructor(source: WatchSource, opts: Partial<WatchableStoreOptions> & Pick<WatchableStoreOptions, 'clock' | 'onError'>) {
    this.source = source
    this.opts = { ...WATCHABLE_STORE_DEFAULTS, ...opts }
    this.notified = source.durableRev()
    this.catchUp = new CatchUpLog(source, this.notified, this.opts.recentEventsMaxBytes, this.opts.syncScanLimit)
    invariant(source.durableRev() === source.rev(), 'watchable store must start on a quiescent store')
    source.observe(this)
    this.syncLoop = new Ticker(() => this.syncRound(), this.opts.syncIntervalMs, this.opts.clock, this.opts.onError)
    this.victimLoop = new Ticker(() => this.victimRound(), IDLE_MS, this.opts.clock, this.opts.onError)
    this.syncLoop.start()
    this.victimLoop.start()
  }

  /** The revision every watcher has been (or is being) brought up to: the newest durable revision notified. */
  rev(): number {
    return this.notified
  }

  /** A new watch stream delivering into `sink`. */
  newWatchStream(sink: WatchSink): WatchStream {
    const ws = new WatchStream(this, sink)
    this.streams.add(ws)
    return ws
  }

  /** How many watchers are in each place (for tests and metrics). */
  counts(): { synced: number; unsynced: number; victims: number } {
    return { synced: this.synced.size, unsynced: this.unsynced.size, victims: this.victims.size }
  }

  /** How many watch streams are open (metrics: etcd_debugging_mvcc_watch_stream_total). */
  streamCount(): number {
    return this.streams.size
  }

  /** A sink that was full can take more (WatchStream.resume): retry victims now rather than at the next tick. */
  kickVictims(): void {
    if (this.victims.size !== 0) this.victimLoop.poke()
  }

  /** Stop both loops (awaiting a round in flight). Streams stay open but receive nothing more. */
  async close(): Promise<void> {
    this.closed = true
    this.catchUp.close()
    await this.syncLoop.stop()
    await this.victimLoop.stop()
  }

  /** @internal Place a new watcher (etcd's watchableStore.watch). */
  addWatcher(w: Watcher): void {
    const cur = this.notified
    if (w.startRev === 0 || w.startRev > cur) {
      w.minRev = Math.max(cur + 1, w.startRev)
      this.place(w, 'synced')
    } else {
      w.minRev = w.startRev
      this.place(w, 'unsynced')
      this.syncLoop.poke()
    }
  }

  /** @internal Remove a watcher from wherever it is. */
  cancelWatcher(w: Watcher): void {
    if (w.state === 'synced') this.synced.delete(w)
    else if (w.state === 'unsynced') this.unsynced.delete(w)
    else if (w.state === 'victim') this.victims.delete(w)
    w.state = 'gone'
  }

  /** @internal */
  streamClosed(ws: WatchStream): void {
    this.streams.delete(ws)
    this.deferred.delete(ws)
  }

  /** @internal A stream's progress request waits until its watchers are synced. */
  deferProgress(ws: WatchStream): void {
    this.deferred.add(ws)
  }

  /**
   * @internal Send a progress response (revision = rev()) as `responseId` through the first watcher's sink,
   * if every watcher is synced and none waits for a future start revision (etcd 3.4.25+). False if
   * not sent (not all synced, no watchers, or the sink is full).
   */
  progressIfSync(watchers: Iterable<Watcher>, responseId: WatchId): boolean {
    const rev = this.notified
    let first: Watcher | undefined
    for (const w of watchers) {
      if (w.state !== 'synced' || rev < w.startRev) return false
      first ??= w
    }
    if (first === undefined) return false
    return first.stream.sink.trySend({ watchId: responseId, events: [], revision: rev, compactRevision: 0 })
  }

  /** @internal TxnObserver: remember the txn until it is durable. */
  txnEnded(rev: number, changes: readonly Change[]): void {
    this.pending.push(rev, changes)
  }

  /** @internal TxnObserver: the pending txns after `rev` never became durable; nobody hears of them. */
  rolledBack(rev: number): void {
    this.pending.rollBack(rev)
  }

  /** @internal TxnObserver: notify synced watchers of every pending txn up to `rev`, in order. */
  durable(rev: number): void {
    this.pending.takeUpTo(rev, (txnRev, changes) => {
      this.notified = txnRev
      if (this.streams.size === 0) {
        // Nobody watches: nothing to notify, nothing worth remembering.
        this.catchUp.forget(txnRev)
        return
      }
      const events = changes.map((c) => toEvent(txnRev, c))
      const keyStrs = events.map((e) => bytesToLatin1(e.kv.key))
      this.catchUp.remember(txnRev, events, keyStrs)
      if (this.synced.size !== 0) this.notify(txnRev, events, keyStrs)
    })
    if (rev > this.notified) this.notified = rev
  }

  /**
   * etcd's notify: one response per matching synced watcher; a full sink makes the watcher a victim. The
   * event objects are shared by every watcher (and kept for catch-up): the encoder encodes each once.
   */
  private notify(rev: number, events: readonly Event[], keyStrs: readonly string[]): void {
    let victims: Array<[Watcher, readonly Event[]]> | undefined
    const deliver = (w: Watcher, evs: readonly Event[]): void => {
      if (!w.send(evs, rev)) (victims ??= []).push([w, evs])
      // Advance minRev whether or not the send succeeded (etcd 3.4.25+): the victim batch holds these events.
      w.minRev = rev + 1
    }
    if (events.length === 1) {
      const ev = events[0] as Event
      this.synced.forEachMatch(keyStrs[0] as string, ev.kv.key, (w) => {
        if (rev >= w.minRev) deliver(w, events)
      })
    } else {
      for (const [w, eb] of newWatcherBatch(this.synced, events, keyStrs, Number.MAX_SAFE_INTEGER)) deliver(w, eb.events)
    }
    if (victims !== undefined) {
      // Moved after the loop: the group is not changed while it is being matched against.
      for (const [w, evs] of victims) {
        this.synced.delete(w)
        w.state = 'victim'
        this.victims.set(w, { events: evs.slice(), revs: 1, moreRev: 0 })
      }
      this.victimLoop.poke()
    }
  }

  /**
   * One catch-up round; returns the delay until the next. While watchers remain unsynced the next round
   * follows at once: a round already yields to the event loop while it reads the log, so writers keep
   * their turn (etcd instead sleeps as long as the round took, which doubles catch-up time here).
   */
  private async syncRound(): Promise<number | undefined> {
    const left = await this.syncWatchers()
    if (left === 0) this.catchUp.dropCache()
    this.retryDeferredProgress()
    return left === 0 ? undefined : 0
  }

  /**
   * etcd's syncWatchers: pick up to maxWatchersPerSync unsynced watchers, cancel the compacted ones, read the
   * revision log from their smallest minRev to rev(), and send each its events (at most watchBatchMaxRevs
   * revisions). Returns how many unsynced watchers are left.
   */
  private async syncWatchers(): Promise<number> {
    if (this.unsynced.size === 0 || this.closed) return 0
    const curRev = this.notified
    const compactRev = this.source.compactRev()
    const chosen = new WatcherGroup()
    let minRev = Number.MAX_SAFE_INTEGER
    for (const w of this.unsynced.watchers) {
      if (chosen.size >= this.opts.maxWatchersPerSync) break
      if (w.minRev > curRev) {
        // Nothing to read (e.g. a victim that came back already caught up).
        this.move(w, 'synced')
        continue
      }
      if (w.minRev < compactRev) {
        // Strict, as etcd: a watch starting exactly at the compacted revision is still served.
        if (w.send([], 0, compactRev)) {
          // Gone from the store; its ID stays taken on the stream until canceled, as in etcd.
          this.unsynced.delete(w)
          w.state = 'gone'
        }
        continue
      }
      chosen.add(w)
      if (w.minRev < minRev) minRev = w.minRev
    }
    if (chosen.size === 0) return this.unsynced.size

    const read = await this.catchUp.read(minRev, curRev, chosen)
    if (read === undefined) return 0
    const { events, keyStrs, upTo } = read

    const batches = newWatcherBatch(chosen, events, keyStrs, this.opts.watchBatchMaxRevs)
    let victimAdded = false
    for (const w of chosen.watchers) {
      // Canceled, or moved, while the log was read.
      if (w.state !== 'unsynced') continue
      // A watcher starting above upTo (the scan stopped early) keeps its own, higher minRev.
      w.minRev = Math.max(w.minRev, upTo + 1)
      const eb = batches.get(w)
      if (eb === undefined) {
        if (w.minRev > this.notified) this.move(w, 'synced')
        continue
      }
      if (eb.moreRev !== 0) w.minRev = eb.moreRev
      // The response revision is the store revision read up to, even when capped (as etcd).
      if (w.send(eb.events, curRev)) {
        if (w.minRev > this.notified) this.move(w, 'synced')
        else {
          // Still behind: go to the back of the line, so every unsynced watcher gets its turn.
          this.unsynced.delete(w)
          this.unsynced.add(w)
        }
      } else {
        this.unsynced.delete(w)
        w.state = 'victim'
        this.victims.set(w, eb)
        victimAdded = true
      }
    }
    if (victimAdded) this.victimLoop.poke()
    return this.unsynced.size
  }

  /** etcd's moveVictims: retry each victim's batch; those delivered go back to synced or unsynced. */
  private victimRound(): number | undefined {
    if (this.closed) return undefined
    const sent = this.victims.retry((w) => this.place(w, w.minRev <= this.notified ? 'unsynced' : 'synced'))
    if (sent) {
      if (this.unsynced.size !== 0) this.syncLoop.poke()
      this.retryDeferredProgress()
    }
    return this.victims.size === 0 ? undefined : this.opts.victimIntervalMs
  }

  private retryDeferredProgress(): void {
    for (const ws of this.deferred) if (ws.retryProgress()) this.deferred.delete(ws)
  }

  private place(w: Watcher, state: 'synced' | 'unsynced'): void {
    w.state = state
    if (state === 'synced') this.synced.add(w)
    else this.unsynced.add(w)
  }

  private move(w: Watcher, to: 'synced' | 'unsynced'): void {
    if (w.state === 'synced') this.synced.delete(w)
    else if (w.state === 'unsynced') this.unsynced.delete(w)
    this.place(w, to)
  }
}
