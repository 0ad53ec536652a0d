// client-go's workqueue rate limiters: how long addRateLimited() holds an item. The "Rate limiters"
// table in docs/API.md lists the intervals each one produces.
import { realClock, type Clock } from '../pkg/clock.js'

export interface RateLimiter<T> {
  /** How long to wait before `item` is processed again (ms); counts one more failure of it. */
  when(item: T): number
  /** Stop tracking `item` (it succeeded): its next failure starts from the base delay again. */
  forget(item: T): void
  /** Failures of `item` counted since it was last forgotten. */
  numRequeues(item: T): number
}

function checkPositive(call: string, field: string, v: unknown): void {
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new TypeError(`${call}: ${field} must be a positive finite number, got ${String(v)}`)
}

/**
 * Per item: baseDelayMs * 2^failures, capped at maxDelayMs (client-go's ItemExponentialFailureRateLimiter;
 * its defaults are 5 ms and 1000 s). Items do not affect each other.
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>()
  readonly baseDelayMs: number
  readonly maxDelayMs: number

  constructor(baseDelayMs = 5, maxDelayMs = 1_000_000) {
    checkPositive('ItemExponentialFailureRateLimiter', 'baseDelayMs', baseDelayMs)
    checkPositive('ItemExponentialFailureRateLimiter', 'maxDelayMs', maxDelayMs)
    this.baseDelayMs = baseDelayMs
    this.maxDelayMs = maxDelayMs
  }

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0
    this.failures.set(item, exp + 1)
    // 2^exp overflows to Infinity for huge exp, which the cap catches as client-go's MaxInt64 check does.
    return Math.min(this.baseDelayMs * 2 ** exp, this.maxDelayMs)
  }

  forget(item: T): void {
    this.failures.delete(item)
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0
  }
}

/**
 * One token bucket shared by every item (client-go's BucketRateLimiter over golang.org/x/time/rate): it
 * holds `burst` tokens, refilled at `qps` per second; each when() takes a token, and a caller that finds
 * none waits for the token it took on credit. Defaults: 10 qps, burst 100.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  readonly qps: number
  readonly burst: number
  private readonly clock: Clock
  private tokens: number
  private last: number

  constructor(opts: { readonly qps?: number; readonly burst?: number; readonly clock?: Clock } = {}) {
    this.qps = opts.qps ?? 10
    this.burst = opts.burst ?? 100
    checkPositive('BucketRateLimiter', 'qps', this.qps)
    if (!Number.isInteger(this.burst) || this.burst < 1) throw new TypeError(`BucketRateLimiter: burst must be a positive integer, got ${String(this.burst)}`)
    this.clock = opts.clock ?? realClock
    this.tokens = this.burst
    this.last = this.clock.now()
  }

  when(item: T): number {
    void item // one bucket for every item
    const now = this.clock.now()
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps)
      this.last = now
    }
    this.tokens -= 1
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000
  }

  forget(item: T): void {
    void item
  }

  numRequeues(item: T): number {
    void item
    return 0
  }
}

/** The longest delay of several limiters (client-go's MaxOfRateLimiter); every one counts each failure. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: readonly RateLimiter<T>[]

  constructor(...limiters: RateLimiter<T>[]) {
    if (limiters.length === 0) throw new TypeError('MaxOfRateLimiter: needs at least one limiter')
    this.limiters = limiters
  }

  when(item: T): number {
    let max = 0
    for (const l of this.limiters) max = Math.max(max, l.when(item))
    return max
  }

  forget(item: T): void {
    for (const l of this.limiters) l.forget(item)
  }

  numRequeues(item: T): number {
    let max = 0
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item))
    return max
  }
}

/**
 * client-go's DefaultControllerRateLimiter: the max of per-item exponential (5 ms .. 1000 s) and a shared
 * bucket (10 qps, burst 100).
 */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(new ItemExponentialFailureRateLimiter<T>(5, 1_000_000), new BucketRateLimiter<T>({ qps: 10, burst: 100, clock }))
}

/**
 * Per-item exponential only (5 ms .. 1000 s), with no shared bucket: controller-runtime's default since
 * 0.23, so that many failing items never slow down the first retry of another.
 */
export function exponentialOnlyRateLimiter<T>(): RateLimiter<T> {
  return new ItemExponentialFailureRateLimiter<T>(5, 1_000_000)
}
