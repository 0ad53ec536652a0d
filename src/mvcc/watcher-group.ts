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

  /** The single-key watchers of `keyStr`: one, a set of them, or undefined. Do not change the set. */
  keyWatchersOf(keyStr: string): Watcher | ReadonlySet<Watcher> | undefined {
    return this.keyWatchers.get(keyStr)
  }

  /** True if the group has range (range, prefix or from-key) watchers. */
  get hasRanges(): boolean {
    return this.ranges.size !== 0
  }

  /** Call fn for every range watcher that wants `key` (each at most once per call). */
  forEachRangeMatch(key: Uint8Array, fn: (w: Watcher) => void): void {
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
 *
 * Single-key watchers are served per key, not per event: their key's events are listed once, and the
 * watchers of a key with the same minRev share one batch object and one events array (fan-out: thousands of
 * watchers on a key cost one batch; the encoder then reuses the encoded events for all of them). A batch
 * is therefore read-only once returned. Range watchers are matched per event through the interval tree.
 */
export function newWatcherBatch(group: WatcherGroup, events: readonly Event[], keyStrs: readonly string[], maxRevs: number): Map<Watcher, EventBatch> {
  const wb = new Map<Watcher, EventBatch>()
  if (group.size === 0 || events.length === 0) return wb
  // Positions of each key's events (ascending, so in revision order).
  const byKey = new Map<string, number[]>()
  for (let i = 0; i < events.length; i++) {
    const ks = keyStrs[i] as string
    const at = byKey.get(ks)
    if (at === undefined) byKey.set(ks, [i])
    else at.push(i)
  }
  for (const [ks, at] of byKey) {
    const cur = group.keyWatchersOf(ks)
    if (cur === undefined) continue
    if (cur instanceof Set) {
      const byMinRev = new Map<number, EventBatch | null>()
      for (const w of cur as ReadonlySet<Watcher>) {
        let eb = byMinRev.get(w.minRev)
        if (eb === undefined) {
          eb = keyBatch(events, at, w.minRev, maxRevs)
          byMinRev.set(w.minRev, eb)
        }
        if (eb !== null) wb.set(w, eb)
      }
    } else {
      const w = cur as Watcher
      const eb = keyBatch(events, at, w.minRev, maxRevs)
      if (eb !== null) wb.set(w, eb)
    }
  }
  if (!group.hasRanges) return wb
  for (let i = 0; i < events.length; i++) {
    const ev = events[i] as Event
    group.forEachRangeMatch(ev.kv.key, (w) => {
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

/** The batch of events[at[...]] from minRev on, capped at maxRevs revisions; null if there is none. */
function keyBatch(events: readonly Event[], at: readonly number[], minRev: number, maxRevs: number): EventBatch | null {
  // First position at or after minRev.
  let lo = 0
  let hi = at.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((events[at[mid] as number] as Event).kv.modRevision < minRev) lo = mid + 1
    else hi = mid
  }
  if (lo === at.length) return null
  const eb: EventBatch = { events: [], revs: 0, moreRev: 0 }
  for (let j = lo; j < at.length && eb.moreRev === 0; j++) addToBatch(eb, events[at[j] as number] as Event, maxRevs)
  return eb
}
