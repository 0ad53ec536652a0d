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
  /** Run `fn` once after `ms` milliseconds. Real timers are unref()'d: they never keep the process alive. */
  after(ms: number, fn: () => void): ClockTimer
}

/** The real clock: performance.now() and unref()'d setTimeout. */
export const realClock: Clock = {
  now: () => performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms)
    t.unref()
    return { cancel: () => clearTimeout(t) }
  },
}
