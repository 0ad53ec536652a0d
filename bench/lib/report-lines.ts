// The bench report's input and output primitives: the JSON lines of one run narrowed once into what each
// report part reads (a missing or null figure is null, never a crash), and the number and Markdown
// formatting every part shares.
import { median } from './stats.js'

// ---------------------------------------------------------------------------------------------------
// Narrowing the JSON lines, once

export type Obj = Readonly<Record<string, unknown>>

export const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x)
/** A finite number field, else null (JSON turns NaN into null; a field may be absent). */
export const num = (o: Obj | undefined, k: string): number | null => {
  const v = o?.[k]
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}
export const str = (o: Obj | undefined, k: string): string | null => {
  const v = o?.[k]
  return typeof v === 'string' ? v : null
}
export const sub = (o: Obj | undefined, k: string): Obj | undefined => {
  const v = o?.[k]
  return isObj(v) ? v : undefined
}
export const medianOf = (xs: readonly (number | null)[]): number | null => {
  const got = xs.filter((x): x is number => x !== null)
  return got.length === 0 ? null : median(got)
}
export const ratioOf = (a: number | null, b: number | null): number | null => (a === null || b === null || b === 0 ? null : a / b)

/** The lines of one run, sorted by what they describe. A later summary for the same workload wins. */
export interface Parsed {
  readonly kv: Map<string, Obj>
  readonly watch: Map<string, Obj>
  readonly lease: Map<string, Obj>
  readonly startup: Map<string, Obj>
  /** Ceiling summaries (`ceilingOf`), keyed `rpc:<workload>`, `commit:<workload>` or `push:<workload>`. */
  readonly ceilingOf: Map<string, Obj>
  readonly rpcRounds: Obj[]
  /** The commit ceiling's rounds (the RPC ceiling server committing each Put to LevelDB). */
  readonly commitRounds: Obj[]
  readonly pushRounds: Obj[]
  readonly storage: Obj[]
  readonly kvResults: Obj[]
  /** CPU time stolen by the hypervisor during the run, % of the machine's (cpu-steal.ts); null if not measured. */
  stealPct: number | null
}

export function parseLines(lines: readonly object[]): Parsed {
  const p: Parsed = {
    kv: new Map(), watch: new Map(), lease: new Map(), startup: new Map(), ceilingOf: new Map(), rpcRounds: [], commitRounds: [], pushRounds: [], storage: [], kvResults: [], stealPct: null,
  }
  for (const line of lines) {
    if (!isObj(line)) continue
    const t = str(line, 'type')
    const kind = str(line, 'kind')
    const workload = str(line, 'workload')
    if (t === 'steal') p.stealPct = num(line, 'stealPct')
    else if (t === 'ceiling') {
      if (kind === 'rpc') p.rpcRounds.push(line)
      else if (kind === 'commit') p.commitRounds.push(line)
      else if (kind === 'push') p.pushRounds.push(line)
      else if (kind === 'storage') p.storage.push(line)
    } else if (t === 'result') {
      if (workload !== null && str(line, 'op') !== null && str(line, 'server') !== null) p.kvResults.push(line)
    } else if (t === 'summary' && workload !== null) {
      const ceilingOf = str(line, 'ceilingOf')
      if (ceilingOf !== null) p.ceilingOf.set(`${kind ?? '?'}:${ceilingOf}`, line)
      else if (kind === 'fanout' || kind === 'catchup' || kind === 'mem') p.watch.set(workload, line)
      else if (kind === 'churn' || kind === 'expiry') p.lease.set(workload, line)
      else if (workload.startsWith('startup') || 'startupRatio' in line) p.startup.set(workload, line)
      else if (str(line, 'op') !== null) p.kv.set(workload, line)
    }
  }
  return p
}

/** At or above this, a load generator's main thread was the limit of its measurement (% of one core). */
export const CLIENT_BOUND_PCT = 90

/** Whether a main-thread CPU share, as the report prints it (whole %), is CLIENT_BOUND_PCT or more. */
export const isClientBound = (pct: number): boolean => Math.round(pct) >= CLIENT_BOUND_PCT

/** Median over the rounds of the load generator's main-thread CPU, % of one core; null in runs without it. */
export function clientMainPct(rounds: readonly Obj[]): number | null {
  return medianOf(rounds.map((r) => num(r, 'clientMainCpuPct')))
}

// ---------------------------------------------------------------------------------------------------
// Formatting

/** `x` with `digits` decimals and comma-grouped thousands (locale-free); '-' when missing. */
export function fmtNum(x: number | null, digits: number): string {
  if (x === null || !Number.isFinite(x)) return '-'
  const [int = '', frac] = x.toFixed(digits).split('.')
  const sign = int.startsWith('-') ? '-' : ''
  const grouped = int.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${sign}${grouped}${frac === undefined ? '' : `.${frac}`}`
}
export const fmtRatio = (x: number | null): string => (x === null ? '-' : `${x.toFixed(2)}×`)
export const fmtPct = (x: number | null): string => (x === null ? '-' : `${x.toFixed(0)} %`)
/** A latency: '-' when the server was not measured, 'lost' when it was but the quantile never arrived. */
export const fmtLatency = (ms: number | null, measured: boolean): string => (ms !== null ? fmtNum(ms, 2) : measured ? 'lost' : '-')
export const pair = (a: string, b: string): string => `${a} / ${b}`

export const mdCell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ')
/** A GitHub table: the first column left-aligned, the others right-aligned (numbers) unless `textual`. */
export function mdTable(header: readonly string[], rows: readonly (readonly string[])[], textual = false): string {
  const line = (cells: readonly string[]): string => `| ${cells.map(mdCell).join(' | ')} |`
  const align = header.map((_, i) => (i === 0 || textual ? ':--' : '--:'))
  return [line(header), `|${align.join('|')}|`, ...rows.map(line)].join('\n')
}
/** Inline code that survives backticks in the text. */
export function mdCode(s: string): string {
  const ticks = s.includes('`') ? '``' : '`'
  return `${ticks}${ticks.length > 1 ? ' ' : ''}${s}${ticks.length > 1 ? ' ' : ''}${ticks}`
}
