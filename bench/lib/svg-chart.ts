// Dependency-free SVG grouped horizontal bar charts for bench/RESULTS.md: one group per workload, one bar
// per series (etcdlite, etcd, the ceiling), a linear or log axis with ticks, a legend and a title. The
// output is a pure function of the input (no locale, clock or random ids), so a rerun on the same JSON
// lines gives the same bytes. Light background, system fonts, no CSS or external resources: GitHub shows
// the file through <img>, which loads nothing else.

/** One series: its name in the legend and its bar colour (any SVG colour, e.g. `#2f6fdf`). */
export interface ChartSeries {
  readonly name: string
  readonly color: string
}

/** One group of bars (a workload): `values[i]` belongs to `series[i]`; null draws no bar. */
export interface ChartGroup {
  readonly label: string
  readonly values: readonly (number | null)[]
  /** Text shown in place of a null value's bar (default '-'), e.g. 'lost'. */
  readonly notes?: readonly (string | undefined)[]
}

export interface BarChart {
  readonly title: string
  /** Axis caption, e.g. 'ops/s (higher is better)'. */
  readonly unit: string
  readonly series: readonly ChartSeries[]
  readonly groups: readonly ChartGroup[]
  /**
   * 'auto' (default) takes a log axis when every value is > 0 and the largest is over 20× the smallest,
   * a linear one from 0 otherwise.
   */
  readonly scale?: 'linear' | 'log' | 'auto'
  /** Total width in px (default 760). */
  readonly width?: number
}

/** Escape text for SVG/XML content and attribute values. */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => {
    switch (c) {
      case '&': return '&amp;'
      case '<': return '&lt;'
      case '>': return '&gt;'
      case '"': return '&quot;'
      default: return '&#39;'
    }
  })
}

/**
 * A short, locale-free form of a number: 3 significant digits, k/M/G suffixes from 10,000 up
 * (1234 → '1234', 12345 → '12.3k', 0.01234 → '0.0123').
 */
export function formatValue(x: number): string {
  if (!Number.isFinite(x)) return String(x)
  const a = Math.abs(x)
  const sig = (v: number): string => {
    if (v === 0) return '0'
    const s = Math.abs(v) >= 999.5 ? v.toFixed(0) : v.toPrecision(3)
    return s.includes('.') && !s.includes('e') ? s.replace(/\.?0+$/, '') : s
  }
  if (a >= 1e9) return `${sig(x / 1e9)}G`
  if (a >= 1e6) return `${sig(x / 1e6)}M`
  if (a >= 1e4) return `${sig(x / 1e3)}k`
  return sig(x)
}

/** Coordinates with at most one decimal, so the text is short and stable. */
const c = (x: number): string => String(Math.round(x * 10) / 10)

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"'
const TEXT_COLOR = '#24292f'
const MUTED = '#57606a'
const GRID = '#d0d7de'

const BAR_H = 14
const BAR_GAP = 2
const GROUP_GAP = 12
const TOP = 62
const AXIS_H = 38
/** Rough width of one character at font-size 12, for the label column (no font metrics without a browser). */
const CHAR_W = 6.6

interface Axis {
  readonly kind: 'linear' | 'log'
  /** Value → x offset from the plot's left edge, clamped to [0, plotW]. */
  readonly pos: (v: number) => number
  readonly ticks: readonly { readonly value: number; readonly major: boolean }[]
}

/** 1, 2 or 5 × a power of ten, the smallest such step ≥ raw. */
function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p
  return 10 * p
}

function linearAxis(max: number, plotW: number): Axis {
  const step = niceStep((max > 0 ? max : 1) / 5)
  const hi = Math.max(step, Math.ceil((max > 0 ? max : 1) / step) * step)
  const ticks: { value: number; major: boolean }[] = []
  for (let i = 0; i * step <= hi * (1 + 1e-9); i++) ticks.push({ value: Number((i * step).toPrecision(12)), major: true })
  return { kind: 'linear', pos: (v) => Math.min(plotW, Math.max(0, (v / hi) * plotW)), ticks }
}

function logAxis(min: number, max: number, plotW: number): Axis {
  let lo = Math.floor(Math.log10(min))
  if (min / 10 ** lo < 1.5) lo -= 1 // keep the smallest bar visible
  let hi = Math.ceil(Math.log10(max))
  if (hi <= lo) hi = lo + 1
  const span = hi - lo
  const ticks: { value: number; major: boolean }[] = []
  for (let e = lo; e <= hi; e++) {
    ticks.push({ value: 10 ** e, major: true })
    if (e < hi && span <= 4) for (const m of [2, 5]) ticks.push({ value: m * 10 ** e, major: false })
  }
  return {
    kind: 'log',
    pos: (v) => (v <= 0 ? 0 : Math.min(plotW, Math.max(0, ((Math.log10(v) - lo) / span) * plotW))),
    ticks,
  }
}

function chooseAxis(chart: BarChart, plotW: number): Axis {
  const vals = chart.groups.flatMap((g) => g.values).filter((v): v is number => v !== null && Number.isFinite(v))
  const max = vals.length === 0 ? 1 : Math.max(...vals)
  const positive = vals.filter((v) => v > 0)
  const min = positive.length === 0 ? 1 : Math.min(...positive)
  const scale = chart.scale ?? 'auto'
  const log = scale === 'log' ? positive.length > 0 : scale === 'auto' && positive.length === vals.length && vals.length > 0 && max / min > 20
  return log ? logAxis(min, max, plotW) : linearAxis(max, plotW)
}

/** Render `chart` as a standalone SVG document (ends with a newline). */
export function renderBarChart(chart: BarChart): string {
  const width = chart.width ?? 760
  const nSeries = chart.series.length
  const longest = Math.max(0, ...chart.groups.map((g) => g.label.length))
  const labelW = Math.min(300, Math.max(110, Math.ceil(longest * CHAR_W) + 16))
  const valueW = 64 // room for the value printed after the longest bar
  const left = labelW
  const plotW = width - left - valueW - 12
  const groupH = Math.max(1, nSeries) * (BAR_H + BAR_GAP) - BAR_GAP
  const plotH = chart.groups.length === 0 ? 24 : chart.groups.length * (groupH + GROUP_GAP) + GROUP_GAP
  const height = TOP + plotH + AXIS_H
  const axis = chooseAxis(chart, plotW)
  const out: string[] = []
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${c(height)}" viewBox="0 0 ${width} ${c(height)}" ${FONT} font-size="12">`)
  out.push(`<title>${escapeXml(chart.title)}</title>`)
  out.push(`<rect x="0" y="0" width="${width}" height="${c(height)}" fill="#ffffff"/>`)
  out.push(`<text x="12" y="22" font-size="15" font-weight="bold" fill="${TEXT_COLOR}">${escapeXml(chart.title)}</text>`)
  // Legend: one swatch and name per series, left to right.
  let lx = 12
  for (const s of chart.series) {
    out.push(`<rect x="${c(lx)}" y="33" width="12" height="12" fill="${escapeXml(s.color)}"/>`)
    out.push(`<text x="${c(lx + 16)}" y="43.5" fill="${TEXT_COLOR}">${escapeXml(s.name)}</text>`)
    lx += 16 + s.name.length * CHAR_W + 18
  }
  // Grid lines and tick labels.
  const plotTop = TOP
  const plotBottom = TOP + plotH
  for (const t of axis.ticks) {
    const x = left + axis.pos(t.value)
    out.push(`<line x1="${c(x)}" y1="${c(plotTop)}" x2="${c(x)}" y2="${c(plotBottom)}" stroke="${GRID}" stroke-width="${t.major ? 1 : 0.5}"${t.major ? '' : ' stroke-dasharray="2,3"'}/>`)
    if (t.major || axis.kind === 'log') {
      out.push(`<text x="${c(x)}" y="${c(plotBottom + 15)}" text-anchor="middle" font-size="11" fill="${t.major ? MUTED : GRID}">${escapeXml(formatValue(t.value))}</text>`)
    }
  }
  out.push(`<line x1="${c(left)}" y1="${c(plotTop)}" x2="${c(left)}" y2="${c(plotBottom)}" stroke="${MUTED}" stroke-width="1"/>`)
  out.push(`<line x1="${c(left)}" y1="${c(plotBottom)}" x2="${c(left + plotW)}" y2="${c(plotBottom)}" stroke="${MUTED}" stroke-width="1"/>`)
  const caption = `${chart.unit}${axis.kind === 'log' ? ', log scale' : ''}`
  out.push(`<text x="${c(left + plotW / 2)}" y="${c(plotBottom + 31)}" text-anchor="middle" font-size="11" fill="${MUTED}">${escapeXml(caption)}</text>`)
  if (chart.groups.length === 0) {
    out.push(`<text x="${c(left + 8)}" y="${c(plotTop + 16)}" fill="${MUTED}">no data</text>`)
  }
  // Bars: one group per workload, its label centred on the group.
  let y = plotTop + GROUP_GAP
  for (const g of chart.groups) {
    out.push(`<text x="${c(left - 8)}" y="${c(y + groupH / 2 + 4)}" text-anchor="end" fill="${TEXT_COLOR}">${escapeXml(g.label)}</text>`)
    for (let i = 0; i < nSeries; i++) {
      const s = chart.series[i] as ChartSeries
      const v = g.values[i] ?? null
      const by = y + i * (BAR_H + BAR_GAP)
      if (v === null || !Number.isFinite(v)) {
        const note = g.notes?.[i] ?? '-'
        out.push(`<text x="${c(left + 4)}" y="${c(by + BAR_H - 3)}" font-size="11" fill="${MUTED}">${escapeXml(`${s.name}: ${note}`)}</text>`)
        continue
      }
      const w = axis.pos(v)
      out.push(`<rect x="${c(left)}" y="${c(by)}" width="${c(w)}" height="${BAR_H}" fill="${escapeXml(s.color)}"><title>${escapeXml(`${g.label} ${s.name}: ${formatValue(v)}`)}</title></rect>`)
      out.push(`<text x="${c(left + w + 4)}" y="${c(by + BAR_H - 3)}" font-size="11" fill="${TEXT_COLOR}">${escapeXml(formatValue(v))}</text>`)
    }
    y += groupH + GROUP_GAP
  }
  out.push('</svg>')
  return `${out.join('\n')}\n`
}
