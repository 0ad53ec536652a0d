// Time as the server sees it: the real clock, or one a test drives (ManualClock lands with leases).

/** A pending timer created by a Clock. */
export interface ClockTimer {
  /** Cancel it; harmless after it fired. */
  cancel(): void
}

/** The source of time and timers for every background loop (STYLE R7: loops run on an injected Clock). */
export interface Clock {
  /** Milliseconds since an arbitrary origin; never goes backwards. */
  now(): number
  /**
   * Run `fn` once after `ms` milliseconds. A real timer keeps the process alive only when `keepAlive` is
   * set (work is owed, such as events still to deliver); periodic checks never do.
   */
  after(ms: number, fn: () => void, keepAlive?: boolean): ClockTimer
}

/** The real clock: performance.now() and setTimeout (unref()'d unless keepAlive). */
export const realClock: Clock = {
  now: () => performance.now(),
  after(ms, fn, keepAlive = false) {
    const t = setTimeout(fn, ms)
    if (!keepAlive) t.unref()
    return { cancel: () => clearTimeout(t) }
  },
}
