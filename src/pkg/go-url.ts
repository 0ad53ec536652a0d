// Go's net/url as its HTTP server and etcd's v2 handlers apply it, on byte strings (bstr.ts): request-target
// parsing (ParseRequestURI: a bad escape or a control byte fails the request), query parsing (ParseQuery,
// with its error texts: etcd reports them as "Invalid POST form"), and path escaping for redirects.
// Hand-written because WHATWG URL resolves dot segments and re-encodes what it parses, and URLSearchParams
// never fails, where Go keeps the raw path for ServeMux to clean and refuses bad escapes.

/** A url.EscapeError or a refused request target, with Go's text. */
export class GoUrlError extends Error {
  override name = 'GoUrlError'
}

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
const hexVal = (c: number): number => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10)

/** strconv.Quote of a short byte string (printable ASCII as is, other bytes as \xNN). */
function quote(s: string): string {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x22 || c === 0x5c) out += `\\${s[i] ?? ''}`
    else if (c >= 0x20 && c < 0x7f) out += s[i]
    else out += `\\x${c.toString(16).padStart(2, '0')}`
  }
  return `${out}"`
}

/** Go's unescape: %XX to a byte, '+' to a space in a query component. Throws `invalid URL escape "%zz"`. */
export function unescape(s: string, queryComponent: boolean): string {
  if (!s.includes('%') && !(queryComponent && s.includes('+'))) return s
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x25) {
      if (i + 2 >= s.length || !isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) {
        throw new GoUrlError(`invalid URL escape ${quote(s.slice(i, i + 3))}`)
      }
      out += String.fromCharCode((hexVal(s.charCodeAt(i + 1)) << 4) | hexVal(s.charCodeAt(i + 2)))
      i += 2
    } else if (c === 0x2b && queryComponent) {
      out += ' '
    } else {
      out += s[i]
    }
  }
  return out
}

/** Values by key in order of first appearance, each with its values in order (Go's url.Values). */
export type Values = Map<string, string[]>

/**
 * url.ParseQuery into `into`: pairs split on '&', a pair holding ';' refused, keys and values unescaped.
 * Bad pairs are skipped; the first error's text is returned (undefined when none).
 */
export function parseQuery(query: string, into: Values): string | undefined {
  let first: string | undefined
  for (const pair of query.split('&')) {
    if (pair === '') continue
    if (pair.includes(';')) {
      first ??= 'invalid semicolon separator in query'
      continue
    }
    const eq = pair.indexOf('=')
    const rawKey = eq < 0 ? pair : pair.slice(0, eq)
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1)
    let key: string
    let value: string
    try {
      key = unescape(rawKey, true)
      value = unescape(rawValue, true)
    } catch (err) {
      first ??= err instanceof Error ? err.message : String(err)
      continue
    }
    const list = into.get(key)
    if (list === undefined) into.set(key, [value])
    else list.push(value)
  }
  return first
}

/** A request target as Go's server parses it: the decoded path and the raw query. */
export interface RequestUri {
  readonly path: string
  readonly rawQuery: string
}

/**
 * url.ParseRequestURI of a request target (origin form "/p?q", or absolute form "http://h/p?q"), as a byte
 * string. Throws GoUrlError when Go's server answers 400: a control byte, or a bad escape in the path.
 */
export function parseRequestUri(target: string): RequestUri {
  for (let i = 0; i < target.length; i++) {
    const c = target.charCodeAt(i)
    if (c < 0x20 || c === 0x7f) throw new GoUrlError('net/url: invalid control character in URL')
  }
  let rest = target
  const q = rest.indexOf('?')
  const rawQuery = q < 0 ? '' : rest.slice(q + 1)
  if (q >= 0) rest = rest.slice(0, q)
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.exec(rest)
  if (scheme !== null) {
    const slash = rest.indexOf('/', scheme[0].length)
    rest = slash < 0 ? '' : rest.slice(slash)
  }
  return { path: unescape(rest, false), rawQuery }
}

/** Go's shouldEscape(c, encodePath): unreserved chars and "$&+,/:;=@" stay. */
function keepInPath(c: number): boolean {
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39)) return true
  return '-_.~$&+,/:;=@'.includes(String.fromCharCode(c))
}

/** url.URL{Path: p}.EscapedPath(): what Go writes for a path in a URL (bytes as %XX, upper-case hex). */
export function escapePath(p: string): string {
  let out = ''
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i)
    out += keepInPath(c) ? p[i] : `%${c.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Go's hexEscapeNonASCII: bytes at or above 0x80 as %XX (the Location header of a redirect). */
export function hexEscapeNonAscii(s: string): string {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    out += c >= 0x80 ? `%${c.toString(16).padStart(2, '0')}` : s[i]
  }
  return out
}
