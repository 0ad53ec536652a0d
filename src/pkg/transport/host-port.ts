// Address text as Go's net package reads it, for the hosts etcd's SelfCert puts in a certificate:
// net.SplitHostPort (a URL's host:port, IPv6 in brackets) and net.ParseIP (strict dotted IPv4 without
// leading zeros, IPv6 with "::" and an embedded IPv4 tail, no zone). Node's net.isIP accepts zones and
// gives no bytes, hence these.

/** Go's net.SplitHostPort: the host, or undefined where Go returns an error. */
export function splitHostPort(hostport: string): string | undefined {
  const i = hostport.lastIndexOf(':')
  if (i < 0) return undefined
  let host: string
  let j = 0
  let k = 0
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']')
    if (end < 0 || end + 1 !== i) return undefined
    host = hostport.slice(1, end)
    j = 1
    k = end + 1
  } else {
    host = hostport.slice(0, i)
    if (host.includes(':')) return undefined
  }
  if (hostport.slice(j).includes('[') || hostport.slice(k).includes(']')) return undefined
  return host
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
