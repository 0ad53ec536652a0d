// Mirrors etcd lease/lessor.go's Lease: a granted TTL, an expiry on the server's clock, and the keys
// attached to it.

import { latin1ToBytes } from '../pkg/bytes.js'

/** No expiry (etcd's `forever`): a lease of a server that is not (yet) primary. */
export const FOREVER = Number.POSITIVE_INFINITY

export class Lease {
  readonly id: bigint
  /** Granted TTL in seconds (already raised to the minimum). */
  readonly ttl: number
  /** Clock time (ms) at which the lease expires; FOREVER until the lessor is promoted. */
  expiry = FOREVER
  /**
   * Attached keys in latin1 form (see bytes.ts): a compact string each, and never the caller's bytes, which
   * may be a view into a request's buffer that it reuses, or that pins a whole slab of Node's Buffer pool.
   */
  readonly items = new Set<string>()
  /** Set once the lease is revoked (by request or expiry). */
  revoked = false

  constructor(id: bigint, ttl: number) {
    this.id = id
    this.ttl = ttl
  }

  /** Milliseconds left before expiry at clock time `now` (negative once past; Infinity if forever). */
  remainingMs(now: number): number {
    return this.expiry - now
  }

  /** Whether the lease is past its expiry at clock time `now`. */
  expired(now: number): boolean {
    return this.expiry - now <= 0
  }

  /** Restart the TTL: expire `extendMs` + TTL from `now`. */
  refresh(now: number, extendMs = 0): void {
    this.expiry = now + extendMs + this.ttl * 1000
  }

  /** Attached keys (fresh copies), in no particular order. */
  keys(): Uint8Array[] {
    return Array.from(this.items, latin1ToBytes)
  }
}
