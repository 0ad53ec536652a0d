// Small statistics helpers for the server benchmark: percentiles over raw samples, medians over rounds.

/**
 * The q-quantile (0 ≤ q ≤ 1) of `sorted` (ascending), nearest-rank method: the smallest sample such
 * that at least q of all samples are ≤ it. An empty input gives NaN.
 */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil(q * sorted.length)
  const i = Math.min(sorted.length - 1, Math.max(0, rank - 1))
  return sorted[i] ?? Number.NaN
}

/** The median of `xs` (mean of the two middle values for an even count); NaN for an empty input. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  const hi = s[mid] ?? Number.NaN
  return s.length % 2 === 1 ? hi : ((s[mid - 1] ?? Number.NaN) + hi) / 2
}

/** A growable array of doubles, so a long run does not box millions of numbers. */
export class SampleBuffer {
  private buf = new Float64Array(1 << 16)
  private n = 0

  push(x: number): void {
    if (this.n === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2)
      next.set(this.buf)
      this.buf = next
    }
    this.buf[this.n++] = x
  }

  get length(): number {
    return this.n
  }

  /** A sorted copy of the samples. */
  sorted(): Float64Array {
    return this.buf.slice(0, this.n).sort()
  }
}
