// client-go's delaying queue: addAfter() holds an item until its time comes, then add()s it. One timer on
// the queue's clock, for the earliest item; an item already waiting keeps the earlier of its two times.
import type { ClockTimer } from '../pkg/clock.js'
import { WorkQueue, type WorkQueueOptions } from './queue.js'

interface Waiting<T> {
  readonly item: T
  readyAt: number
  /** Position in the heap. */
  index: number
}

export class DelayingQueue<T> extends WorkQueue<T> {
  /** A binary min-heap on readyAt. */
  private heap: Waiting<T>[] = []
  private readonly byItem = new Map<T, Waiting<T>>()
  private timer: ClockTimer | undefined
  private timerDue = Infinity

  constructor(opts: WorkQueueOptions = {}) {
    super(opts)
  }

  /** add(item) after `delayMs` (at once if <= 0); ignored after shutDown(). */
  addAfter(item: T, delayMs: number): void {
    if (typeof delayMs !== 'number' || Number.isNaN(delayMs)) throw new TypeError('addAfter: delayMs must be a number')
    if (this.isShuttingDown()) return
    this.countRetry()
    if (delayMs <= 0) {
      this.add(item)
      return
    }
    const readyAt = this.clock.now() + delayMs
    const known = this.byItem.get(item)
    if (known !== undefined) {
      if (readyAt < known.readyAt) {
        known.readyAt = readyAt
        this.up(known.index)
      }
    } else {
      const w: Waiting<T> = { item, readyAt, index: this.heap.length }
      this.heap.push(w)
      this.byItem.set(item, w)
      this.up(w.index)
    }
    this.arm()
  }

  /** Items held by addAfter() and not yet added. */
  waitingCount(): number {
    return this.heap.length
  }

  protected override onShutDown(): void {
    this.timer?.cancel()
    this.timer = undefined
    this.timerDue = Infinity
    this.heap = []
    this.byItem.clear()
  }

  private arm(): void {
    const first = this.heap[0]
    if (first === undefined || first.readyAt >= this.timerDue) return
    this.timer?.cancel()
    this.timerDue = first.readyAt
    this.timer = this.clock.after(first.readyAt - this.clock.now(), () => this.fire(), true)
  }

  private fire(): void {
    this.timer = undefined
    this.timerDue = Infinity
    const now = this.clock.now()
    for (let first = this.heap[0]; first !== undefined && first.readyAt <= now; first = this.heap[0]) {
      this.pop()
      this.byItem.delete(first.item)
      this.add(first.item)
    }
    this.arm()
  }

  private pop(): void {
    const last = this.heap.pop() as Waiting<T>
    if (this.heap.length === 0) return
    this.heap[0] = last
    last.index = 0
    this.down(0)
  }

  private up(i: number): void {
    const h = this.heap
    const w = h[i] as Waiting<T>
    while (i > 0) {
      const p = (i - 1) >> 1
      const parent = h[p] as Waiting<T>
      if (parent.readyAt <= w.readyAt) break
      h[i] = parent
      parent.index = i
      i = p
    }
    h[i] = w
    w.index = i
  }

  private down(i: number): void {
    const h = this.heap
    const w = h[i] as Waiting<T>
    for (;;) {
      const l = 2 * i + 1
      if (l >= h.length) break
      const r = l + 1
      const c = r < h.length && (h[r] as Waiting<T>).readyAt < (h[l] as Waiting<T>).readyAt ? r : l
      const child = h[c] as Waiting<T>
      if (child.readyAt >= w.readyAt) break
      h[i] = child
      child.index = i
      i = c
    }
    h[i] = w
    w.index = i
  }
}
