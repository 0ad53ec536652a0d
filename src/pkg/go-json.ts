// Go's encoding/json as etcd's HTTP handlers use it, for byte strings (see bstr.ts): the encoder's exact
// output (HTML-safe escapes, \u00XX for control bytes, U+FFFD for each invalid UTF-8 byte, no spaces), and a
// decoder that, like json.Decoder.Decode, reads the first JSON value of a body and ignores what follows it.
// Hand-written because JSON.stringify escapes differently (\b, \f, no HTML escapes) and works on UTF-16 text,
// and JSON.parse rejects a body with anything after its first value.
import { invariant } from './verify.js'
import { errorMessage } from './as-error.js'

/** A value Go's encoder would write: byte strings, safe integers, arrays and objects (undefined fields are left out). */
export type GoJsonValue = null | boolean | number | string | readonly GoJsonValue[] | { readonly [k: string]: GoJsonValue | undefined }

const HEX = '0123456789abcdef'

/** Go's utf8.DecodeRune over a byte string at i: [code point, width], or [-1, 1] for an invalid byte. */
export function decodeRune(s: string, i: number): [number, number] {
  const b0 = s.charCodeAt(i)
  if (b0 < 0x80) return [b0, 1]
  const cont = (j: number, lo = 0x80, hi = 0xbf): number => {
    const b = j < s.length ? s.charCodeAt(j) : -1
    return b >= lo && b <= hi ? b & 0x3f : -1
  }
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(i + 1)
    return c1 < 0 ? [-1, 1] : [((b0 & 0x1f) << 6) | c1, 2]
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const c1 = b0 === 0xe0 ? cont(i + 1, 0xa0) : b0 === 0xed ? cont(i + 1, 0x80, 0x9f) : cont(i + 1)
    const c2 = c1 < 0 ? -1 : cont(i + 2)
    return c2 < 0 ? [-1, 1] : [((b0 & 0x0f) << 12) | (c1 << 6) | c2, 3]
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const c1 = b0 === 0xf0 ? cont(i + 1, 0x90) : b0 === 0xf4 ? cont(i + 1, 0x80, 0x8f) : cont(i + 1)
    const c2 = c1 < 0 ? -1 : cont(i + 2)
    const c3 = c2 < 0 ? -1 : cont(i + 3)
    return c3 < 0 ? [-1, 1] : [((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3, 4]
  }
  return [-1, 1]
}

/** Go's encodeState.string with HTML escaping on (what json.Marshal and Encoder.Encode write). */
function encodeString(s: string): string {
  let out = '"'
  for (let i = 0; i < s.length; ) {
    const b = s.charCodeAt(i)
    invariant(b <= 0xff, 'go-json: strings are byte strings')
    if (b < 0x80) {
      if (b >= 0x20 && b !== 0x22 && b !== 0x5c && b !== 0x3c && b !== 0x3e && b !== 0x26) out += s[i]
      else if (b === 0x22 || b === 0x5c) out += `\\${s[i] ?? ''}`
      else if (b === 0x0a) out += '\\n'
      else if (b === 0x0d) out += '\\r'
      else if (b === 0x09) out += '\\t'
      else out += `\\u00${HEX[b >> 4] ?? ''}${HEX[b & 0xf] ?? ''}`
      i++
      continue
    }
    const [r, w] = decodeRune(s, i)
    if (r < 0) out += '\\ufffd'
    else if (r === 0x2028 || r === 0x2029) out += `\\u${r.toString(16)}`
    else out += String.fromCodePoint(r)
    i += w
  }
  return `${out}"`
}

/** json.Marshal's output for `v` as UTF-16 text (write it as UTF-8). */
export function goJsonMarshal(v: GoJsonValue): string {
  if (v === null) return 'null'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'number') {
    invariant(Number.isSafeInteger(v), 'go-json: numbers are integers')
    return String(v)
  }
  if (typeof v === 'string') return encodeString(v)
  if (Array.isArray(v)) return `[${(v as readonly GoJsonValue[]).map(goJsonMarshal).join(',')}]`
  const parts: string[] = []
  for (const [k, x] of Object.entries(v as { readonly [k: string]: GoJsonValue | undefined })) {
    if (x !== undefined) parts.push(`${encodeString(k)}:${goJsonMarshal(x)}`)
  }
  return `{${parts.join(',')}}`
}

/** json.NewEncoder(w).Encode(v): the marshalled value and a newline. */
export function goJsonEncode(v: GoJsonValue): string {
  return `${goJsonMarshal(v)}\n`
}

/** Why a body is not JSON (Go's decoder refuses it: syntax error, or nothing but white space). */
export class GoJsonSyntaxError extends Error {
  override name = 'GoJsonSyntaxError'
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r'

/** Where the JSON string starting at `i` (a quote) ends, one past its closing quote. */
function skipString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j]
    if (c === '\\') j++
    else if (c === '"') return j + 1
  }
  throw new GoJsonSyntaxError('unexpected EOF')
}

/**
 * json.NewDecoder(body).Decode: the first JSON value of `text` (JSON.parse semantics for it), ignoring
 * anything after it. Throws GoJsonSyntaxError for an empty body or a malformed first value.
 */
export function goJsonDecodeFirst(text: string): unknown {
  let i = 0
  while (isSpace(text[i])) i++
  if (i === text.length) throw new GoJsonSyntaxError('EOF')
  const start = i
  const c = text[i]
  if (c === '{' || c === '[') {
    let depth = 0
    for (; i < text.length; i++) {
      const d = text[i]
      if (d === '"') i = skipString(text, i) - 1
      else if (d === '{' || d === '[') depth++
      else if (d === '}' || d === ']') {
        depth--
        if (depth === 0) {
          i++
          break
        }
      }
    }
  } else if (c === '"') {
    i = skipString(text, i)
  } else {
    while (i < text.length && !isSpace(text[i]) && !'{}[],:"'.includes(text[i] ?? '')) i++
  }
  try {
    return JSON.parse(text.slice(start, i)) as unknown
  } catch (err) {
    throw new GoJsonSyntaxError(errorMessage(err))
  }
}
