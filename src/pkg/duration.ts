// Go's time.Duration syntax, as etcd's flags take it ("10m0s", "1.5s", "100ms", "1h30m").
/** Go's time.Duration is an int64 of nanoseconds. */
export const MAX_DURATION_NS = 2 ** 63 - 1

const UNIT_NS: Readonly<Record<string, number>> = {
  ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9,
}

const quote = (s: string): string => JSON.stringify(s)

/**
 * Go's time.ParseDuration, in nanoseconds (a double: exact below 2^53 ns, about 104 days, and close beyond),
 * with Go's error texts: `time: invalid duration "x"`, `time: missing unit in duration "x"`,
 * `time: unknown unit "d" in duration "x"`.
 */
export function parseGoDuration(orig: string): number {
  let s = orig
  let neg = false
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-'
    s = s.slice(1)
  }
  if (s === '0') return 0
  const invalid = (): Error => new Error(`time: invalid duration ${quote(orig)}`)
  if (s === '') throw invalid()
  let total = 0
  while (s !== '') {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(s)
    const whole = m?.[1] ?? ''
    const frac = m?.[2]
    if (m === null || (whole === '' && (frac === undefined || frac === ''))) throw invalid()
    s = s.slice(m[0].length)
    const unitMatch = /^[^0-9.]*/.exec(s)
    const unit = unitMatch?.[0] ?? ''
    if (unit === '') throw new Error(`time: missing unit in duration ${quote(orig)}`)
    s = s.slice(unit.length)
    const scale = UNIT_NS[unit]
    if (scale === undefined) throw new Error(`time: unknown unit ${quote(unit)} in duration ${quote(orig)}`)
    const v = Number(whole === '' ? '0' : whole) * scale + (frac === undefined || frac === '' ? 0 : Math.trunc(Number(`0.${frac}`) * scale))
    total += v
    if (!(total <= MAX_DURATION_NS)) throw invalid()
  }
  return neg ? -total : total
}

