// Go's Certificate.VerifyHostname, which --client-cert-allowed-hostname applies: IPs against IP SANs only
// (IPv4 and its IPv4-mapped form alike), names against DNS SANs with Go's wildcard and validity rules.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { verifyHostname } from '../../../../src/pkg/transport/verify-hostname.js'

const cert = (dnsNames: readonly string[], ips: readonly number[][] = []): { dnsNames: readonly string[]; ipAddresses: readonly Buffer[] } =>
  ({ dnsNames, ipAddresses: ips.map((b) => Buffer.from(b)) })

it('matches IP addresses against IP SANs only', () => {
  const c = cert(['127.0.0.1', 'localhost'], [[10, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]])
  assert.ok(verifyHostname(c, '10.0.0.1'))
  assert.ok(verifyHostname(c, '::ffff:10.0.0.1'))
  assert.ok(verifyHostname(c, '::1'))
  assert.ok(verifyHostname(c, '[::1]'))
  assert.ok(!verifyHostname(c, '127.0.0.1'), 'a DNS SAN spelling an IP does not match an IP')
  assert.ok(!verifyHostname(c, '10.0.0.2'))
  assert.ok(verifyHostname(cert([], [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1]]), '10.0.0.1'))
})

it('matches names against DNS SANs as Go does', () => {
  const c = cert(['Example.COM', '*.wild.example', 'under_score.example', '*.com', 'a*.partial.example', 'bad..name'])
  const yes = ['example.com', 'EXAMPLE.com', 'example.com.', 'x.wild.example', 'X.WILD.example.', 'under_score.example', 'foo.com', 'bad..name']
  const no = ['wild.example', 'a.b.wild.example', 'ab.partial.example', 'example.org', '', '.', 'localhost', 'x.example.net']
  for (const h of yes) assert.ok(verifyHostname(c, h), h)
  for (const h of no) assert.ok(!verifyHostname(c, h), h)
})

it('never consults anything but the SANs', () => {
  assert.ok(!verifyHostname(cert([]), 'example.com'))
  assert.ok(!verifyHostname(cert(['*']), 'example'))
})
