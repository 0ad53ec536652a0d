// Where a watcher picks up after its stream broke, so that across any number of reconnects it delivers
// every event exactly once, in order. Only what proves delivery moves the resume point:
// - an event's mod_revision (the next start is the one after the last event delivered);
// - a progress notification of this watcher (no events, its own watch ID): etcd sends one only while the
//   watcher is synced, so everything up to its header revision has been delivered;
// - the created response of a watcher that starts "from now" (start revision 0): it starts after the
//   header revision.
// The header revision of any other response is the store's current revision, not how far the watcher has
// got: a created response of a watcher replaying history, an events response in the middle of a replay,
// and the answer to a progress request (watch ID -1), which etcd 3.4 sends at once even while the watcher
// is still replaying. Those never move it. Fragments of a response are held until the last one arrives:
// a stream that breaks between them has delivered none, and the whole response comes again.
import type { WatchCreateRequest, WatchResponse } from '../etcdserver/types/watch.js'
import type { WatchId } from '../pkg/watch-id.js'

export class ResumableWatcher {
  /** The create request as the caller sent it. */
  readonly request: WatchCreateRequest
  /** The ID the caller knows it by (the server's answer to the first create); undefined until then. */
  id: WatchId | undefined
  /** A cancel was asked for: it is sent once the watcher exists on the current stream. */
  canceling = false
  /** The start revision of a re-create; 0 while it would start "from now". */
  private nextRev: number
  private fragments: WatchResponse[] = []

  constructor(request: WatchCreateRequest) {
    this.request = request
    this.nextRev = request.startRevision ?? 0
  }

  /** The revision a re-created watcher starts at (0: from the next write). */
  get resumeRevision(): number {
    return this.nextRev
  }

  /** Its first created response (not one for a re-create). */
  created(resp: WatchResponse): void {
    this.id = resp.watchId
    if (this.nextRev === 0) this.nextRev = resp.header.revision + 1
  }

  /** An events or progress response for this watcher: what to hand to the caller now, in order. */
  received(resp: WatchResponse): readonly WatchResponse[] {
    const last = resp.events[resp.events.length - 1]
    if (resp.fragment) {
      this.fragments.push(resp)
      return []
    }
    if (last === undefined) {
      // Only this watcher's own progress notification (not the answer to a progress request, ID -1).
      if (resp.watchId === this.id) this.nextRev = Math.max(this.nextRev, resp.header.revision + 1)
    } else {
      this.nextRev = last.kv.modRevision + 1
    }
    if (this.fragments.length === 0) return [resp]
    const out = [...this.fragments, resp]
    this.fragments = []
    return out
  }

  /** The stream broke: fragments of an unfinished response are dropped (it comes again, whole). */
  interrupted(): void {
    this.fragments = []
  }

  /**
   * The create request that continues this watcher on a new stream. It asks for the same watch ID, so the
   * caller's IDs stay valid and IDs the server picks later cannot collide with them; ID 0 cannot be asked
   * for (0 means "pick one"), so its watcher is re-created first, when a new stream picks 0.
   */
  resumeRequest(): WatchCreateRequest {
    if (this.id === undefined) return this.request
    return { ...this.request, startRevision: this.nextRev, watchId: this.id === 0 ? 0 : this.id }
  }
}
