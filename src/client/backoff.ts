// Exponential backoff with full jitter (each wait uniform in [0, min(cap, base * 2^attempt)]): clients that
// lost the same server spread their retries instead of arriving together, and a long outage is retried
// no less often than every `capMs`.

export interface BackoffOptions {
  /** The first wait's upper bound, in ms. */
  readonly baseMs: number
  /** No wait is longer than this, in ms. */
  readonly capMs: number
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 50, capMs: 5000 }

export class Backoff {
  private attempt = 0

  constructor(
    private readonly opts: BackoffOptions,
    private readonly random: () => number = Math.random,
  ) {}

  /** The next wait, in ms; each call doubles the bound until it reaches the cap. */
  next(): number {
    // 2^attempt stops growing once past the cap, so the exponent never overflows.
    const bound = Math.min(this.opts.capMs, this.opts.baseMs * 2 ** Math.min(this.attempt, 52))
    if (bound < this.opts.capMs) this.attempt++
    return Math.floor(this.random() * bound)
  }

  /** Start again from the base (after a success). */
  reset(): void {
    this.attempt = 0
  }
}
