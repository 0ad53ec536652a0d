// A bounded queue between a synchronous producer and one async consumer, so a slow consumer holds up a
// bounded amount of memory, never an unbounded backlog. tryPush() never
// blocks: it refuses when full, and the producer decides what a refusal means (a watcher becomes a victim).

export interface AsyncQueueOptions {
  /** Items tryPush() accepts before refusing; pushForce() may go beyond it. */
  readonly capacity: number
  /** Called when the consumer takes an item from a queue that had refused one (room again). */
  readonly onSpace?: () => void
}

/**
 * One consumer, iterating with `for await` or calling `next()`. After close(), the items already queued
 * are still delivered, then iteration ends. Breaking out of the loop calls `return()`, which closes it.
 */
export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  private items: T[] = []
  private head = 0
  private readonly capacity: number
  private readonly onSpace: (() => void) | undefined
  private refused = false
  private closed = false
  private waiter: ((r: IteratorResult<T, undefined>) => void) | undefined

  constructor(opts: AsyncQueueOptions) {
    this.capacity = opts.capacity
    this.onSpace = opts.onSpace
  }

  /** Items waiting. */
  get length(): number {
    return this.items.length - this.head
  }

  get isClosed(): boolean {
    return this.closed
  }

  /** True when tryPush would refuse; a true answer counts as a refusal (onSpace follows when room returns). */
  isFull(): boolean {
    if (this.closed) return true
    if (this.length < this.capacity) return false
    this.refused = true
    return true
  }

  /** Queue an item unless the queue is full or closed; false means nothing was taken. */
  tryPush(item: T): boolean {
    if (this.closed) return false
    if (this.length >= this.capacity) {
      this.refused = true
      return false
    }
    this.deliver(item)
    return true
  }

  /** Queue an item even past capacity (small control items); ignored once closed. */
  pushForce(item: T): void {
    if (!this.closed) this.deliver(item)
  }

  /** No more items: the consumer gets what is queued, then the end. Idempotent. */
  close(): void {
    if (this.closed) return
    this.closed = true
    if (this.waiter !== undefined && this.length === 0) {
      const w = this.waiter
      this.waiter = undefined
      w({ done: true, value: undefined })
    }
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.length !== 0) {
      const item = this.items[this.head] as T
      this.items[this.head] = undefined as T
      this.head++
      if (this.head === this.items.length) {
        this.items = []
        this.head = 0
      } else if (this.head >= 1024) {
        this.items = this.items.slice(this.head)
        this.head = 0
      }
      if (this.refused && this.length < this.capacity) {
        this.refused = false
        this.onSpace?.()
      }
      return Promise.resolve({ done: false, value: item })
    }
    if (this.closed) return Promise.resolve({ done: true, value: undefined })
    if (this.waiter !== undefined) return Promise.reject(new Error('AsyncQueue: one consumer at a time'))
    return new Promise((resolve) => (this.waiter = resolve))
  }

  /** The consumer stopped (break / return in for-await): close and drop what is queued. */
  return(): Promise<IteratorResult<T, undefined>> {
    this.close()
    this.items = []
    this.head = 0
    return Promise.resolve({ done: true, value: undefined })
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  private deliver(item: T): void {
    if (this.waiter !== undefined) {
      const w = this.waiter
      this.waiter = undefined
      w({ done: false, value: item })
    } else this.items.push(item)
  }
}
