// Go's net/url, hand-written because Node's WHATWG URL differs where etcd's behaviour shows:
// - for the URLs etcd's flags take, url.Parse and URL.String: etcd's errors quote Go's texts (`parse
//   "http://x:y": invalid port ":y" after host`) and its member IDs hash URL.String(), which WHATWG URL
//   normalises differently (it lowercases hosts, drops default ports, adds a "/" path and accepts what Go
//   refuses);
// - as Go's HTTP server and etcd's v2 handlers apply it, on byte strings (bstr.ts): request-target parsing
//   (ParseRequestURI: a bad escape or a control byte fails the request), query parsing (ParseQuery, with
//   its error texts: etcd reports them as "Invalid POST form"), and path escaping for redirects. WHATWG URL
//   resolves dot segments and re-encodes what it parses, and URLSearchParams never fails, where Go keeps
//   the raw path for ServeMux to clean and refuses bad escapes.
import { goQuote, goQuoteBytes } from './go-quote.js'
import { errorMessage } from './as-error.js'

/** A url.Parse failure (`parse "<url>": <reason>`), a url.EscapeError or a refused request target, with Go's text. */
export class GoUrlError extends Error {
  override name = 'GoUrlError'
}

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
const hexVal = (c: number): number => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10)

/** Go's unescape: %XX to a byte, '+' to a space in a query component. Throws `invalid URL escape "%zz"`. */
export function unescape(s: string, queryComponent: boolean): string {
  if (!s.includes('%') && !(queryComponent && s.includes('+'))) return s
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x25) {
      if (i + 2 >= s.length || !isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) {
        throw new GoUrlError(`invalid URL escape ${goQuoteBytes(s.slice(i, i + 3))}`)
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
      first ??= errorMessage(err)
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

/** A parsed URL as Go's url.URL holds it (only the parts etcd's flags use). */
export interface GoUrl {
  /** Lowercased, as url.Parse leaves it. */
  readonly scheme: string
  /** Set for "scheme:opaque" URLs without "//" (e.g. "localhost:2379" parses as scheme "localhost"). */
  readonly opaque: string
  /** "user:pass" as written before "@" (undefined when there is no "@"). */
  readonly user: string | undefined
  /** host or host:port, as written (IPv6 in brackets). */
  readonly host: string
  readonly path: string
  readonly rawQuery: string
  readonly forceQuery: boolean
  readonly fragment: string
}

const fail = (raw: string, why: string): GoUrlError => new GoUrlError(`parse ${goQuote(raw)}: ${why}`)

/** stringContainsCTLByte: a byte below 0x20, or 0x7f. */
const hasCtl = (s: string): boolean => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)

/** getScheme: letters first, then letters, digits, "+", "-", "."; a ":" first is an error. */
function getScheme(raw: string): { scheme: string; rest: string } | 'missing' {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string
    if (/[a-zA-Z]/.test(c)) continue
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: '', rest: raw }
      continue
    }
    if (c === ':') {
      if (i === 0) return 'missing'
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) }
    }
    return { scheme: '', rest: raw }
  }
  return { scheme: '', rest: raw }
}

/** validOptionalPort: empty, or ":" followed by digits only. */
const validOptionalPort = (port: string): boolean => port === '' || /^:[0-9]*$/.test(port)

/** shouldEscape(c, encodeHost) is false for these: the characters a host may hold as they are. */
const HOST_OK = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%]*$/

function unescapeHost(raw: string, host: string): string {
  // Go: a "%" must start a valid escape; any other byte that needs escaping in a host is refused.
  for (let i = 0; i < host.length; i++) {
    const c = host[i] as string
    if (c === '%') {
      if (!/^[0-9a-fA-F]{2}$/.test(host.slice(i + 1, i + 3))) throw fail(raw, `invalid URL escape ${goQuote(host.slice(i, i + 3))}`)
      i += 2
    } else if (!HOST_OK.test(c) && c.charCodeAt(0) < 0x80) {
      throw fail(raw, `invalid character ${goQuote(c)} in host name`)
    }
  }
  return host
}

function parseHost(raw: string, host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']')
    if (i < 0) throw fail(raw, "missing ']' in host")
    const colonPort = host.slice(i + 1)
    if (!validOptionalPort(colonPort)) throw fail(raw, `invalid port ${goQuote(colonPort)} after host`)
    return host
  }
  const i = host.lastIndexOf(':')
  if (i !== -1) {
    const colonPort = host.slice(i)
    if (!validOptionalPort(colonPort)) throw fail(raw, `invalid port ${goQuote(colonPort)} after host`)
  }
  return unescapeHost(raw, host)
}

/** Go's url.Parse (not via a request): the subset etcd's URL flags meet, with Go's error texts. */
export function parseGoUrl(raw: string): GoUrl {
  const hash = raw.indexOf('#')
  const beforeFragment = hash === -1 ? raw : raw.slice(0, hash)
  const fragment = hash === -1 ? '' : raw.slice(hash + 1)
  if (hasCtl(raw)) throw fail(raw, 'net/url: invalid control character in URL')
  const s = getScheme(beforeFragment)
  if (s === 'missing') throw fail(raw, 'missing protocol scheme')
  const scheme = s.scheme.toLowerCase()
  let rest = s.rest
  let rawQuery = ''
  let forceQuery = false
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    forceQuery = true
    rest = rest.slice(0, -1)
  } else {
    const q = rest.indexOf('?')
    if (q !== -1) {
      rawQuery = rest.slice(q + 1)
      rest = rest.slice(0, q)
    }
  }
  const base = { scheme, user: undefined, host: '', path: '', rawQuery, forceQuery, fragment }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { ...base, opaque: rest }
    const colon = rest.indexOf(':')
    const slash = rest.indexOf('/')
    if (colon !== -1 && (slash === -1 || colon < slash)) throw fail(raw, 'first path segment in URL cannot contain colon')
  }
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const afterSlashes = rest.slice(2)
    const slash = afterSlashes.indexOf('/')
    const authority = slash === -1 ? afterSlashes : afterSlashes.slice(0, slash)
    const path = slash === -1 ? '' : afterSlashes.slice(slash)
    const at = authority.lastIndexOf('@')
    const user = at === -1 ? undefined : authority.slice(0, at)
    const host = parseHost(raw, at === -1 ? authority : authority.slice(at + 1))
    return { ...base, opaque: '', user, host, path }
  }
  return { ...base, opaque: '', path: rest }
}

/** URL.String() for what parseGoUrl produces: the text etcd compares, sorts and hashes. */
export function goUrlString(u: GoUrl): string {
  let out = u.scheme === '' ? '' : `${u.scheme}:`
  if (u.opaque !== '') out += u.opaque
  else {
    if (u.scheme !== '' || u.host !== '' || u.user !== undefined) {
      if (u.host !== '' || u.path !== '' || u.user !== undefined) out += '//'
      if (u.user !== undefined) out += `${u.user}@`
      out += u.host
    }
    if (u.path !== '' && !u.path.startsWith('/') && u.host !== '') out += '/'
    out += u.path
  }
  if (u.forceQuery || u.rawQuery !== '') out += `?${u.rawQuery}`
  if (u.fragment !== '') out += `#${u.fragment}`
  return out
}

/** url.URL.Hostname(): the host without port and brackets. */
export function goUrlHostname(u: GoUrl): string {
  const h = u.host
  if (h.startsWith('[')) {
    const i = h.indexOf(']')
    return i === -1 ? h.slice(1) : h.slice(1, i)
  }
  const i = h.lastIndexOf(':')
  return i === -1 ? h : h.slice(0, i)
}

/** url.URL.Port(): the digits after the host's last colon, or ''. */
export function goUrlPort(u: GoUrl): string {
  const h = u.host
  const close = h.lastIndexOf(']')
  const i = h.lastIndexOf(':')
  if (i === -1 || i < close) return ''
  const port = h.slice(i + 1)
  return /^[0-9]*$/.test(port) ? port : ''
}
