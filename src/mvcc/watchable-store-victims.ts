// The watchable store's victims (etcd's watchableStore.victims and moveVictims): watchers whose stream was
// full when they had events to send, each holding the one batch it could not send.
import type { EventBatch } from './watcher-group.js'
import type { Watcher, WatchStream } from './watcher.js'

/** Victims and their pending batches, grouped by stream: a retry round skips a full stream after one refusal. */
export class Victims {
  private readonly byStream = new Map<WatchStream, Map<Watcher, EventBatch>>()
  private count = 0

  get size(): number {
    return this.count
  }

  set(w: Watcher, eb: EventBatch): void {
    let m = this.byStream.get(w.stream)
    if (m === undefined) {
      m = new Map()
      this.byStream.set(w.stream, m)
    }
    if (!m.has(w)) this.count++
    m.set(w, eb)
  }

  delete(w: Watcher): boolean {
    const m = this.byStream.get(w.stream)
    if (m === undefined || !m.delete(w)) return false
    this.count--
    if (m.size === 0) this.byStream.delete(w.stream)
    return true
  }

  /**
   * One retry round (etcd's moveVictims): offer each victim its batch again. One that is taken leaves the
   * victims, its minRev past the batch, and goes to `delivered`. Returns whether any batch was taken.
   */
  retry(delivered: (w: Watcher) => void): boolean {
    let sent = false
    for (const [, batches] of this.byStream) {
      for (const [w, eb] of batches) {
        // The watcher has seen everything below minRev once this batch is out. A refusal means the stream
        // is full: its other victims wait for the next round.
        if (!w.send(eb.events, w.minRev - 1)) break
        sent = true
        this.delete(w)
        if (eb.moreRev !== 0) w.minRev = eb.moreRev
        delivered(w)
      }
    }
    return sent
  }
}
