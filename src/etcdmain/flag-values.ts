// The values etcd's flags hold, each parsing its text as Go does: the flag package's bool, string, int,
// uint and duration values (strconv with base prefixes and underscores; "parse error" and "value out of
// range"), and etcd's pkg/flags values (UniqueURLs, SelectiveString(s), Strings, UniqueStrings, Uint32,
// IgnoredFlag). Hand-written: these texts and rules are etcd's contract, not a library's.
import { parseGoDuration } from '../pkg/duration.js'
import { goQuote } from '../pkg/go-quote.js'
import { newUrls, type EtcdUrl } from './urls.js'

/** Go's flag.Value: Set parses the text (throwing FlagValueError with Go's reason), String shows it. */
export interface FlagValue {
  set(s: string): void
  string(): string
  /** Go's boolFlag: the flag needs no argument. */
  readonly isBoolFlag: boolean
}

/** A value refused by Set; the message is Go's reason, quoted by the caller in its own sentence. */
export class FlagValueError extends Error {
  override name = 'FlagValueError'
}

const ERR_PARSE = 'parse error'
const ERR_RANGE = 'value out of range'

/** strconv.ParseBool. */
export function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false
  return undefined
}

/** strconv's underscoreOK: underscores only with a base prefix, each between digits. */
function underscoreOk(s: string): boolean {
  let saw = '^'
  let i = 0
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1)
  let hex = false
  if (s.length >= 2 && s[0] === '0' && /[bBoOxX]/.test(s[1] as string)) {
    i = 2
    saw = '0'
    hex = /[xX]/.test(s[1] as string)
  }
  for (; i < s.length; i++) {
    const c = s[i] as string
    if (/[0-9]/.test(c) || (hex && /[a-fA-F]/.test(c))) {
      saw = '0'
      continue
    }
    if (c === '_') {
      if (saw !== '0') return false
      saw = '_'
      continue
    }
    if (saw === '_') return false
    saw = '!'
  }
  return saw !== '_'
}

/**
 * strconv.ParseUint(s, 0, bits): base from the prefix (0x, 0o, 0b, a leading 0 for octal), underscores
 * allowed between digits then. 'syntax' or 'range' on failure.
 */
export function parseGoUint(s: string, bits: number): bigint | 'syntax' | 'range' {
  if (s === '') return 'syntax'
  let base = 10
  let digits = s
  if (s[0] === '0') {
    const p = s[1]
    if (s.length >= 3 && (p === 'x' || p === 'X')) {
      base = 16
      digits = s.slice(2)
    } else if (s.length >= 3 && (p === 'o' || p === 'O')) {
      base = 8
      digits = s.slice(2)
    } else if (s.length >= 3 && (p === 'b' || p === 'B')) {
      base = 2
      digits = s.slice(2)
    } else {
      base = 8
      digits = s.slice(1)
    }
  }
  const underscores = digits.includes('_')
  if (underscores && !underscoreOk(s)) return 'syntax'
  const clean = digits.replace(/_/g, '')
  if (clean === '' && s !== '0') return 'syntax'
  const valid = base === 16 ? /^[0-9a-fA-F]*$/ : base === 8 ? /^[0-7]*$/ : base === 2 ? /^[01]*$/ : /^[0-9]*$/
  if (!valid.test(clean)) return 'syntax'
  const prefix = base === 16 ? '0x' : base === 8 ? '0o' : base === 2 ? '0b' : ''
  const v = clean === '' ? 0n : BigInt(prefix + clean)
  return v >= 1n << BigInt(bits) ? 'range' : v
}

/** strconv.ParseInt(s, 0, bits): an optional sign, then ParseUint's syntax. */
export function parseGoInt(s: string, bits: number): bigint | 'syntax' | 'range' {
  if (s === '') return 'syntax'
  const neg = s[0] === '-'
  const body = s[0] === '-' || s[0] === '+' ? s.slice(1) : s
  const u = parseGoUint(body, 64)
  if (u === 'syntax') return 'syntax'
  const limit = 1n << BigInt(bits - 1)
  if (u === 'range') return 'range'
  if (!neg && u >= limit) return 'range'
  if (neg && u > limit) return 'range'
  return neg ? -u : u
}

/** The strconv error text Go prints for values that are not the flag package's own (flags.NewUint32Value). */
const strconvError = (fn: string, s: string, kind: 'syntax' | 'range'): string =>
  `strconv.${fn}: parsing ${goQuote(s)}: ${kind === 'syntax' ? 'invalid syntax' : 'value out of range'}`

export class StringValue implements FlagValue {
  readonly isBoolFlag = false
  constructor(public value: string) {}
  set(s: string): void {
    this.value = s
  }
  string(): string {
    return this.value
  }
}

export class BoolValue implements FlagValue {
  readonly isBoolFlag = true
  constructor(public value: boolean) {}
  set(s: string): void {
    const v = parseGoBool(s)
    if (v === undefined) throw new FlagValueError(ERR_PARSE)
    this.value = v
  }
  string(): string {
    return String(this.value)
  }
}

/** Go's uint, uint64, int and int64 flags (bits and signedness), held as bigint. */
export class IntegerValue implements FlagValue {
  readonly isBoolFlag = false
  constructor(
    public value: bigint,
    private readonly signed: boolean,
    private readonly bits: number,
  ) {}
  set(s: string): void {
    const v = this.signed ? parseGoInt(s, this.bits) : parseGoUint(s, this.bits)
    if (v === 'syntax') throw new FlagValueError(ERR_PARSE)
    if (v === 'range') throw new FlagValueError(ERR_RANGE)
    this.value = v
  }
  string(): string {
    return this.value.toString()
  }
}

export const uintValue = (v: number): IntegerValue => new IntegerValue(BigInt(v), false, 64)
export const intValue = (v: number): IntegerValue => new IntegerValue(BigInt(v), true, 64)

/** Go's time.Duration flag, in nanoseconds. */
export class DurationValue implements FlagValue {
  readonly isBoolFlag = false
  constructor(public ns: number) {}
  set(s: string): void {
    try {
      this.ns = parseGoDuration(s)
    } catch {
      throw new FlagValueError(ERR_PARSE)
    }
  }
  string(): string {
    return formatGoDuration(this.ns)
  }
}

/** Go's Duration.String(): "1h2m3.5s", "100ms", "0s". */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return '0s'
  const neg = ns < 0
  const a = Math.abs(ns)
  const sign = neg ? '-' : ''
  const trim = (x: string): string => (x.includes('.') ? x.replace(/0+$/, '').replace(/\.$/, '') : x)
  if (a < 1e3) return `${sign}${a}ns`
  if (a < 1e6) return `${sign}${trim((a / 1e3).toFixed(3))}µs`
  if (a < 1e9) return `${sign}${trim((a / 1e6).toFixed(6))}ms`
  const h = Math.floor(a / 3600e9)
  const m = Math.floor((a % 3600e9) / 60e9)
  const sec = trim(((a % 60e9) / 1e9).toFixed(9))
  return `${sign}${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${sec}s`
}

/** flags.NewUint32Value: strconv.ParseUint(s, 0, 32), its error unwrapped by nothing. */
export class Uint32Value implements FlagValue {
  readonly isBoolFlag = false
  constructor(public value: number) {}
  set(s: string): void {
    const v = parseGoUint(s, 32)
    if (v === 'syntax' || v === 'range') throw new FlagValueError(strconvError('ParseUint', s, v))
    this.value = Number(v)
  }
  string(): string {
    return String(this.value)
  }
}

/**
 * flags.UniqueURLs: a comma-separated URL list (types.NewURLs), deduplicated; `allowed` texts (such as "*"
 * for --cors) are taken as they are. Setting the exact text already held changes nothing.
 */
export class UniqueUrlsValue implements FlagValue {
  readonly isBoolFlag = false
  values = new Set<string>()
  urls: EtcdUrl[] = []
  private readonly allowed: ReadonlySet<string>
  constructor(initial: string, ...exceptions: string[]) {
    this.allowed = new Set(exceptions)
    if (initial !== '') this.set(initial)
  }
  set(s: string): void {
    if (this.values.has(s)) return
    if (this.allowed.has(s)) {
      this.values.add(s)
      return
    }
    let parsed: EtcdUrl[]
    try {
      parsed = newUrls(s.split(','))
    } catch (err) {
      throw new FlagValueError(err instanceof Error ? err.message : String(err))
    }
    this.values = new Set()
    this.urls = []
    for (const u of parsed) {
      if (this.values.has(u.text)) continue
      this.values.add(u.text)
      this.urls.push(u)
    }
  }
  string(): string {
    return [...this.values].sort().join(',')
  }
}

/** flags.SelectiveStringValue: one of the valid strings (the first is the default), else "invalid value". */
export class SelectiveStringValue implements FlagValue {
  readonly isBoolFlag = false
  value: string
  readonly valids: readonly string[]
  constructor(...valids: [string, ...string[]]) {
    this.valids = valids
    this.value = valids[0]
  }
  set(s: string): void {
    if (!this.valids.includes(s)) throw new FlagValueError('invalid value')
    this.value = s
  }
  string(): string {
    return this.value
  }
  /** Valids(): sorted, as etcd prints them in its help. */
  sortedValids(): string[] {
    return [...this.valids].sort()
  }
}

/** flags.SelectiveStringsValue: comma-separated valid strings, added to those already set, kept sorted. */
export class SelectiveStringsValue implements FlagValue {
  readonly isBoolFlag = false
  values: string[] = []
  constructor(private readonly valids: readonly string[]) {}
  set(s: string): void {
    for (const v of s.split(',')) {
      if (!this.valids.includes(v)) throw new FlagValueError(`invalid value ${goQuote(v)}`)
      this.values.push(v)
    }
    this.values.sort()
  }
  string(): string {
    return this.values.join(',')
  }
}

/** flags.StringsValue: the comma-separated parts, in order (an empty default is an empty list). */
export class StringsValue implements FlagValue {
  readonly isBoolFlag = false
  values: string[] = []
  constructor(initial: string) {
    if (initial !== '') this.set(initial)
  }
  set(s: string): void {
    this.values = s.split(',')
  }
  string(): string {
    return this.values.join(',')
  }
}

/** flags.UniqueStringsValue: the set of comma-separated parts, read back sorted. */
export class UniqueStringsValue implements FlagValue {
  readonly isBoolFlag = false
  values = new Set<string>()
  constructor(initial: string) {
    if (initial !== '') this.set(initial)
  }
  set(s: string): void {
    this.values = new Set(s.split(','))
  }
  string(): string {
    return this.sorted().join(',')
  }
  sorted(): string[] {
    return [...this.values].sort()
  }
}

/** flags.IgnoredFlag: a flag of old etcd releases, taken without an argument and ignored. */
export class IgnoredFlag implements FlagValue {
  readonly isBoolFlag = true
  set(): void {
    // etcd accepts any value and changes nothing.
  }
  string(): string {
    return ''
  }
}
