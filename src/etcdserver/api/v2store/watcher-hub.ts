// etcd's v2store watcherHub: watchers by watched path, the event history, and the notification walk that
// tells each watcher on the event's path (and, for deletions, on every removed path) about an event.
import { clean, join } from '../../../pkg/go-path.js'
import { V2Error } from '../v2error/error.js'
import { cloneEvent, type V2Event } from './event.js'
import { EventHistory } from './event-history.js'
import { Watcher } from './watcher.js'

/** isHidden: whether the part of keyPath below watchPath goes through a hidden ("_") name. */
function isHidden(watchPath: string, keyPath: string): boolean {
  // A deletion notifies watchers deeper than the deleted key (on /foo/bar when /foo goes).
  if (watchPath.length > keyPath.length) return false
  return clean(`/${keyPath.slice(watchPath.length)}`).includes('/_')
}

export class WatcherHub {
  /** Watchers hooked in (the "watchers" store statistic). */
  count = 0
  readonly eventHistory: EventHistory
  private readonly watchers = new Map<string, Set<Watcher>>()

  constructor(capacity: number) {
    this.eventHistory = new EventHistory(capacity)
  }

  /**
   * A watcher for `key` from `index` on. If the history holds an event for it, the watcher comes back with
   * that event queued and is not hooked in; otherwise it waits for the next one.
   */
  watch(key: string, recursive: boolean, stream: boolean, index: bigint, storeIndex: number): Watcher | V2Error {
    const found = this.eventHistory.scan(key, recursive, index)
    if (found instanceof V2Error) {
      found.index = storeIndex
      return found
    }
    const w = new Watcher(recursive, stream, index, storeIndex)
    if (found !== undefined) {
      const e = cloneEvent(found)
      e.etcdIndex = storeIndex
      w.deliver(e)
      return w
    }
    let list = this.watchers.get(key)
    if (list === undefined) {
      list = new Set()
      this.watchers.set(key, list)
    }
    const l = list
    l.add(w)
    w.unhook = () => {
      if (w.removed) return
      w.removed = true
      l.delete(w)
      this.count--
      if (l.size === 0 && this.watchers.get(key) === l) this.watchers.delete(key)
    }
    this.count++
    return w
  }

  /** Record an event without notifying anyone (a TTL refresh); returns the event the history dropped. */
  add(e: V2Event): V2Event | undefined {
    return this.eventHistory.addEvent(e)
  }

  /** Record an event and notify the watchers of every path from the root down to its key. */
  notify(e: V2Event): V2Event | undefined {
    const dropped = this.eventHistory.addEvent(e)
    let curr = '/'
    for (const segment of (e.node?.key ?? '').split('/')) {
      curr = join(curr, segment)
      this.notifyWatchers(e, curr, false)
    }
    return dropped
  }

  /** Notify the watchers of `nodePath`; those that take it and do not stream are done. */
  notifyWatchers(e: V2Event, nodePath: string, deleted: boolean): void {
    const l = this.watchers.get(nodePath)
    if (l === undefined) return
    const key = e.node?.key ?? ''
    for (const w of l) {
      const originalPath = key === nodePath
      if ((originalPath || !isHidden(nodePath, key)) && w.notify(e, originalPath, deleted) && !w.stream && !w.removed) {
        w.removed = true
        l.delete(w)
        this.count--
      }
    }
    if (l.size === 0 && this.watchers.get(nodePath) === l) this.watchers.delete(nodePath)
  }

  /** End every hooked watcher (the store they watch is being replaced). */
  removeAll(): void {
    for (const l of [...this.watchers.values()]) for (const w of [...l]) w.remove()
  }
}
