// Histogram counts kept as plain numbers, for the Prometheus histograms etcd exposes (etcdserver/metrics.ts reads
// them when scraped). Observing costs a few comparisons and no allocation, so the request paths and the backend
// can observe without going through prom-client, whose histograms cannot be filled from counts kept elsewhere.

/**
 * `count` upper bounds from `start`, each `factor` times the one before (client_golang's ExponentialBuckets,
 * and prom-client's, with prom-client's errors): repeated multiplication, so the bounds are the ones they give.
 */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  if (start <= 0) throw new Error('Exponential buckets needs a positive start')
  if (count < 1) throw new Error('Exponential buckets needs a positive count')
  if (factor <= 1) throw new Error('Exponential buckets needs a factor greater than 1')
  const buckets = new Array<number>(count)
  for (let i = 0, b = start; i < count; i++, b *= factor) buckets[i] = b
  return buckets
}

/** Observations bucketed by upper bound (inclusive, as Prometheus's `le`), with their sum and count. */
export class HistogramCounts {
  /** The upper bounds, ascending; an observation above the last one counts only in +Inf. */
  readonly bounds: readonly number[]
  /** Observations per bucket, not cumulative; the last slot is past the largest bound. */
  readonly buckets: number[]
  sum = 0
  count = 0

  constructor(bounds: readonly number[]) {
    this.bounds = bounds
    this.buckets = new Array<number>(bounds.length + 1).fill(0)
  }

  observe(v: number): void {
    const b = this.bounds
    let i = 0
    while (i < b.length && v > (b[i] as number)) i++
    this.buckets[i] = (this.buckets[i] as number) + 1
    this.sum += v
    this.count++
  }

  /** The count at or below each bound, in order (what a histogram's `_bucket{le=…}` lines show). */
  cumulative(): number[] {
    let acc = 0
    return this.bounds.map((_, i) => (acc += this.buckets[i] as number))
  }
}

/** Whole milliseconds since `startedMs` (performance.now()), as Go's `float64(time.Since(t) / time.Millisecond)`. */
export function wholeMsSince(startedMs: number): number {
  return Math.floor(performance.now() - startedMs)
}

/** Seconds since `startedMs` (performance.now()), as Go's `time.Since(t).Seconds()`. */
export function secondsSince(startedMs: number): number {
  return (performance.now() - startedMs) / 1000
}
