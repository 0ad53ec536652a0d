// Mirrors etcd lease/lease_queue.go (LeaseQueue + LeaseExpiredNotifier): an indexed binary min-heap of
// lease expiry times, one entry per lease, updated in place on renew.

/** One entry: a lease ID and the clock time (ms) at which it is due. */
export interface LeaseWithTime {
  readonly id: bigint
  time: number
  /** Position in the heap array (maintained by the queue). */
  index: number
}

/**
 * Min-heap by `time` with an ID index: registerOrUpdate() is O(log n) whether the lease is new or already
 * queued, so a lease never has more than one entry however often it is renewed.
 */
export class LeaseQueue {
  private readonly heap: LeaseWithTime[] = []
  private readonly byId = new Map<bigint, LeaseWithTime>()

  get size(): number {
    return this.heap.length
  }

  /** The earliest entry, or undefined when empty. */
  peek(): LeaseWithTime | undefined {
    return this.heap[0]
  }

  /** How many entries are due at `now` (time <= now), counting at most `limit`. */
  countDue(now: number, limit: number): number {
    let n = 0
    const stack = [0]
    while (stack.length > 0 && n < limit) {
      const i = stack.pop() as number
      const item = this.heap[i]
      if (item === undefined || item.time > now) continue
      n++
      stack.push(2 * i + 1, 2 * i + 2)
    }
    return n
  }

  /** Queue `id` at `time`, or move its existing entry there. */
  registerOrUpdate(id: bigint, time: number): void {
    const old = this.byId.get(id)
    if (old !== undefined) {
      const earlier = time < old.time
      old.time = time
      if (earlier) this.up(old.index)
      else this.down(old.index)
      return
    }
    const item: LeaseWithTime = { id, time, index: this.heap.length }
    this.heap.push(item)
    this.byId.set(id, item)
    this.up(item.index)
  }

  /** Remove the entry of `id`, if queued. */
  remove(id: bigint): void {
    const item = this.byId.get(id)
    if (item === undefined) return
    this.byId.delete(id)
    const last = this.heap.pop() as LeaseWithTime
    if (last === item) return
    this.heap[item.index] = last
    last.index = item.index
    this.up(last.index)
    this.down(last.index)
  }

  private up(i: number): void {
    const h = this.heap
    const item = h[i] as LeaseWithTime
    while (i > 0) {
      const p = (i - 1) >> 1
      const parent = h[p] as LeaseWithTime
      if (parent.time <= item.time) break
      h[i] = parent
      parent.index = i
      i = p
    }
    h[i] = item
    item.index = i
  }

  private down(i: number): void {
    const h = this.heap
    const n = h.length
    const item = h[i] as LeaseWithTime
    for (;;) {
      const l = 2 * i + 1
      if (l >= n) break
      const r = l + 1
      let c = l
      if (r < n && (h[r] as LeaseWithTime).time < (h[l] as LeaseWithTime).time) c = r
      const child = h[c] as LeaseWithTime
      if (child.time >= item.time) break
      h[i] = child
      child.index = i
      i = c
    }
    h[i] = item
    item.index = i
  }
}
