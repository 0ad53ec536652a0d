// A binary min-heap of keys by a numeric priority, with a key index: set() moves a key that is already
// queued instead of adding a second entry, and delete() takes any key out, both in O(log n). etcd's lease
// expiry queue and client-go's delaying queue both have this shape. Hand-written: it is twenty lines of
// sift, and the npm heaps either lack the index (an update becomes delete-and-push with stale entries) or
// allocate per operation.

/** An entry as peek() and pop() show it. */
export interface HeapEntry<K> {
  readonly key: K
  readonly priority: number
}

interface Slot<K> {
  readonly key: K
  priority: number
  index: number
}

export class IndexedMinHeap<K> {
  private heap: Slot<K>[] = []
  private readonly byKey = new Map<K, Slot<K>>()

  get size(): number {
    return this.heap.length
  }

  /** The entry with the lowest priority (the earliest queued among equals is not promised). */
  peek(): HeapEntry<K> | undefined {
    return this.heap[0]
  }

  /** The priority `key` is queued at, if queued. */
  get(key: K): number | undefined {
    return this.byKey.get(key)?.priority
  }

  /** Queue `key` at `priority`, or move it there if it is queued already. */
  set(key: K, priority: number): void {
    const slot = this.byKey.get(key)
    if (slot === undefined) {
      const s: Slot<K> = { key, priority, index: this.heap.length }
      this.heap.push(s)
      this.byKey.set(key, s)
      this.up(s.index)
      return
    }
    const earlier = priority < slot.priority
    slot.priority = priority
    if (earlier) this.up(slot.index)
    else this.down(slot.index)
  }

  /** Take `key` out; false if it was not queued. */
  delete(key: K): boolean {
    const slot = this.byKey.get(key)
    if (slot === undefined) return false
    this.byKey.delete(key)
    const last = this.heap.pop() as Slot<K>
    if (last !== slot) {
      this.heap[slot.index] = last
      last.index = slot.index
      this.up(last.index)
      this.down(last.index)
    }
    return true
  }

  /** Remove and return the lowest entry. */
  pop(): HeapEntry<K> | undefined {
    const top = this.heap[0]
    if (top !== undefined) this.delete(top.key)
    return top
  }

  /** How many entries have priority <= `bound`, counting at most `limit` (visits only those). */
  countAtMost(bound: number, limit: number): number {
    let n = 0
    const stack = [0]
    while (stack.length > 0 && n < limit) {
      const i = stack.pop() as number
      const slot = this.heap[i]
      if (slot === undefined || slot.priority > bound) continue
      n++
      stack.push(2 * i + 1, 2 * i + 2)
    }
    return n
  }

  clear(): void {
    this.heap = []
    this.byKey.clear()
  }

  private up(i: number): void {
    const h = this.heap
    const slot = h[i] as Slot<K>
    while (i > 0) {
      const p = (i - 1) >> 1
      const parent = h[p] as Slot<K>
      if (parent.priority <= slot.priority) break
      h[i] = parent
      parent.index = i
      i = p
    }
    h[i] = slot
    slot.index = i
  }

  private down(i: number): void {
    const h = this.heap
    const n = h.length
    const slot = h[i] as Slot<K>
    for (;;) {
      const l = 2 * i + 1
      if (l >= n) break
      const r = l + 1
      const c = r < n && (h[r] as Slot<K>).priority < (h[l] as Slot<K>).priority ? r : l
      const child = h[c] as Slot<K>
      if (child.priority >= slot.priority) break
      h[i] = child
      child.index = i
      i = c
    }
    h[i] = slot
    slot.index = i
  }
}
