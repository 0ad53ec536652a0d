// Mirrors etcd lease/lessor.go: grant, revoke, renew, attach/detach, expiry. Deviations are listed in
// docs/DEVIATIONS.md. Imports nothing from mvcc: the store reaches it through LeaseItems, and it reaches
// the store through an injected RangeDeleter (etcd's SetRangeDeleter).
import type { Backend } from '../backend/backend.js'
import { bytesToLatin1, compareBytes } from '../pkg/bytes.js'
import type { Clock } from '../pkg/clock.js'
import { EtcdError } from '../pkg/errors.js'
import type { Ticker } from '../pkg/ticker.js'
import { startExpiryLoop } from './expiry-loop.js'
import { FOREVER, Lease } from './lease.js'
import { decodeLease, encodeLease, leaseIdKey } from '../wire/leasepb.js'
import { LeaseQueue } from './lease-queue.js'
import { LeaseMetrics } from './metrics.js'

export { Lease }

/** The lease ID meaning "no lease". */
export const NO_LEASE = 0n

/** etcd's MaxLeaseTTL: longer grants fail with LEASE_TTL_TOO_LARGE. */
export const MAX_LEASE_TTL = 9_000_000_000

/**
 * What the MVCC store needs from the lessor (etcd's Lessor.Attach/Detach/GetLease). Called inside write
 * txns, synchronously.
 */
export interface LeaseItems {
  /** Number of keys attached to any lease; when 0 the store can skip lookups. */
  readonly attachedKeys: number
  /** The lease `key` is attached to, or NO_LEASE. */
  leaseOf(key: Uint8Array): bigint
  /** The same for a key in its latin1 form (see bytes.ts), as the key index holds it. */
  leaseOfLatin1(k: string): bigint
  /** Attach `key` to lease `id` (ignored if the lease does not exist, as after a restore). */
  attach(id: bigint, key: Uint8Array): void
  /** Detach `key` from lease `id`. */
  detach(id: bigint, key: Uint8Array): void
}

/** One write txn that deletes keys; mvcc's TxnWrite is one. */
export interface RangeDeleterTxn {
  deleteRange(key: Uint8Array, end: undefined): unknown
  /** Ends the txn; returns the store revision after it. */
  end(): number
}

/** Opens a write txn on the store (etcd's RangeDeleter). */
export type RangeDeleter = () => RangeDeleterTxn

export interface LessorOptions {
  /** Shortest TTL in seconds; shorter grants are raised to it (etcd: ceil(1.5 election timeouts) = 2). */
  readonly minLeaseTtl: number
  /** Time for expiry. */
  readonly clock: Clock
  /** Leases revoked per second at most on expiry (etcd's leaseRevokeRate, 1000). */
  readonly revokeRate: number
  /** How often the expiry loop looks for expired leases (etcd: 500 ms). */
  readonly checkIntervalMs: number
  /** When a revoke of an expired lease fails, retry it after this long (etcd: 7 s, the request timeout). */
  readonly expiredRetryMs: number
  /** Errors of the expiry loop. */
  readonly onError: (err: unknown) => void
}

export const LESSOR_DEFAULTS = { minLeaseTtl: 2, revokeRate: 1000, checkIntervalMs: 500, expiredRetryMs: 7000 } as const

/**
 * The lessor. All methods are synchronous; the caller commits the backend (grant and revoke write the
 * `lease` bucket in the same batch as any key deletions, so a revoke is atomic across a crash).
 *
 * Life of a lease:
 * ```
 *   grant ──► live (expiry = now + TTL) ──renew──► live (expiry reset)
 *                 │                          │
 *              revoke                    expiry loop (≤ revokeRate/s) ──► revoke
 *                 ▼                          ▼
 *           keys deleted in one txn, record deleted, `revoked` set
 * ```
 * After a restart every lease gets its full TTL again plus an extension (etcd's Promote).
 */
export class Lessor implements LeaseItems {
  private readonly backend: Backend
  private readonly opts: LessorOptions
  /** What the lessor counts for the metrics (lease/metrics.ts). */
  readonly metrics = new LeaseMetrics()
  private readonly leaseMap = new Map<bigint, Lease>()
  /** Attached key (latin1) -> lease ID. */
  private readonly itemMap = new Map<string, bigint>()
  private readonly queue = new LeaseQueue()
  private rd: RangeDeleter | undefined
  private expiryLoop: Ticker | undefined
  private primary = false

  private constructor(backend: Backend, opts: LessorOptions) {
    this.backend = backend
    this.opts = opts
  }

  /** Load every stored lease (expiry "forever" until promote()). Keys are attached by the store's restore. */
  static async open(backend: Backend, opts: Partial<LessorOptions> & Pick<LessorOptions, 'clock' | 'onError'>): Promise<Lessor> {
    const le = new Lessor(backend, { ...LESSOR_DEFAULTS, ...opts })
    const max = new Uint8Array(8).fill(0xff)
    let from: Uint8Array = new Uint8Array(8)
    for (;;) {
      const entries = await backend.scan('lease', from, max, 10_000)
      for (const { value } of entries) {
        const rec = decodeLease(value)
        le.leaseMap.set(rec.id, new Lease(rec.id, Math.max(rec.ttl, le.opts.minLeaseTtl)))
      }
      if (entries.length < 10_000) break
      const last = (entries[entries.length - 1] as { key: Uint8Array }).key
      from = Buffer.concat([last, new Uint8Array([0])])
    }
    // Keys sort as unsigned bytes, so negative IDs (high bit set) come after 0x7f…; the scan above covers
    // 0x00…–0xff… except the all-0xff key, which is ID -1.
    const minusOne = backend.get('lease', max)
    if (minusOne !== undefined) {
      const rec = decodeLease(minusOne)
      le.leaseMap.set(rec.id, new Lease(rec.id, Math.max(rec.ttl, le.opts.minLeaseTtl)))
    }
    return le
  }

  get minLeaseTtl(): number {
    return this.opts.minLeaseTtl
  }

  get attachedKeys(): number {
    return this.itemMap.size
  }

  /** Number of live leases. */
  get size(): number {
    return this.leaseMap.size
  }

  setRangeDeleter(rd: RangeDeleter): void {
    this.rd = rd
  }

  /**
   * Grant lease `id` (non-zero) for `ttl` seconds, raised to the minimum. Throws LEASE_TTL_TOO_LARGE or
   * LEASE_EXISTS. Writes the record into the backend's open batch.
   */
  grant(id: bigint, ttl: number): Lease {
    if (id === NO_LEASE) throw new EtcdError('LEASE_NOT_FOUND')
    if (ttl > MAX_LEASE_TTL) throw new EtcdError('LEASE_TTL_TOO_LARGE')
    if (this.leaseMap.has(id)) throw new EtcdError('LEASE_EXISTS')
    const l = new Lease(id, Math.max(ttl, this.opts.minLeaseTtl))
    // Buffered first: a backend that refuses writes throws, and then nothing is granted.
    this.backend.put('lease', leaseIdKey(id), encodeLease({ id, ttl: l.ttl, remainingTtl: 0 }))
    if (this.primary) {
      l.refresh(this.opts.clock.now())
      this.queue.registerOrUpdate(id, l.expiry)
    }
    this.leaseMap.set(id, l)
    this.metrics.granted++
    this.metrics.ttls.observe(l.ttl)
    return l
  }

  /** Drop a lease from memory only: its grant never reached the disk (the commit failed). */
  forget(id: bigint): void {
    this.leaseMap.delete(id)
    this.queue.delete(id)
  }

  /**
   * Put back a revoked lease with the keys it had: its revoke never reached the disk (the commit failed,
   * and the store undid the deletes of its keys).
   */
  reinstate(l: Lease, keys: readonly Uint8Array[]): void {
    l.revoked = false
    this.leaseMap.set(l.id, l)
    if (this.primary) this.queue.registerOrUpdate(l.id, l.expiry)
    for (const key of keys) this.attach(l.id, key)
  }

  /**
   * Revoke lease `id`: in one write txn delete its keys (sorted, as etcd does so every member hashes the
   * same) and its record. Returns the store revision after the txn. Throws LEASE_NOT_FOUND.
   */
  revoke(id: bigint): number {
    const l = this.leaseMap.get(id)
    if (l === undefined) throw new EtcdError('LEASE_NOT_FOUND')
    const rd = this.rd
    if (rd === undefined) throw new Error('lessor: no range deleter')
    const txn = rd()
    let rev: number
    try {
      const keys = l.keys().sort(compareBytes)
      // Each delete detaches its key (the store calls detach()).
      for (const key of keys) txn.deleteRange(key, undefined)
      this.leaseMap.delete(id)
      this.queue.delete(id)
      this.backend.del('lease', leaseIdKey(id))
    } finally {
      rev = txn.end()
    }
    l.revoked = true
    this.metrics.revoked++
    return rev
  }

  /**
   * Renew lease `id`: its expiry becomes now + TTL. Returns the TTL, or `undefined` when the lease is past
   * its expiry and only waits for the expiry loop (the caller revokes it and answers "not found", which is
   * what etcd's renew answers after waiting for that revoke). Throws LEASE_NOT_FOUND.
   */
  renew(id: bigint): number | undefined {
    const l = this.leaseMap.get(id)
    if (l === undefined) throw new EtcdError('LEASE_NOT_FOUND')
    const now = this.opts.clock.now()
    if (this.primary && l.expired(now)) return undefined
    l.refresh(now)
    if (this.primary) this.queue.registerOrUpdate(id, l.expiry)
    this.metrics.renewed++
    return l.ttl
  }

  lookup(id: bigint): Lease | undefined {
    return this.leaseMap.get(id)
  }

  /** Whether lease `id` exists (the apply layer's lease check). */
  exists(id: bigint): boolean {
    return this.leaseMap.has(id)
  }

  /** Every live lease, soonest expiry first (etcd's Leases()). */
  leases(): Lease[] {
    return [...this.leaseMap.values()].sort((a, b) => a.expiry - b.expiry)
  }

  /** Clock time now (for TTL arithmetic by callers). */
  now(): number {
    return this.opts.clock.now()
  }

  leaseOf(key: Uint8Array): bigint {
    if (this.itemMap.size === 0) return NO_LEASE
    return this.itemMap.get(bytesToLatin1(key)) ?? NO_LEASE
  }

  leaseOfLatin1(k: string): bigint {
    return this.itemMap.get(k) ?? NO_LEASE
  }

  attach(id: bigint, key: Uint8Array): void {
    const l = this.leaseMap.get(id)
    if (l === undefined) return
    const k = bytesToLatin1(key)
    l.items.add(k)
    this.itemMap.set(k, id)
  }

  detach(id: bigint, key: Uint8Array): void {
    const k = bytesToLatin1(key)
    this.leaseMap.get(id)?.items.delete(k)
    if (this.itemMap.get(k) === id) this.itemMap.delete(k)
  }

  /**
   * Become primary (etcd's Promote, run on every start of a one-member server): every lease expires its
   * TTL plus `extendMs` from now; with at least `revokeRate` leases, expiries are spread so that no more
   * than 3/4 of the revoke rate fall due in any one second.
   */
  promote(extendMs: number): void {
    this.primary = true
    const now = this.opts.clock.now()
    for (const l of this.leaseMap.values()) {
      l.refresh(now, extendMs)
      this.queue.registerOrUpdate(l.id, l.expiry)
    }
    if (this.leaseMap.size < this.opts.revokeRate) return
    const leases = this.leases()
    const first = leases[0] as Lease
    let baseWindow = first.remainingMs(now)
    let nextWindow = baseWindow + 1000
    let expires = 0
    const target = Math.floor((3 * this.opts.revokeRate) / 4)
    for (const l of leases) {
      const remaining = l.remainingMs(now)
      if (remaining > nextWindow) {
        baseWindow = remaining
        nextWindow = baseWindow + 1000
        expires = 1
        continue
      }
      expires++
      if (expires <= target) continue
      const delay = 1000 * (expires / target) - (remaining - baseWindow)
      nextWindow = baseWindow + delay
      l.refresh(now, delay + extendMs)
      this.queue.registerOrUpdate(l.id, l.expiry)
    }
  }

  /**
   * Start the expiry loop (expiry-loop.ts): expired leases go to `revokeExpired` (which revokes and commits
   * them) at most revokeRate per second. A lease handed over is looked at again after expiredRetryMs in case
   * its revoke failed.
   */
  startExpiry(revokeExpired: (leases: Lease[]) => Promise<void>): void {
    if (this.expiryLoop !== undefined) return
    this.expiryLoop = startExpiryLoop(this.queue, (limit) => this.findExpired(limit), revokeExpired, this.opts)
  }

  /** Stop the expiry loop (waits for a round in flight). */
  async stop(): Promise<void> {
    await this.expiryLoop?.stop()
  }

  /** Pop up to `limit` expired leases, re-queueing each at now + expiredRetryMs (etcd's findExpiredLeases). */
  findExpired(limit: number): Lease[] {
    const now = this.opts.clock.now()
    const out: Lease[] = []
    while (out.length < limit) {
      const top = this.queue.peek()
      if (top === undefined || top.priority > now) break
      const l = this.leaseMap.get(top.key)
      if (l === undefined) {
        this.queue.delete(top.key)
        continue
      }
      this.queue.registerOrUpdate(top.key, now + this.opts.expiredRetryMs)
      if (l.expiry !== FOREVER && l.expired(now)) out.push(l)
    }
    return out
  }
}
