// Go's json.Decoder over a request body, as grpc-gateway reads it: one JSON value after another from a byte
// stream, with encoding/json's syntax errors ("invalid character 'x' looking for beginning of value",
// "unexpected EOF", ...) for the first byte its scanner refuses. Hand-written because JSON.parse neither
// reads a stream of values nor says what Go says. Values come back as a small tree that keeps what jsonpb
// looks at: the raw text of numbers and strings (jsonpb strips the quotes of a quoted number and hands the
// rest to json.Unmarshal), and the keys of an object in order, the last of a repeated key winning.

/** A parsed JSON value. */
export type JsonNode =
  | { readonly t: 'object'; readonly fields: ReadonlyMap<string, JsonNode> }
  | { readonly t: 'array'; readonly items: readonly JsonNode[] }
  /** `raw`: the bytes between the quotes, as latin1 text; `s`: the decoded text. */
  | { readonly t: 'string'; readonly s: string; readonly raw: string }
  | { readonly t: 'number'; readonly raw: string }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'null' }

/** A body that is not a JSON value (Go's *json.SyntaxError, or io.ErrUnexpectedEOF for a cut-off value). */
export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError'
}

/** Go's quoteChar: how the scanner names a byte in its errors. */
export function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''"
  if (c === 0x22) return '\'"\''
  const special: Readonly<Record<number, string>> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v', 0x5c: '\\\\' }
  const s = special[c]
  if (s !== undefined) return `'${s}'`
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`
  // string(byte) is the rune U+00XX: U+0080..U+00A0 and the soft hyphen are not printable.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u00${c.toString(16)}'`
  return `'${String.fromCharCode(c)}'`
}

const invalid = (c: number, context: string): JsonSyntaxError => new JsonSyntaxError(`invalid character ${quoteChar(c)} ${context}`)

/** Thrown inside the parser when the bytes run out before the value is complete. */
class NeedMore extends Error {}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)

/** A recursive-descent reading of one value from buf at pos; throws NeedMore at the end of buf. */
class Parser {
  pos: number
  private readonly buf: Buffer
  /** The body has ended: a number may end at the end of buf. */
  private readonly ended: boolean
  private depth = 0

  constructor(buf: Buffer, pos: number, ended: boolean) {
    this.buf = buf
    this.pos = pos
    this.ended = ended
  }

  private peek(): number {
    const c = this.buf[this.pos]
    if (c === undefined) throw new NeedMore()
    return c
  }

  private skipSpace(): number {
    for (;;) {
      const c = this.peek()
      if (!isSpace(c)) return c
      this.pos++
    }
  }

  value(): JsonNode {
    const c = this.skipSpace()
    switch (c) {
      case 0x7b: return this.object()
      case 0x5b: return this.array()
      case 0x22: return this.string()
      case 0x74: return this.literal('true', { t: 'bool', v: true })
      case 0x66: return this.literal('false', { t: 'bool', v: false })
      case 0x6e: return this.literal('null', { t: 'null' })
      default:
        if (c === 0x2d || isDigit(c)) return this.number()
        throw invalid(c, 'looking for beginning of value')
    }
  }

  private nest(): void {
    // Go's scanner refuses nesting deeper than 10000 levels.
    if (++this.depth > 10000) throw new JsonSyntaxError('exceeded max depth')
  }

  private object(): JsonNode {
    this.nest()
    this.pos++
    const fields = new Map<string, JsonNode>()
    let c = this.skipSpace()
    if (c === 0x7d) {
      this.pos++
      this.depth--
      return { t: 'object', fields }
    }
    for (;;) {
      if (c !== 0x22) throw invalid(c, 'looking for beginning of object key string')
      const key = this.string()
      c = this.skipSpace()
      if (c !== 0x3a) throw invalid(c, 'after object key')
      this.pos++
      const v = this.value()
      fields.delete(key.s)
      fields.set(key.s, v)
      c = this.skipSpace()
      this.pos++
      if (c === 0x7d) break
      if (c !== 0x2c) throw invalid(c, 'after object key:value pair')
      c = this.skipSpace()
    }
    this.depth--
    return { t: 'object', fields }
  }

  private array(): JsonNode {
    this.nest()
    this.pos++
    const items: JsonNode[] = []
    let c = this.skipSpace()
    if (c === 0x5d) {
      this.pos++
      this.depth--
      return { t: 'array', items }
    }
    for (;;) {
      items.push(this.value())
      c = this.skipSpace()
      this.pos++
      if (c === 0x5d) break
      if (c !== 0x2c) throw invalid(c, 'after array element')
    }
    this.depth--
    return { t: 'array', items }
  }

  private string(): { readonly t: 'string'; readonly s: string; readonly raw: string } {
    const start = ++this.pos
    let escaped = false
    for (;;) {
      const c = this.peek()
      if (c === 0x22) break
      if (c < 0x20) throw invalid(c, 'in string literal')
      if (c === 0x5c) {
        escaped = true
        this.pos++
        const e = this.peek()
        if (e === 0x75) {
          for (let i = 0; i < 4; i++) {
            this.pos++
            const h = this.peek()
            if (!isHex(h)) throw invalid(h, 'in \\u hexadecimal character escape')
          }
        } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) {
          throw invalid(e, 'in string escape code')
        }
      }
      this.pos++
    }
    const bytes = this.buf.subarray(start, this.pos)
    this.pos++
    const raw = bytes.toString('latin1')
    return { t: 'string', s: escaped ? unescape(bytes) : bytes.toString('utf8'), raw }
  }

  private literal(word: string, node: JsonNode): JsonNode {
    for (let i = 0; i < word.length; i++) {
      const c = this.peek()
      if (c !== word.charCodeAt(i)) throw invalid(c, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(i))})`)
      this.pos++
    }
    return node
  }

  /** A byte that may end a number: none when the body ended, else NeedMore. */
  private next(): number | undefined {
    const c = this.buf[this.pos]
    if (c === undefined && !this.ended) throw new NeedMore()
    return c
  }

  private number(): JsonNode {
    const start = this.pos
    let c = this.next()
    if (c === 0x2d) {
      this.pos++
      c = this.next()
      if (c === undefined) throw new NeedMore()
      if (!isDigit(c)) throw invalid(c, 'in numeric literal')
    }
    if (c === 0x30) {
      this.pos++
    } else {
      while (c !== undefined && isDigit(c)) c = this.buf[++this.pos] ?? this.next()
    }
    c = this.next()
    if (c === 0x2e) {
      this.pos++
      c = this.next()
      if (c === undefined) throw new NeedMore()
      if (!isDigit(c)) throw invalid(c, 'after decimal point in numeric literal')
      while (c !== undefined && isDigit(c)) c = this.buf[++this.pos] ?? this.next()
    }
    if (c === 0x65 || c === 0x45) {
      this.pos++
      c = this.next()
      if (c === 0x2b || c === 0x2d) {
        this.pos++
        c = this.next()
      }
      if (c === undefined) throw new NeedMore()
      if (!isDigit(c)) throw invalid(c, 'in exponent of numeric literal')
      while (c !== undefined && isDigit(c)) c = this.buf[++this.pos] ?? this.next()
    }
    return { t: 'number', raw: this.buf.subarray(start, this.pos).toString('latin1') }
  }
}

/** Go's unquote of a string literal's bytes (escapes checked by the parser); bad surrogates become U+FFFD. */
function unescape(bytes: Buffer): string {
  let out = ''
  let i = 0
  let run = 0
  const flush = (end: number): void => {
    if (end > run) out += bytes.subarray(run, end).toString('utf8')
  }
  const hex4 = (at: number): number => parseInt(bytes.subarray(at, at + 4).toString('latin1'), 16)
  while (i < bytes.length) {
    if (bytes[i] !== 0x5c) {
      i++
      continue
    }
    flush(i)
    const e = String.fromCharCode(bytes[i + 1] ?? 0)
    if (e === 'u') {
      let r = hex4(i + 2)
      i += 6
      if (r >= 0xd800 && r < 0xdc00) {
        const lo = bytes[i] === 0x5c && bytes[i + 1] === 0x75 ? hex4(i + 2) : -1
        if (lo >= 0xdc00 && lo < 0xe000) {
          r = 0x10000 + ((r - 0xd800) << 10) + (lo - 0xdc00)
          i += 6
        } else {
          r = 0xfffd
        }
      } else if (r >= 0xdc00 && r < 0xe000) {
        r = 0xfffd
      }
      out += String.fromCodePoint(r)
    } else {
      const map: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }
      out += map[e] ?? e
      i += 2
    }
    run = i
  }
  flush(bytes.length)
  return out
}

/** The end of the body with nothing but white space left (Go's io.EOF). */
export const EOF: unique symbol = Symbol('etcdlite.gateway.eof')

/**
 * json.Decoder over a body that arrives in chunks: push() what arrives, end() at its end, and next() for
 * each value: a JsonNode, EOF, or undefined while more bytes are needed. A malformed value throws
 * JsonSyntaxError (from then on every next() throws it again, as Go's decoder keeps its error).
 */
export class JsonStreamDecoder {
  private buf: Buffer = Buffer.alloc(0)
  private ended = false
  private failed: JsonSyntaxError | undefined

  push(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk])
  }

  end(): void {
    this.ended = true
  }

  /** Bytes held for a value not yet complete. */
  get buffered(): number {
    return this.buf.length
  }

  next(): JsonNode | typeof EOF | undefined {
    if (this.failed !== undefined) throw this.failed
    let start = 0
    while (start < this.buf.length && isSpace(this.buf[start] ?? 0)) start++
    if (start === this.buf.length) {
      this.buf = Buffer.alloc(0)
      return this.ended ? EOF : undefined
    }
    const p = new Parser(this.buf, start, this.ended)
    try {
      const v = p.value()
      this.buf = this.buf.subarray(p.pos)
      return v
    } catch (err) {
      if (err instanceof NeedMore) {
        if (!this.ended) return undefined
        this.failed = new JsonSyntaxError('unexpected EOF')
      } else if (err instanceof JsonSyntaxError) {
        this.failed = err
      } else {
        throw err
      }
      throw this.failed
    }
  }
}

/**
 * json.Unmarshal's reading of a whole text as one value (jsonpb hands it a quoted number's inner text):
 * syntax errors as Go words them, including what follows the value.
 */
export function parseWhole(text: string): JsonNode {
  const buf = Buffer.from(text, 'latin1')
  const p = new Parser(buf, 0, true)
  let v: JsonNode
  try {
    v = p.value()
  } catch (err) {
    if (err instanceof NeedMore) throw new JsonSyntaxError('unexpected end of JSON input')
    throw err
  }
  for (let i = p.pos; i < buf.length; i++) {
    const c = buf[i] ?? 0
    if (!isSpace(c)) throw invalid(c, 'after top-level value')
  }
  return v
}
