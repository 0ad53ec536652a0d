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


/**
 * Go's time.Duration.String for `ns` nanoseconds (rounded to a whole nanosecond): "0s", "1.5ms", "100µs",
 * "7s", "1m0s", "1h2m3.5s". etcd logs durations in this form (zap's StringDurationEncoder).
 */
export function formatGoDuration(ns: number | bigint): string {
  let u = typeof ns === 'bigint' ? ns : BigInt(Math.round(ns))
  const neg = u < 0n
  if (neg) u = -u
  let out: string
  if (u < 1_000_000_000n) {
    if (u === 0n) return '0s'
    // Below a second: the largest unit that keeps a non-zero integer part, with its fraction.
    const [unit, scale] = u < 1_000n ? ['ns', 1n] : u < 1_000_000n ? ['µs', 1_000n] : ['ms', 1_000_000n]
    out = withFraction(u, scale) + unit
  } else {
    const seconds = u / 1_000_000_000n
    out = withFraction(u % 60_000_000_000n, 1_000_000_000n) + 's'
    const minutes = seconds / 60n
    if (minutes > 0n) {
      out = `${minutes % 60n}m` + out
      const hours = minutes / 60n
      if (hours > 0n) out = `${hours}h` + out
    }
  }
  return neg ? '-' + out : out
}

/** `v / scale` in decimal, the fraction without trailing zeros and without a point when it is zero. */
function withFraction(v: bigint, scale: bigint): string {
  const whole = v / scale
  const frac = v % scale
  if (frac === 0n) return whole.toString()
  const digits = frac.toString().padStart(scale.toString().length - 1, '0').replace(/0+$/, '')
  return `${whole}.${digits}`
}

/** A duration field value: logged as Go prints a time.Duration (zap.Duration). */
export class GoDuration {
  constructor(readonly ns: number) {}

  static ms(ms: number): GoDuration {
    return new GoDuration(ms * 1e6)
  }

  toString(): string {
    return formatGoDuration(this.ns)
  }
}
