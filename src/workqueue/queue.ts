// A work queue with client-go's semantics: an item waits in the queue at most once, an item being
// processed is never handed to a second worker, and one added while it is processed is queued again when
// its worker calls done().
import type { Registry } from 'prom-client'
import { realClock, type Clock } from '../pkg/clock.js'
import { noQueueMetrics, registryQueueMetrics, type QueueMetrics } from './metrics.js'

export interface WorkQueueOptions {
  /** The `name` label of its metrics (default "workqueue"). */
  readonly name?: string
  /** Time for metrics and delays (default: the real clock). */
  readonly clock?: Clock
  /** Record client-go's workqueue_* metrics on this registry; absent: no metrics. */
  readonly registry?: Registry
}

export function checkQueueOptions(call: string, o: WorkQueueOptions): void {
  if (typeof o !== 'object' || o === null) throw new TypeError(`${call}: options must be an object`)
  if (o.name !== undefined && typeof o.name !== 'string') throw new TypeError(`${call}: name must be a string`)
  if (o.clock !== undefined && (typeof o.clock.now !== 'function' || typeof o.clock.after !== 'function')) {
    throw new TypeError(`${call}: clock must be a Clock`)
  }
}

/**
 * FIFO of distinct items with three sets as client-go keeps them: `queue` (waiting, in order), `dirty`
 * (needs processing: waiting, or added again while processing) and `processing` (handed to a worker).
 */
export class WorkQueue<T> {
  protected readonly clock: Clock
  private readonly metrics: QueueMetrics<T>
  private waitingItems: T[] = []
  private head = 0
  private readonly dirty = new Set<T>()
  private readonly processing = new Set<T>()
  private shuttingDown = false
  private drain = false
  private readonly getters: ((item: T | undefined) => void)[] = []
  private drained: (() => void)[] = []

  constructor(opts: WorkQueueOptions = {}) {
    checkQueueOptions('WorkQueue', opts)
    this.clock = opts.clock ?? realClock
    this.metrics = opts.registry === undefined ? noQueueMetrics() : registryQueueMetrics(opts.registry, opts.name ?? 'workqueue', this.clock)
  }

  /** Queue `item` unless it already waits; ignored after shutDown(). */
  add(item: T): void {
    if (this.shuttingDown || this.dirty.has(item)) return
    this.metrics.add(item)
    this.dirty.add(item)
    if (this.processing.has(item)) return
    this.waitingItems.push(item)
    this.serve()
  }

  /** Items waiting (not counting those being processed). */
  len(): number {
    return this.waitingItems.length - this.head
  }

  /**
   * The next item, once there is one; the caller must call done(item) after processing it. Resolves
   * undefined once the queue is shut down and empty (items queued before shutDown() are still handed out).
   */
  get(): Promise<T | undefined> {
    if (this.len() > 0) return Promise.resolve(this.take())
    if (this.shuttingDown) return Promise.resolve(undefined)
    return new Promise((resolve) => this.getters.push(resolve))
  }

  /** Processing of `item` has finished; if it was added meanwhile it waits in the queue again. */
  done(item: T): void {
    this.metrics.done(item)
    if (!this.processing.delete(item)) return
    if (this.dirty.has(item)) {
      this.waitingItems.push(item)
      this.serve()
    } else if (this.processing.size === 0 && this.drained.length > 0) {
      const d = this.drained
      this.drained = []
      for (const resolve of d) resolve()
    }
  }

  /** Stop taking items: add() is ignored; waiting get()s resolve undefined; queued items are still handed out. */
  shutDown(): void {
    if (!this.shuttingDown) {
      this.shuttingDown = true
      this.onShutDown()
      this.metrics.close()
    }
    if (this.len() === 0) {
      for (const resolve of this.getters.splice(0)) resolve(undefined)
    }
  }

  /**
   * shutDown(), then resolve once no item is being processed (client-go's ShutDownWithDrain: workers
   * still take what was queued, so keep them running until this resolves).
   */
  shutDownWithDrain(): Promise<void> {
    this.drain = true
    this.shutDown()
    if (this.processing.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.drained.push(resolve))
  }

  isShuttingDown(): boolean {
    return this.shuttingDown
  }

  /** Whether shutDownWithDrain() was called. */
  isDraining(): boolean {
    return this.drain
  }

  /** Items handed to workers and not yet done. */
  processingCount(): number {
    return this.processing.size
  }

  /** Hook for subclasses: the queue is shutting down (release timers). */
  protected onShutDown(): void {}

  /** Count a retry in the metrics (delayed and rate-limited adds). */
  protected countRetry(): void {
    this.metrics.retry()
  }

  private take(): T {
    const item = this.waitingItems[this.head] as T
    this.waitingItems[this.head] = undefined as T
    this.head++
    if (this.head > 1024 && this.head * 2 > this.waitingItems.length) {
      this.waitingItems = this.waitingItems.slice(this.head)
      this.head = 0
    }
    this.processing.add(item)
    this.dirty.delete(item)
    this.metrics.get(item)
    return item
  }

  private serve(): void {
    while (this.getters.length > 0 && this.len() > 0) {
      const resolve = this.getters.shift() as (item: T | undefined) => void
      resolve(this.take())
    }
    if (this.shuttingDown && this.len() === 0) {
      for (const resolve of this.getters.splice(0)) resolve(undefined)
    }
  }
}
