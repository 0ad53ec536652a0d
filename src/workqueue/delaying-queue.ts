// client-go's delaying queue: addAfter() holds an item until its time comes, then add()s it. One timer on
// the queue's clock, for the earliest item; an item already waiting keeps the earlier of its two times.
import type { ClockTimer } from '../pkg/clock.js'
import { IndexedMinHeap } from '../pkg/indexed-heap.js'
import { WorkQueue, type WorkQueueOptions } from './queue.js'

export class DelayingQueue<T> extends WorkQueue<T> {
  /** Waiting items by the clock time they are ready at. */
  private readonly waiting = new IndexedMinHeap<T>()
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
    const known = this.waiting.get(item)
    if (known === undefined || readyAt < known) this.waiting.set(item, readyAt)
    this.arm()
  }

  /** Items held by addAfter() and not yet added. */
  waitingCount(): number {
    return this.waiting.size
  }

  protected override onShutDown(): void {
    this.timer?.cancel()
    this.timer = undefined
    this.timerDue = Infinity
    this.waiting.clear()
  }

  private arm(): void {
    const first = this.waiting.peek()
    if (first === undefined || first.priority >= this.timerDue) return
    this.timer?.cancel()
    this.timerDue = first.priority
    this.timer = this.clock.after(first.priority - this.clock.now(), () => this.fire(), true)
  }

  private fire(): void {
    this.timer = undefined
    this.timerDue = Infinity
    const now = this.clock.now()
    for (let first = this.waiting.peek(); first !== undefined && first.priority <= now; first = this.waiting.peek()) {
      this.waiting.pop()
      this.add(first.key)
    }
    this.arm()
  }
}
