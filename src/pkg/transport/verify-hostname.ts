// Go's x509.Certificate.VerifyHostname, which etcd's --client-cert-allowed-hostname applies to a client's
// certificate: an IP address (also in [brackets]) matches only IP SANs (an IPv4 address also its
// IPv4-mapped IPv6 form); a name matches DNS SANs case-insensitively (ASCII), with a whole left-most "*"
// label standing for exactly one label, and a trailing dot on the name ignored. The common name is never
// consulted. OpenSSL's X509_check_host (X509Certificate.checkHost) differs in details Go's rules fix:
// partial wildcards, "*" over a public suffix, and names that are not valid hostnames (compared exactly).
import { BlockList, isIP } from 'node:net'
import type { CertificateFields } from './certificate-fields.js'

const toLowerAscii = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase())

function validHostname(host: string, isPattern: boolean): boolean {
  const h = isPattern ? host : host.replace(/\.$/, '')
  if (h === '' || h === '*') return false
  return h.split('.').every((part, i) => {
    if (part === '') return false
    if (isPattern && i === 0 && part === '*') return true
    return /^[A-Za-z0-9_][A-Za-z0-9_-]*$/.test(part)
  })
}

function matchExactly(a: string, b: string): boolean {
  if (a === '' || a === '.' || b === '' || b === '.') return false
  return toLowerAscii(a) === toLowerAscii(b)
}

function matchHostnames(pattern: string, host: string): boolean {
  const p = toLowerAscii(pattern).split('.')
  const h = toLowerAscii(host.replace(/\.$/, '')).split('.')
  if (pattern === '' || h.join('.') === '' || p.length !== h.length) return false
  return p.every((part, i) => (i === 0 && part === '*') || part === h[i])
}

/** An IP SAN as text node:net parses: dotted IPv4 for 4 bytes, full IPv6 for 16; undefined otherwise. */
function ipText(ip: Buffer): string | undefined {
  if (ip.length === 4) return [...ip].join('.')
  if (ip.length === 16) return Array.from({ length: 8 }, (_, i) => ip.readUInt16BE(i * 2).toString(16)).join(':')
  return undefined
}

/** Whether Go's VerifyHostname(host) accepts a certificate with these names. */
export function verifyHostname(cert: Pick<CertificateFields, 'dnsNames' | 'ipAddresses'>, host: string): boolean {
  const candidateIp = host.length >= 3 && host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  const family = isIP(candidateIp)
  if (family !== 0) {
    return cert.ipAddresses.some((ip) => {
      const text = ipText(ip)
      if (text === undefined) return false
      const list = new BlockList()
      list.addAddress(text, ip.length === 4 ? 'ipv4' : 'ipv6')
      return list.check(candidateIp, family === 4 ? 'ipv4' : 'ipv6')
    })
  }
  const candidate = toLowerAscii(host)
  const validCandidate = validHostname(candidate, false)
  return cert.dnsNames.some((pattern) =>
    validCandidate && validHostname(pattern, true) ? matchHostnames(pattern, candidate) : matchExactly(pattern, candidate))
}
