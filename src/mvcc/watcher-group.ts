// Mirrors etcd mvcc/watcher_group.go: watchers indexed for matching event keys, and event batches.
import { IntervalTree } from '../pkg/interval-tree.js'
import type { Event } from './kv.js'
import type { Watcher } from './watcher.js'

/**
 * A group of watchers (synced or unsynced). Single-key watchers are found through a map keyed by the
 * key's latin1 string; range, prefix and from-key watchers through an interval tree over byte ranges.
 * Matching an event key costs one map lookup plus one tree stab, whatever the group's size.
 */
export class WatcherGroup {
  /** Every member, in the order added (the unsynced loop serves them in this order). */
  readonly watchers = new Set<Watcher>()
  /** A key's only watcher, or the set of them (most keys have one: no Set per watcher). */
  private readonly keyWatchers = new Map<string, Watcher | Set<Watcher>>()
  private readonly ranges = new IntervalTree<Watcher>()

  get size(): number {
    return this.watchers.size
  }

  has(w: Watcher): boolean {
    return this.watchers.has(w)
  }

  add(w: Watcher): void {
    this.watchers.add(w)
    if (w.end === undefined) {
      const cur = this.keyWatchers.get(w.keyStr)
      if (cur === undefined) this.keyWatchers.set(w.keyStr, w)
      else if (cur instanceof Set) cur.add(w)
      else this.keyWatchers.set(w.keyStr, new Set([cur, w]))
    } else this.ranges.insert(w.key, w.end, w)
  }

  /** Remove a watcher; false if it was not a member. */
  delete(w: Watcher): boolean {
    if (!this.watchers.delete(w)) return false
    if (w.end === undefined) {
      const cur = this.keyWatchers.get(w.keyStr)
      if (cur === w) this.keyWatchers.delete(w.keyStr)
      else if (cur instanceof Set) {
        cur.delete(w)
        if (cur.size === 1) this.keyWatchers.set(w.keyStr, cur.values().next().value as Watcher)
      }
    } else this.ranges.delete(w.key, w.end, w)
    return true
  }

  /** True if some watcher of the group wants `key` (filters catch-up scans). */
  contains(keyStr: string, key: Uint8Array): boolean {
    return this.keyWatchers.has(keyStr) || (this.ranges.size !== 0 && this.ranges.intersects(key))
  }

  /** Call fn for every watcher that wants `key` (each at most once per call). */
  forEachMatch(keyStr: string, key: Uint8Array, fn: (w: Watcher) => void): void {
    const cur = this.keyWatchers.get(keyStr)
    if (cur instanceof Set) for (const w of cur) fn(w)
    else if (cur !== undefined) fn(cur)
    if (this.ranges.size !== 0) this.ranges.stab(key, fn)
  }
}

/** The events one watcher gets from a batch of revisions, capped at `maxRevs` distinct revisions. */
export interface EventBatch {
  readonly events: Event[]
  /** Distinct revisions in `events`. */
  revs: number
  /** The first revision left out because of the cap (0: nothing left out). */
  moreRev: number
}

/** Append an event to a batch unless the batch is full (etcd's eventBatch.add). */
export function addToBatch(eb: EventBatch, ev: Event, maxRevs: number): void {
  if (eb.moreRev !== 0) return
  const last = eb.events[eb.events.length - 1]
  if (last === undefined) {
    eb.revs = 1
    eb.events.push(ev)
    return
  }
  if (ev.kv.modRevision > last.kv.modRevision) {
    if (eb.revs >= maxRevs) {
      eb.moreRev = ev.kv.modRevision
      return
    }
    eb.revs++
  }
  eb.events.push(ev)
}

/**
 * Bucket events (in revision order) per watcher of `group` that wants them, skipping events below each
 * watcher's minRev so nothing is delivered twice (etcd's newWatcherBatch).
 */
export function newWatcherBatch(group: WatcherGroup, events: readonly Event[], keyStrs: readonly string[], maxRevs: number): Map<Watcher, EventBatch> {
  const wb = new Map<Watcher, EventBatch>()
  if (group.size === 0) return wb
  for (let i = 0; i < events.length; i++) {
    const ev = events[i] as Event
    group.forEachMatch(keyStrs[i] as string, ev.kv.key, (w) => {
      if (ev.kv.modRevision < w.minRev) return
      let eb = wb.get(w)
      if (eb === undefined) {
        eb = { events: [], revs: 0, moreRev: 0 }
        wb.set(w, eb)
      }
      addToBatch(eb, ev, maxRevs)
    })
  }
  return wb
}
