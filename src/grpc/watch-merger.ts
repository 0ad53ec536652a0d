// Response merging on a gRPC Watch call: while a watcher's last events response still waits in the call's
// queue (not yet encoded), the next revision's events join it instead of queuing another message, as etcd
// packs a watcher that fell behind into one response of several revisions, without the detour through the
// victim batch and the revision log. Only the gRPC front end merges; etcdserver/watch-server.ts tells why.
import type { WatchEvent, WatchResponse } from '../etcdserver/types/watch.js'
import type { WatchId } from '../pkg/watch-id.js'

/** Most revisions appended into one queued response (bounds what a backlogged stream holds). */
const MERGE_MAX_REVS = 16

/** A response as queued on the call: events may still be appended until the writer seals its batch. */
interface QueuedResponse extends WatchResponse {
  header: WatchResponse['header']
  events: readonly WatchEvent[]
  revs?: number
  /** Our own copy of the events once something was appended (the first array is shared with other watchers). */
  merged?: WatchEvent[]
}

/**
 * A plain events response: the only kind that may join, or be joined by, another. Every other kind (created,
 * canceled, a fragment, progress) is ordered against every watcher's events, so queuing it seals the queue.
 */
export const isPlainEvents = (resp: WatchResponse): boolean => resp.events.length !== 0 && !resp.created && !resp.canceled && !resp.fragment

/** Each watcher's last queued events response on one call, which later events may join until sealed. */
export class ResponseMerger {
  private readonly last = new Map<WatchId, QueuedResponse>()

  /**
   * Append a plain events response's events to its watcher's last queued response, if that is still open
   * and holds fewer than MERGE_MAX_REVS revisions. False: queue `resp` itself (then call queued()).
   */
  append(resp: WatchResponse): boolean {
    const q = this.last.get(resp.watchId)
    if (q === undefined || (q.revs ?? 1) >= MERGE_MAX_REVS) return false
    if (q.merged === undefined) q.events = q.merged = q.events.slice()
    for (const e of resp.events) q.merged.push(e)
    q.header = resp.header
    q.revs = (q.revs ?? 1) + 1
    return true
  }

  /** A plain events response is being queued: later events of its watcher may join it. Returns it. */
  queued(resp: WatchResponse): WatchResponse {
    // ServerWatchStream builds a fresh object per response: it is ours to append to.
    const q = resp as QueuedResponse
    this.last.set(resp.watchId, q)
    return q
  }

  /** Nothing queued so far may take more events (the writer took it, or another kind of response follows). */
  seal(): void {
    // Map.clear() allocates a fresh table even when empty.
    if (this.last.size !== 0) this.last.clear()
  }
}
