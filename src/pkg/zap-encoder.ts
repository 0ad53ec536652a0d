// One log entry as etcd writes it: zap's JSON encoder with etcd's encoder config (client/pkg/logutil/zap.go).
// Hand-written rather than JSON.stringify because zap's output differs from it in ways log readers see:
// key order (level, ts, caller, msg, then fields, then stacktrace), etcd's timestamp format, Go's duration
// and float forms, and zap's string escaping (\b and \f as \u0008 and \u000c, invalid UTF-16 as U+FFFD).
import { GoDuration } from './duration.js'

export interface ZapEntry {
  readonly level: string
  /** Milliseconds since the epoch, with a fraction for microseconds. */
  readonly time: number
  /** Offset of local time from UTC in minutes, as Date#getTimezoneOffset returns it (UTC minus local). */
  readonly tzOffsetMinutes: number
  readonly caller: string
  readonly msg: string
  readonly fields: Readonly<Record<string, unknown>>
  /** zap adds one to entries at error level and above (etcd's production config). */
  readonly stacktrace?: string
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0')

/**
 * etcd's EncodeTime: Go's layout "2006-01-02T15:04:05.000000Z0700" in local time: microseconds, and "Z"
 * for UTC or the offset as +hhmm.
 */
export function formatZapTime(epochMs: number, tzOffsetMinutes: number): string {
  const micros = Math.floor(epochMs * 1000)
  const wholeMs = Math.floor(micros / 1000)
  // Local wall-clock fields: shift by the offset and read them in UTC.
  const d = new Date(wholeMs - tzOffsetMinutes * 60_000)
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`
  const clock = `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`
  const frac = pad(d.getUTCMilliseconds() * 1000 + (micros - wholeMs * 1000), 6)
  let zone = 'Z'
  if (tzOffsetMinutes !== 0) {
    const east = -tzOffsetMinutes
    const abs = Math.abs(east)
    zone = `${east < 0 ? '-' : '+'}${pad(Math.floor(abs / 60), 2)}${pad(abs % 60, 2)}`
  }
  return `${date}T${clock}.${frac}${zone}`
}

/** zap's JSON string escaping (zapcore's safeAddString): only '"', '\\' and control characters. */
export function quoteZapString(s: string): string {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdfff) {
      // A surrogate pair passes as is; a lone surrogate is invalid UTF-8 to Go: zap writes U+FFFD.
      const next = s.charCodeAt(i + 1)
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += s[i] + (s[i + 1] as string)
        i++
      } else out += '\ufffd'
      continue
    }
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
      out += s[i]
      continue
    }
    switch (c) {
      case 0x22: out += '\\"'; break
      case 0x5c: out += '\\\\'; break
      case 0x0a: out += '\\n'; break
      case 0x0d: out += '\\r'; break
      case 0x09: out += '\\t'; break
      default: out += '\\u00' + c.toString(16).padStart(2, '0')
    }
  }
  return out + '"'
}

/**
 * A float64 as zap writes it: strconv.FormatFloat(f, 'f', -1, 64), the shortest digits that read back,
 * never in exponent form; NaN and the infinities as the strings Go prints for them.
 */
export function formatZapFloat(n: number): string {
  if (Number.isNaN(n)) return '"NaN"'
  if (n === Infinity) return '"+Inf"'
  if (n === -Infinity) return '"-Inf"'
  if (Number.isInteger(n)) return (Object.is(n, -0) ? '-' : '') + BigInt(n).toString()
  const s = String(n)
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s)
  if (m === null) return s
  // Exponent form (|n| < 1e-6; large values are integers above): move the point into place.
  const [, sign, lead, rest = '', exp] = m
  const digits = `${lead}${rest}`
  const point = 1 + Number(exp)
  return `${sign}0.${'0'.repeat(-point)}${digits}`
}

/** A field value as zap encodes what etcd passes it: strings, numbers, bools, lists, durations, errors. */
export function encodeZapValue(v: unknown): string {
  switch (typeof v) {
    case 'string': return quoteZapString(v)
    case 'number': return formatZapFloat(v)
    case 'bigint': return v.toString()
    case 'boolean': return v ? 'true' : 'false'
    case 'undefined': return 'null'
    case 'symbol': return quoteZapString(v.toString())
    case 'function': return quoteZapString(`<func ${v.name}>`)
    case 'object': break
  }
  if (v === null) return 'null'
  if (v instanceof GoDuration) return quoteZapString(v.toString())
  // zap.Error: the error's message.
  if (v instanceof Error) return quoteZapString(v.message)
  if (v instanceof Date) return quoteZapString(formatZapTime(v.getTime(), v.getTimezoneOffset()))
  // zap.Binary: base64.
  if (v instanceof Uint8Array) return quoteZapString(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64'))
  if (Array.isArray(v)) return `[${v.map((e: unknown) => encodeZapValue(e)).join(',')}]`
  if (v instanceof Map) return encodeZapObject([...v.entries()].map(([k, e]: [unknown, unknown]) => [String(k), e]))
  return encodeZapObject(Object.entries(v))
}

function encodeZapObject(entries: ReadonlyArray<readonly [string, unknown]>): string {
  return `{${entries.filter(([, e]) => e !== undefined).map(([k, e]) => `${quoteZapString(k)}:${encodeZapValue(e)}`).join(',')}}`
}

/** The whole line, newline included. Fields whose value is undefined are left out. */
export function encodeZapEntry(e: ZapEntry): string {
  let line = `{"level":${quoteZapString(e.level)},"ts":${quoteZapString(formatZapTime(e.time, e.tzOffsetMinutes))}`
  line += `,"caller":${quoteZapString(e.caller)},"msg":${quoteZapString(e.msg)}`
  for (const [k, v] of Object.entries(e.fields)) {
    if (v === undefined) continue
    line += `,${quoteZapString(k)}:${encodeZapValue(v)}`
  }
  if (e.stacktrace !== undefined) line += `,"stacktrace":${quoteZapString(e.stacktrace)}`
  return line + '}\n'
}
