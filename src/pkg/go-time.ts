// Go's time formats as etcd's JSON shows them: time.Time (RFC 3339 with nanoseconds, trailing zeros
// dropped, as MarshalJSON writes it) and time.Duration's String(). Times are Unix nanoseconds as bigint: a
// double cannot hold them exactly, and the v2 API shows all nine digits.

const NS_PER_MS = 1_000_000n
const NS_PER_S = 1_000_000_000n

const pad = (n: number, w: number): string => String(n).padStart(w, '0')

/**
 * Go's time.Time.Format(time.RFC3339Nano) of `ns`: UTC ("Z") when `utc`, else in the process's local time
 * zone (still "Z" where its offset is zero, as Go writes it). Undefined for a year outside 0..9999, which
 * Go's MarshalJSON refuses.
 */
export function formatRfc3339Nano(ns: bigint, utc = true): string | undefined {
  let ms = ns / NS_PER_MS
  let frac = ns % NS_PER_S
  if (frac < 0n) frac += NS_PER_S
  if (ns < 0n && ns % NS_PER_MS !== 0n) ms -= 1n
  const offsetMin = utc ? 0 : -new Date(Number(ms)).getTimezoneOffset()
  const d = new Date(Number(ms) + offsetMin * 60_000)
  const year = d.getUTCFullYear()
  if (!(year >= 0 && year <= 9999)) return undefined
  let fraction = frac === 0n ? '' : `.${frac.toString().padStart(9, '0')}`.replace(/0+$/, '')
  if (fraction === '.') fraction = ''
  const zone = offsetMin === 0 ? 'Z' : `${offsetMin < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(offsetMin) / 60), 2)}:${pad(Math.abs(offsetMin) % 60, 2)}`
  return `${pad(year, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}${fraction}${zone}`
}

/** Digits of v / 10^prec with the fraction's trailing zeros (and a bare point) dropped. */
function fmtFrac(v: bigint, prec: number): [string, bigint] {
  const unit = 10n ** BigInt(prec)
  const fracPart = v % unit
  let s = ''
  if (fracPart !== 0n) s = `.${fracPart.toString().padStart(prec, '0')}`.replace(/0+$/, '')
  return [s, v / unit]
}

/** Go's time.Duration(ns).String(): "1h2m3.5s", "12.978746407s", "1.5ms", "0s". */
export function formatGoDuration(ns: bigint): string {
  const neg = ns < 0n
  let u = neg ? -ns : ns
  let out: string
  if (u < NS_PER_S) {
    if (u === 0n) return '0s'
    const [prec, unit] = u < 1000n ? [0, 'ns'] : u < 1_000_000n ? [3, 'µs'] : [6, 'ms']
    const [frac, whole] = fmtFrac(u, prec)
    out = `${whole}${frac}${unit}`
  } else {
    const [frac, secsTotal] = fmtFrac(u, 9)
    u = secsTotal
    const secs = u % 60n
    u /= 60n
    out = `${secs}${frac}s`
    if (u > 0n) {
      const mins = u % 60n
      u /= 60n
      out = `${mins}m${out}`
      if (u > 0n) out = `${u}h${out}`
    }
  }
  return neg ? `-${out}` : out
}

/** Wall-clock time in Unix nanoseconds (sub-millisecond digits from the high-resolution clock). */
export function wallNowNs(): bigint {
  return msToNs(performance.timeOrigin + performance.now())
}

/** Milliseconds (fractional) as integer nanoseconds. */
export function msToNs(ms: number): bigint {
  const whole = Math.floor(ms)
  return BigInt(whole) * NS_PER_MS + BigInt(Math.floor((ms - whole) * 1e6))
}
