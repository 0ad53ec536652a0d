// What the server itself counts for etcd's etcdserver and backend metric families (etcd etcdserver/metrics.go,
// apply.go, util.go; mvcc/backend/metrics.go), as plain numbers and histogram counts that metrics.ts reads
// when scraped. The store, the lessor and the backend count their own (mvcc/metrics.ts, lease/metrics.ts,
// backend/commit-times.ts).
import { exponentialBuckets, HistogramCounts, secondsSince } from '../pkg/histogram.js'
import { CompactedError } from '../mvcc/errors.js'

/** etcd's --experimental-warning-apply-duration default: an apply or read taking longer is a slow apply. */
export const WARNING_APPLY_DURATION_MS = 100

/** prometheus.ExponentialBuckets(0.0001, 2, 20): the buckets of etcd_server_apply_duration_seconds. */
const APPLY_SECONDS_BUCKETS = exponentialBuckets(0.0001, 2, 20)

/** One series of etcd_server_apply_duration_seconds: the applier ("v2" or "v3"), the request kind, success. */
export interface ApplyKey {
  readonly version: 'v2' | 'v3'
  readonly op: string
  readonly success: boolean
}

/** etcd's applier counts an apply that failed only because its revision is compacted as a success. */
const succeeded = (err: unknown): boolean => err instanceof CompactedError

export class ServerStats {
  /** Applies by version, op and success, in the order first seen. */
  readonly applies = new Map<string, { readonly key: ApplyKey; readonly seconds: HistogramCounts }>()
  /** Applies, ranges and read-only txns that took longer than WARNING_APPLY_DURATION_MS. */
  slowApplies = 0
  /** Leases the expiry loop revoked. */
  leaseExpired = 0
  /** Defragmentations (seconds) and whether one runs now. */
  readonly defragSec = new HistogramCounts(exponentialBuckets(0.1, 2, 13))
  defragInflight = 0
  /** Snapshot streams, from the start of the read to its end (etcd's snapshotTransferSec). */
  readonly snapshotSec = new HistogramCounts(exponentialBuckets(0.01, 2, 17))

  /**
   * What etcd applies when it starts, before any request: through its v2 applier it publishes this member's
   * attributes and sets the cluster version, two v2 PUTs (3.5 still does both that way). A restart of etcd
   * also re-applies the tail of its WAL; etcdlite has no WAL to replay, so every start counts as a first one.
   */
  started(): void {
    this.applied('v2', 'PUT', true, 0)
    this.applied('v2', 'PUT', true, 0)
  }

  /** Record one apply that took `seconds`. */
  applied(version: ApplyKey['version'], op: string, success: boolean, seconds: number): void {
    const id = `${version} ${op} ${success}`
    let a = this.applies.get(id)
    if (a === undefined) {
      a = { key: { version, op, success }, seconds: new HistogramCounts(APPLY_SECONDS_BUCKETS) }
      this.applies.set(id, a)
    }
    a.seconds.observe(seconds)
    if (seconds * 1000 > WARNING_APPLY_DURATION_MS) this.slowApplies++
  }

  /**
   * Run `fn` as the v3 apply of an `op` request: timed, and recorded as succeeded unless it throws (a
   * compacted revision counts as success, as etcd's applier counts it). Returns what `fn` returns.
   */
  apply<T>(op: string, fn: () => T): T {
    const started = performance.now()
    let ok = false
    try {
      const out = fn()
      ok = true
      return out
    } catch (err) {
      ok = succeeded(err)
      throw err
    } finally {
      this.applied('v3', op, ok, secondsSince(started))
    }
  }

  /**
   * {@link ServerStats.apply} for an apply that goes on asynchronously. Its time is the part that runs before
   * it first waits: etcd's apply changes memory and the backend's buffer, and what is waited for here (a
   * password hash, a commit, the disk) happens outside etcd's apply or is not counted in it.
   */
  async applyAsync<T>(op: string, fn: () => Promise<T>): Promise<T> {
    const started = performance.now()
    let p: Promise<T>
    try {
      p = fn()
    } catch (err) {
      this.applied('v3', op, succeeded(err), secondsSince(started))
      throw err
    }
    const seconds = secondsSince(started)
    try {
      const out = await p
      this.applied('v3', op, true, seconds)
      return out
    } catch (err) {
      this.applied('v3', op, succeeded(err), seconds)
      throw err
    }
  }

  /** A range or read-only txn that started at `startedMs`: slow ones count as slow applies (etcd's warnOfExpensiveReadOnlyRangeRequest). */
  readDone(startedMs: number): void {
    if (performance.now() - startedMs > WARNING_APPLY_DURATION_MS) this.slowApplies++
  }
}
