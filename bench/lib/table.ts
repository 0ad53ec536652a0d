// Number formatting, ratios and aligned text tables for bench/run.ts's summaries (KV, watch and lease).
import { median } from './stats.js'

/** The median of the non-null values; null when there are none. */
export function present(xs: readonly (number | null)[]): number | null {
  const got = xs.filter((x): x is number => x !== null)
  return got.length === 0 ? null : median(got)
}

/** `x` with `digits` decimals; '-' for null or NaN. */
export function fmt(x: number | null, digits: number): string {
  return x === null || Number.isNaN(x) ? '-' : x.toFixed(digits)
}

/** a / b, or null when either is missing or b is 0. */
export function ratio(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 || Number.isNaN(a) || Number.isNaN(b) ? null : Number((a / b).toFixed(3))
}

/** Print a table to stdout: the first column left-aligned, the others right-aligned. */
export function printRows(header: readonly string[], body: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')
  process.stdout.write(`${line(header)}\n`)
  for (const r of body) process.stdout.write(`${line(r)}\n`)
}
