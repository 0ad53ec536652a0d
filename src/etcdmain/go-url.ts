// Go's net/url Parse and URL.String, and net.SplitHostPort, for the URLs etcd's flags take. Hand-written
// because etcd's errors quote Go's texts (`parse "http://x:y": invalid port ":y" after host`) and its
// member IDs hash URL.String(), which WHATWG URL (Node's URL) normalises differently: it lowercases hosts,
// drops default ports, adds a "/" path and accepts what Go refuses.

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

/** url.Parse's error: Go prints it as `parse "<url>": <reason>`. */
export class GoUrlError extends Error {
  override name = 'GoUrlError'
}

const fail = (raw: string, why: string): GoUrlError => new GoUrlError(`parse ${goQuote(raw)}: ${why}`)

/** Go's %q of a string (strconv.Quote): JSON's escapes are the same for the printable ASCII that URLs hold. */
export function goQuote(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

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

/** net.SplitHostPort's error: `address <addr>: <why>`. */
export class AddrError extends Error {
  override name = 'AddrError'
}

/** Go's net.SplitHostPort, with its error texts. */
export function splitHostPort(hostport: string): { host: string; port: string } {
  const addrErr = (why: string): AddrError => new AddrError(`address ${hostport}: ${why}`)
  const i = hostport.lastIndexOf(':')
  if (i < 0) throw addrErr('missing port in address')
  let host: string
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']')
    if (end < 0) throw addrErr("missing ']' in address")
    if (end + 1 === hostport.length) throw addrErr('missing port in address')
    if (end + 1 !== i) throw addrErr(hostport[end + 1] === ':' ? 'too many colons in address' : 'missing port in address')
    host = hostport.slice(1, end)
    if (host.includes('[') || host.includes(']') || hostport.slice(end + 1).includes('[') || hostport.slice(end + 1).includes(']')) {
      throw addrErr(hostport.slice(1).includes('[') ? "unexpected '[' in address" : "unexpected ']' in address")
    }
  } else {
    host = hostport.slice(0, i)
    if (host.includes(':')) throw addrErr('too many colons in address')
    if (host.includes('[')) throw addrErr("unexpected '[' in address")
    if (host.includes(']')) throw addrErr("unexpected ']' in address")
  }
  const port = hostport.slice(i + 1)
  if (port.includes('[')) throw addrErr("unexpected '[' in address")
  if (port.includes(']')) throw addrErr("unexpected ']' in address")
  return { host, port }
}

/** Go's net.ParseIP accepts it: dotted IPv4 (no leading zeros) or IPv6 without a zone. */
export function isGoIp(host: string): boolean {
  if (/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(host)) {
    return host.split('.').every((p) => Number(p) <= 255 && (p === '0' || !p.startsWith('0')))
  }
  if (!host.includes(':') || host.includes('%')) return false
  try {
    return new URL(`http://[${host}]/`).hostname !== ''
  } catch {
    return false
  }
}
