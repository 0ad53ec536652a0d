// The watchable store's memory of the newest revisions' events (no etcd counterpart: etcd's syncWatchers
// always reads the revision log from the backend). See RecentEvents.
import type { Event } from './kv.js'

/** What keeping one event costs beyond its key and value bytes (the Event and KeyValue objects, the slots). */
const EVENT_OVERHEAD_BYTES = 128

/**
 * The events of every revision in [from, upTo], in revision order, as the write path notified them: the
 * same Event objects the synced watchers got. A watcher that fell behind by a little (a victim, a watcher
 * whose stream was full for a moment) catches up from here instead of from the backend, and gets the very
 * objects its neighbours got, so the encoder's caches (per event and per events list) keep hitting.
 *
 * Bounded: past `maxBytes` (keys, values and EVENT_OVERHEAD_BYTES per event) the oldest revisions are
 * dropped, whole. Empty (from = upTo + 1) until the first revision is appended.
 */
export class RecentEvents {
  private events: Event[] = []
  private keyStrs: string[] = []
  /** events[0 .. head) are dropped and wait to be cut off in one go. */
  private head = 0
  private bytes = 0
  /** The oldest revision whose events are all held. */
  private fromRev: number
  /** The newest revision appended. */
  private upToRev: number

  /** Start empty, just after revision `rev`. */
  constructor(
    rev: number,
    private readonly maxBytes: number,
  ) {
    this.fromRev = rev + 1
    this.upToRev = rev
  }

  get from(): number {
    return this.fromRev
  }

  get upTo(): number {
    return this.upToRev
  }

  /** True if every event of every revision in [minRev, upTo] is held and upTo is `curRev`. */
  covers(minRev: number, curRev: number): boolean {
    return this.upToRev === curRev && minRev >= this.fromRev && this.maxBytes > 0
  }

  /**
   * Append revision `rev`'s events (`rev` must be upTo + 1; otherwise everything held is forgotten and the
   * memory starts again at `rev`).
   */
  append(rev: number, events: readonly Event[], keyStrs: readonly string[]): void {
    if (rev !== this.upToRev + 1) this.reset(rev - 1)
    this.upToRev = rev
    if (this.maxBytes <= 0) {
      this.fromRev = rev + 1
      return
    }
    for (let i = 0; i < events.length; i++) {
      const ev = events[i] as Event
      this.events.push(ev)
      this.keyStrs.push(keyStrs[i] as string)
      this.bytes += ev.kv.key.length + ev.kv.value.length + EVENT_OVERHEAD_BYTES
    }
    if (this.bytes > this.maxBytes) this.trim()
  }

  /** Forget everything; the memory starts again after `rev`. */
  reset(rev: number): void {
    this.events = []
    this.keyStrs = []
    this.head = 0
    this.bytes = 0
    this.fromRev = rev + 1
    this.upToRev = rev
  }

  /**
   * Call fn(event, keyStr) for each held event at or after minRev, in order (minRev must be covered). No
   * append may happen during the walk (it is synchronous).
   */
  forEachFrom(minRev: number, fn: (ev: Event, keyStr: string) => void): void {
    const events = this.events
    let lo = this.head
    let hi = events.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((events[mid] as Event).kv.modRevision < minRev) lo = mid + 1
      else hi = mid
    }
    for (let i = lo; i < events.length; i++) fn(events[i] as Event, this.keyStrs[i] as string)
  }

  /** Drop the oldest revisions, whole, until at most 3/4 of maxBytes is held (so trims are rare). */
  private trim(): void {
    const target = (this.maxBytes * 3) / 4
    const events = this.events
    let i = this.head
    while (i < events.length && this.bytes > target) {
      const rev = (events[i] as Event).kv.modRevision
      while (i < events.length && (events[i] as Event).kv.modRevision === rev) {
        const ev = events[i] as Event
        this.bytes -= ev.kv.key.length + ev.kv.value.length + EVENT_OVERHEAD_BYTES
        i++
      }
      this.fromRev = rev + 1
    }
    this.head = i
    // Cut the dropped slots off once they are the larger part (amortized O(1) per event).
    if (this.head * 2 >= events.length) {
      this.events = events.slice(this.head)
      this.keyStrs = this.keyStrs.slice(this.head)
      this.head = 0
    }
  }
}
