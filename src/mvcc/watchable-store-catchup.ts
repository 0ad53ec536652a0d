// What an unsynced watcher catches up from (etcd's syncWatchers reads the revision log on every round):
// the newest revisions' events kept in memory (RecentEvents), else the revision log, whose last decoded span
// is kept while watchers are still catching up over it.
import { bytesToLatin1 } from '../pkg/bytes.js'
import type { Event, WatchSource } from './kv.js'
import { RecentEvents } from './watchable-store-recent.js'
import type { WatcherGroup } from './watcher-group.js'

/** The events of [from, upTo] that a round's watchers want, in revision order, with their keys as latin1. */
export interface CatchUp {
  readonly upTo: number
  readonly events: Event[]
  readonly keyStrs: string[]
}

/** A decoded span of the revision log: every event in [from, upTo], in revision order. */
interface LogSpan extends CatchUp {
  readonly from: number
  /** Encoded size of the span's values (what keeping it costs). */
  readonly bytes: number
}

/** A decoded log span larger than this is not kept between catch-up rounds. */
const LOG_CACHE_MAX_BYTES = 64 * 1024 * 1024

/** The events at or after `minRev` in `events` (sorted by revision) that `chosen` wants. */
function wanted(events: readonly Event[], keyStrs: readonly string[], minRev: number, chosen: WatcherGroup, out: CatchUp): void {
  // Binary search for the first event at or after minRev.
  let lo = 0
  let hi = events.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((events[mid] as Event).kv.modRevision < minRev) lo = mid + 1
    else hi = mid
  }
  for (let i = lo; i < events.length; i++) {
    const ev = events[i] as Event
    const keyStr = keyStrs[i] as string
    if (!chosen.contains(keyStr, ev.kv.key)) continue
    out.events.push(ev)
    out.keyStrs.push(keyStr)
  }
}

/**
 * The catch-up reader of one watchable store. Events served from memory are the very objects the synced
 * watchers got, and a cached span's events are shared by every round that reads it, so the encoder's
 * per-event caches keep hitting and each event is encoded once.
 */
export class CatchUpLog {
  /** The newest notified revisions' events, for catch-up without a backend read. */
  private readonly recent: RecentEvents
  /** The log span the last catch-up round read; dropped once no watcher is unsynced. */
  private cache: LogSpan | undefined
  private closed = false

  /**
   * @param rev the revision the store starts at (nothing older is remembered)
   * @param recentMaxBytes bound of the remembered events (RecentEvents); 0 turns it off
   * @param scanLimit most revision-log entries read in one round
   */
  constructor(
    private readonly source: WatchSource,
    rev: number,
    recentMaxBytes: number,
    private readonly scanLimit: number,
  ) {
    this.recent = new RecentEvents(rev, recentMaxBytes)
  }

  /** Remember revision `rev`'s events, as notified. */
  remember(rev: number, events: readonly Event[], keyStrs: readonly string[]): void {
    this.recent.append(rev, events, keyStrs)
  }

  /** Nobody watches: forget what is remembered; memory starts again after `rev`. */
  forget(rev: number): void {
    this.recent.reset(rev)
  }

  /** No watcher is catching up any more: the cached span is of no further use. */
  dropCache(): void {
    this.cache = undefined
  }

  /** The store is closing: a read in flight gives up once its scan returns. */
  close(): void {
    this.closed = true
  }

  /**
   * The events in [minRev, curRev] that `chosen` wants, in revision order, and the revision read up to
   * (below curRev when the scan limit stopped it); undefined once closed. The span read is kept, decoded,
   * while watchers are catching up: the next rounds (other watchers, the same history) reuse it. A span over
   * LOG_CACHE_MAX_BYTES is not kept.
   */
  async read(minRev: number, curRev: number, chosen: WatcherGroup): Promise<CatchUp | undefined> {
    const out: CatchUp = { upTo: curRev, events: [], keyStrs: [] }
    if (this.recent.covers(minRev, curRev)) {
      // Every event wanted is in memory, as the same objects the synced watchers got.
      this.recent.forEachFrom(minRev, (ev, keyStr) => {
        if (!chosen.contains(keyStr, ev.kv.key)) return
        out.events.push(ev)
        out.keyStrs.push(keyStr)
      })
      return out
    }
    let span = this.cache
    if (span === undefined || minRev < span.from || span.upTo > curRev) {
      span = await this.scan(minRev, curRev)
      if (span === undefined) return undefined
    } else if (span.upTo < curRev) {
      const more = this.recent.covers(span.upTo + 1, curRev) ? this.recentSpan(span.upTo + 1, curRev) : await this.scan(span.upTo + 1, curRev)
      if (more === undefined) return undefined
      span = { from: span.from, upTo: more.upTo, events: span.events.concat(more.events), keyStrs: span.keyStrs.concat(more.keyStrs), bytes: span.bytes + more.bytes }
    }
    this.cache = span.bytes <= LOG_CACHE_MAX_BYTES ? span : undefined
    const read: CatchUp = { upTo: span.upTo, events: out.events, keyStrs: out.keyStrs }
    wanted(span.events, span.keyStrs, minRev, chosen, read)
    return read
  }

  /** The events of [from, upTo] from `recent` (which must cover them), as a span. */
  private recentSpan(from: number, upTo: number): LogSpan {
    const events: Event[] = []
    const keyStrs: string[] = []
    let bytes = 0
    this.recent.forEachFrom(from, (ev, keyStr) => {
      events.push(ev)
      keyStrs.push(keyStr)
      bytes += ev.kv.key.length + ev.kv.value.length
    })
    return { from, upTo, events, keyStrs, bytes }
  }

  /** Read and decode the revision log over [from, to], stopping early (at a whole revision) at the scan limit. */
  private async scan(from: number, to: number): Promise<LogSpan | undefined> {
    const { upTo, events, bytes } = await this.source.readLog(from, to, this.scanLimit)
    if (this.closed) return undefined
    return { from, upTo, events, keyStrs: events.map((e) => bytesToLatin1(e.kv.key)), bytes }
  }
}
