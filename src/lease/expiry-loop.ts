// The lessor's expiry loop (etcd lease/lessor.go runLoop, revokeExpiredLeases and expireExists): expired
// leases are handed over for revoking at etcd's rate. Its timing is the lessor's own; the queue and the
// lookup of expired leases are the lessor's.
import type { Clock } from '../pkg/clock.js'
import { Ticker } from '../pkg/ticker.js'
import type { Lease } from './lease.js'
import type { LeaseQueue } from './lease-queue.js'

export interface ExpiryLoopOptions {
  /** Leases revoked per second at most (etcd's leaseRevokeRate). */
  readonly revokeRate: number
  /** How often the loop looks for expired leases when none is due sooner. */
  readonly checkIntervalMs: number
  readonly clock: Clock
  /** Errors of a round; the loop goes on. */
  readonly onError: (err: unknown) => void
}

/**
 * Start the expiry loop. Expired leases (`findExpired(limit)`, which re-queues each one it returns) are
 * handed to `revokeExpired` (which revokes and commits them), at most revokeRate per second (etcd's 500 per
 * 500 ms tick) as a token bucket, so the loop need not wait for a tick boundary. The bucket holds one
 * second's worth: a round held up by a busy event loop (etcd revokes on other goroutines) catches up instead
 * of losing the time; a fresh or idle bucket starts with etcd's burst of revokeRate/2. The loop looks at
 * least every checkIntervalMs, and when the next lease expires sooner than that, at its expiry.
 */
export function startExpiryLoop(
  queue: LeaseQueue,
  findExpired: (limit: number) => Lease[],
  revokeExpired: (leases: Lease[]) => Promise<void>,
  opts: ExpiryLoopOptions,
): Ticker {
  const { revokeRate: rate, checkIntervalMs, clock } = opts
  const burst = Math.max(1, Math.floor(rate / 2))
  const capacity = Math.max(1, rate)
  let tokens = burst
  let last = clock.now()

  /**
   * When the loop should look next: once enough tokens for the expired leases still waiting have accrued;
   * else at the next expiry if that comes before the regular check (undefined = regular check).
   */
  const nextCheck = (): number | undefined => {
    const now = clock.now()
    const top = queue.peek()
    if (top === undefined) return undefined
    if (top.priority <= now) {
      // Leases are waiting for tokens: come back when a burst's worth (or what they need) has accrued. The
      // count is an upper bound: some queued entries may be stale.
      const need = Math.min(burst, queue.countDue(now, burst)) - tokens
      return Math.max(1, Math.ceil((Math.max(1, need) * 1000) / rate))
    }
    const untilNext = top.priority - now
    return untilNext < checkIntervalMs ? untilNext : undefined
  }

  const loop = new Ticker(
    async () => {
      const now = clock.now()
      // Nothing was waiting since the last round: the bucket refills only to etcd's burst.
      const waited = queue.peek()?.priority ?? Infinity
      tokens = Math.min(waited < last ? capacity : burst, tokens + ((now - last) * rate) / 1000)
      last = now
      const expired = findExpired(Math.floor(tokens))
      tokens -= expired.length
      if (expired.length > 0) await revokeExpired(expired)
      return nextCheck()
    },
    checkIntervalMs,
    clock,
    opts.onError,
  )
  loop.start()
  return loop
}
