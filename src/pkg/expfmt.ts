// The Prometheus text format (0.0.4) exactly as etcd's Go client library writes it (client_golang's Gather and
// expfmt.MetricFamilyToText): families sorted by name, the metrics of a family sorted by their label values,
// labels in name order with `le`/`quantile` last, no blank lines, and numbers as Go's strconv formats a float64
// ('g', shortest: 2.147483648e+09, 1e-05, 0.25), counts included. Written by hand because prom-client's
// exposition differs in all of these (registration order, a blank line between families, 2147483648), and a
// scraper or a diff against etcd's /metrics sees the difference.

/** Label name -> value. */
export type Labels = Readonly<Record<string, string>>

/** One counter, gauge or untyped series. */
export interface ScalarMetric {
  readonly labels: Labels
  readonly value: number
}

/** One histogram series: cumulative counts per upper bound (ascending, +Inf left out), sum and count. */
export interface HistogramMetric {
  readonly labels: Labels
  readonly bounds: readonly number[]
  readonly cumulative: readonly number[]
  readonly sum: number
  readonly count: number
}

/** One summary series: value per quantile, sum and count. */
export interface SummaryMetric {
  readonly labels: Labels
  readonly quantiles: readonly (readonly [number, number])[]
  readonly sum: number
  readonly count: number
}

export type MetricFamily =
  | { readonly name: string; readonly help: string; readonly type: 'counter' | 'gauge' | 'untyped'; readonly metrics: readonly ScalarMetric[] }
  | { readonly name: string; readonly help: string; readonly type: 'histogram'; readonly metrics: readonly HistogramMetric[] }
  | { readonly name: string; readonly help: string; readonly type: 'summary'; readonly metrics: readonly SummaryMetric[] }

/** Go's strconv.FormatFloat(f, 'g', -1, 64), with expfmt's spellings of 0, ±1, NaN and ±Inf. */
export function goFloat(f: number): string {
  if (f === 0) return '0'
  if (f === 1) return '1'
  if (f === -1) return '-1'
  if (Number.isNaN(f)) return 'NaN'
  if (f === Infinity) return '+Inf'
  if (f === -Infinity) return '-Inf'
  // JavaScript's toExponential() without digits gives the shortest digits that read back as f, as Go's does.
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(f.toExponential())
  if (m === null) throw new Error(`goFloat: unexpected form of ${f}`)
  const [, sign = '', first = '', rest = '', expText = ''] = m
  const exp = Number(expText)
  // Go switches to the exponent form below 1e-4 and from 1e+06 on when printing shortest.
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp)
    return `${sign}${first}${rest === '' ? '' : `.${rest}`}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`
  }
  const digits = first + rest
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0')
  const frac = digits.slice(exp + 1)
  return `${sign}${whole}${frac === '' ? '' : `.${frac}`}`
}

const escapeHelp = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')
const escapeLabelValue = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')

/** The label names of `labels` in Go's order (byte order of the names). */
const sortedNames = (labels: Labels): string[] => Object.keys(labels).sort(compareStrings)

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** `{a="1",b="2"}` with an extra label (le, quantile) last, or nothing when there are no labels. */
function labelText(labels: Labels, extraName?: string, extraValue?: string): string {
  const parts = sortedNames(labels).map((n) => `${n}="${escapeLabelValue(labels[n] ?? '')}"`)
  if (extraName !== undefined) parts.push(`${extraName}="${escapeLabelValue(extraValue ?? '')}"`)
  return parts.length === 0 ? '' : `{${parts.join(',')}}`
}

/** client_golang's metric order within a family: label values compared in label-name order. */
function compareMetrics(a: { readonly labels: Labels }, b: { readonly labels: Labels }): number {
  const na = sortedNames(a.labels)
  const nb = sortedNames(b.labels)
  for (let i = 0; i < Math.min(na.length, nb.length); i++) {
    const c = compareStrings(a.labels[na[i] as string] ?? '', b.labels[nb[i] as string] ?? '')
    if (c !== 0) return c
  }
  return na.length - nb.length
}

/** One family's lines (HELP, TYPE, samples); nothing for a family without metrics, which Go leaves out. */
function familyLines(f: MetricFamily, out: string[]): void {
  if (f.metrics.length === 0) return
  out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`)
  switch (f.type) {
    case 'counter':
    case 'gauge':
    case 'untyped':
      for (const m of [...f.metrics].sort(compareMetrics)) out.push(`${f.name}${labelText(m.labels)} ${goFloat(m.value)}`)
      return
    case 'histogram':
      for (const m of [...f.metrics].sort(compareMetrics)) {
        m.bounds.forEach((le, i) => out.push(`${f.name}_bucket${labelText(m.labels, 'le', goFloat(le))} ${goFloat(m.cumulative[i] ?? 0)}`))
        out.push(`${f.name}_bucket${labelText(m.labels, 'le', '+Inf')} ${goFloat(m.count)}`)
        out.push(`${f.name}_sum${labelText(m.labels)} ${goFloat(m.sum)}`, `${f.name}_count${labelText(m.labels)} ${goFloat(m.count)}`)
      }
      return
    case 'summary':
      for (const m of [...f.metrics].sort(compareMetrics)) {
        for (const [q, v] of m.quantiles) out.push(`${f.name}${labelText(m.labels, 'quantile', goFloat(q))} ${goFloat(v)}`)
        out.push(`${f.name}_sum${labelText(m.labels)} ${goFloat(m.sum)}`, `${f.name}_count${labelText(m.labels)} ${goFloat(m.count)}`)
      }
      return
  }
}

/** The text exposition of `families`, sorted by name, as etcd's /metrics serves it. */
export function formatFamilies(families: readonly MetricFamily[]): string {
  const out: string[] = []
  for (const f of [...families].sort((a, b) => compareStrings(a.name, b.name))) familyLines(f, out)
  return out.length === 0 ? '' : `${out.join('\n')}\n`
}

/** The Content-Type of {@link formatFamilies}'s output (expfmt.FmtText). */
export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'
