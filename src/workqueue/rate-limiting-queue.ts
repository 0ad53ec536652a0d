// client-go's rate-limiting queue: a delaying queue whose addRateLimited() waits as long as its rate
// limiter says; forget() resets an item's failures once it succeeds.
import { DelayingQueue } from './delaying-queue.js'
import type { WorkQueueOptions } from './queue.js'
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js'

export interface RateLimitingQueueOptions<T> extends WorkQueueOptions {
  /** Default: defaultControllerRateLimiter() on the queue's clock. */
  readonly rateLimiter?: RateLimiter<T>
}

export class RateLimitingQueue<T> extends DelayingQueue<T> {
  readonly rateLimiter: RateLimiter<T>

  constructor(opts: RateLimitingQueueOptions<T> = {}) {
    super(opts)
    const l = opts.rateLimiter
    if (l !== undefined && (typeof l.when !== 'function' || typeof l.forget !== 'function' || typeof l.numRequeues !== 'function')) {
      throw new TypeError('RateLimitingQueue: rateLimiter must be a RateLimiter')
    }
    this.rateLimiter = l ?? defaultControllerRateLimiter<T>(this.clock)
  }

  /** add(item) once the rate limiter allows it (one more failure counted). */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item))
  }

  /** The item succeeded: its failure count starts again from zero. It is not removed from the queue. */
  forget(item: T): void {
    this.rateLimiter.forget(item)
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item)
  }
}
