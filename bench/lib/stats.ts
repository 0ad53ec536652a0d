// Medians over rounds: the figure a run reports for each measurement.

/** The median of `xs` (mean of the two middle values for an even count); NaN for an empty input. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  const hi = s[mid] ?? Number.NaN
  return s.length % 2 === 1 ? hi : ((s[mid - 1] ?? Number.NaN) + hi) / 2
}

/** The median of the finite numbers among `xs` (failed runs are null); null when there are none. */
export function medianOf(xs: readonly (number | null)[]): number | null {
  const ok = xs.filter((x): x is number => x !== null && Number.isFinite(x))
  return ok.length === 0 ? null : median(ok)
}
