// etcd's v2store watcher: what one watch request waits on. Events queue up for its reader (Go's buffered
// channel of 100); a watcher whose reader falls 100 events behind is dropped from the hub and hears nothing
// more, though its reader still gets what was queued (as in etcd, the channel is left open). Remove() ends it.
import { eventIndex, type V2Event } from './event.js'

/** Events a watcher holds for its reader before it is dropped (etcd's channel capacity). */
export const WATCHER_QUEUE = 100

export class Watcher {
  readonly stream: boolean
  readonly recursive: boolean
  readonly sinceIndex: bigint
  /** The store index when the watch began (its X-Etcd-Index). */
  readonly startIndex: number
  /** Taken out of the hub (after its one event, on overflow, or by Remove). */
  removed = false
  /** Removed by its reader: nothing more will come. */
  closed = false
  private readonly queue: V2Event[] = []
  private wake: (() => void) | undefined
  /** Unhook from the hub; undefined for a watcher answered from history, which was never hooked. */
  unhook: (() => void) | undefined

  constructor(recursive: boolean, stream: boolean, sinceIndex: bigint, startIndex: number) {
    this.recursive = recursive
    this.stream = stream
    this.sinceIndex = sinceIndex
    this.startIndex = startIndex
  }

  /**
   * Offer an event at the watched path (`originalPath`), under it, or in a deleted directory holding it
   * (`deleted`); true when the watcher takes it.
   */
  notify(e: V2Event, originalPath: boolean, deleted: boolean): boolean {
    if (!((this.recursive || originalPath || deleted) && BigInt(eventIndex(e)) >= this.sinceIndex)) return false
    if (this.queue.length >= WATCHER_QUEUE) {
      this.unhook?.()
    } else {
      this.queue.push(e)
      this.wake?.()
    }
    return true
  }

  /** Queue an event before the watcher is handed out (an answer from history). */
  deliver(e: V2Event): void {
    this.queue.push(e)
  }

  /** The next queued event, if any. */
  take(): V2Event | undefined {
    return this.queue.shift()
  }

  /** Call `fn` whenever an event is queued (or the watcher is removed); replaces the previous listener. */
  onWake(fn: () => void): void {
    this.wake = fn
  }

  /** etcd's Watcher.Remove: end the watch and unhook it from the hub. */
  remove(): void {
    if (this.closed) return
    this.closed = true
    this.unhook?.()
    this.wake?.()
  }
}
