// Address text as Go's net package reads it, for etcd's flags and the hosts SelfCert puts in a certificate:
// net.SplitHostPort (a URL's host:port, IPv6 in brackets, with Go's error texts) and net.ParseIP (strict
// dotted IPv4 without leading zeros, IPv6 with "::" and an embedded IPv4 tail, no zone). Node's net.isIP
// accepts zones and gives no bytes, hence these.

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

/** The host of host:port, or undefined where net.SplitHostPort fails. */
export function hostOf(hostport: string): string | undefined {
  try {
    return splitHostPort(hostport).host
  } catch {
    return undefined
  }
}

function parseIpv4(s: string): number[] | undefined {
  const parts = s.split('.')
  if (parts.length !== 4) return undefined
  const out: number[] = []
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith('0'))) return undefined
    const n = Number(p)
    if (n > 255) return undefined
    out.push(n)
  }
  return out
}

function parseIpv6(s: string): number[] | undefined {
  const halves = s.split('::')
  if (halves.length > 2) return undefined
  const groups = (part: string, last: boolean): number[] | undefined => {
    if (part === '') return []
    const out: number[] = []
    const fields = part.split(':')
    for (const [i, f] of fields.entries()) {
      if (last && i === fields.length - 1 && f.includes('.')) {
        const v4 = parseIpv4(f)
        if (v4 === undefined) return undefined
        out.push(...v4)
      } else {
        if (!/^[0-9A-Fa-f]{1,4}$/.test(f)) return undefined
        const n = parseInt(f, 16)
        out.push(n >> 8, n & 0xff)
      }
    }
    return out
  }
  const head = groups(halves[0] ?? '', halves.length === 1)
  const tail = halves.length === 2 ? groups(halves[1] ?? '', true) : []
  if (head === undefined || tail === undefined) return undefined
  if (halves.length === 1) return head.length === 16 ? head : undefined
  // "::" stands for at least one zero group.
  if (head.length + tail.length > 14) return undefined
  return [...head, ...new Array<number>(16 - head.length - tail.length).fill(0), ...tail]
}

/**
 * Go's net.ParseIP followed by the form x509 writes into a certificate: 4 bytes for IPv4 (also an
 * IPv4-mapped IPv6 address), 16 for IPv6; undefined for anything Go does not parse as an IP.
 */
export function parseIp(s: string): Buffer | undefined {
  const v4 = parseIpv4(s)
  if (v4 !== undefined) return Buffer.from(v4)
  const v6 = parseIpv6(s)
  if (v6 === undefined) return undefined
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff
  return Buffer.from(mapped ? v6.slice(12) : v6)
}

/** Go's net.ParseIP accepts it: dotted IPv4 (no leading zeros) or IPv6 without a zone. */
export const isGoIp = (host: string): boolean => parseIp(host) !== undefined
