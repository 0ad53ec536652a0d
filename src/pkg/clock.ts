// Time as the server sees it: the real clock, or a ManualClock that a test drives.

/** A pending timer created by a Clock. */
export interface ClockTimer {
  /** Cancel it; harmless after it fired. */
  cancel(): void
}

/**
 * What a timer runs. It may return a promise of the work it started (a Ticker run); a ManualClock's
 * `advance()` waits for it, so a test sees the consequences of the time it moved.
 */
export type TimerFn = () => void | Promise<void>

/** The source of time and timers for every background loop; it is injected so that a test can drive time with a ManualClock. */
export interface Clock {
  /** Milliseconds since an arbitrary origin; never goes backwards. */
  now(): number
  /**
   * Run `fn` once after `ms` milliseconds. A real timer keeps the process alive only when `keepAlive` is
   * set (work is owed, such as events still to deliver); periodic checks never do.
   */
  after(ms: number, fn: TimerFn, keepAlive?: boolean): ClockTimer
}

/** The real clock: performance.now() and setTimeout (unref()'d unless keepAlive). */
export const realClock: Clock = {
  now: () => performance.now(),
  after(ms, fn, keepAlive = false) {
    const t = setTimeout(() => void fn(), ms)
    if (!keepAlive) t.unref()
    return { cancel: () => clearTimeout(t) }
  },
}

interface ManualTimer {
  readonly due: number
  readonly seq: number
  readonly fn: TimerFn
  canceled: boolean
}

/**
 * A clock that moves only when told to: lease expiry, progress notifications and auto-compaction happen
 * exactly when a test calls `advance()`, never on their own.
 *
 * ```ts
 * const clock = new ManualClock()
 * const etcd = await openEtcd({ memory: true, clock })
 * const { id } = await etcd.leaseGrant({ ttl: 5 })
 * await clock.advance(5_000)   // the lease is revoked and its keys deleted before this resolves
 * ```
 */
export class ManualClock implements Clock {
  private t: number
  private seq = 0
  private timers: ManualTimer[] = []
  private advancing: Promise<void> = Promise.resolve()

  /** @param startMs the time `now()` reports before the first advance. */
  constructor(startMs = 0) {
    this.t = startMs
  }

  now(): number {
    return this.t
  }

  after(ms: number, fn: TimerFn): ClockTimer {
    const timer: ManualTimer = { due: this.t + Math.max(0, ms), seq: this.seq++, fn, canceled: false }
    this.timers.push(timer)
    return {
      cancel: () => {
        timer.canceled = true
      },
    }
  }

  /** Timers not yet fired or canceled. */
  pending(): number {
    return this.timers.filter((x) => !x.canceled).length
  }

  /**
   * Move time forward by `ms`, firing every timer that falls due, in order of due time (then creation),
   * with `now()` set to each one's due time while it runs. Timers set by a timer fire too if they fall
   * due within the advance. Each timer's work (a returned promise) is awaited before the next fires, so
   * when this resolves everything the advance set off has finished. Concurrent calls queue up.
   */
  advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`ManualClock.advance: ms must be >= 0, got ${ms}`)
    const run = this.advancing.then(() => this.run(ms))
    this.advancing = run.catch(() => undefined)
    return run
  }

  private async run(ms: number): Promise<void> {
    const target = this.t + ms
    for (;;) {
      this.timers = this.timers.filter((x) => !x.canceled)
      let next: ManualTimer | undefined
      for (const x of this.timers) {
        if (x.due <= target && (next === undefined || x.due < next.due || (x.due === next.due && x.seq < next.seq))) next = x
      }
      if (next === undefined) break
      next.canceled = true
      if (next.due > this.t) this.t = next.due
      await next.fn()
      // Let I/O callbacks that the timer's work set off run before the next timer.
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    this.t = target
  }
}
