// Go's net.SplitHostPort and net.ParseIP, as SelfCert applies them to the listen URLs' hosts.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { hostOf, parseIp } from '../../../../src/pkg/transport/host-port.js'

it('splits host:port as Go does, undefined where Go returns an error', () => {
  const cases: ReadonlyArray<readonly [string, string | undefined]> = [
    ['127.0.0.1:2379', '127.0.0.1'], ['localhost:2379', 'localhost'], ['[::1]:2379', '::1'], ['[fe80::1%eth0]:1', 'fe80::1%eth0'],
    ['host:', 'host'], [':2379', ''], ['localhost', undefined], ['::1:2379', undefined], ['[::1]', undefined], ['[::1]x:1', undefined],
    ['a[b:1', undefined], ['a]b:1', undefined],
  ]
  for (const [input, host] of cases) assert.equal(hostOf(input), host, input)
})

it('parses IPs as Go does, in the form x509 writes them', () => {
  const hex = (s: string): string | undefined => parseIp(s)?.toString('hex')
  assert.equal(hex('127.0.0.1'), '7f000001')
  assert.equal(hex('0.0.0.0'), '00000000')
  assert.equal(hex('::1'), '00000000000000000000000000000001')
  assert.equal(hex('::'), '00000000000000000000000000000000')
  assert.equal(hex('2001:db8::8:800:200c:417a'), '20010db80000000000080800200c417a')
  assert.equal(hex('::ffff:10.1.2.3'), '0a010203')
  assert.equal(hex('::ffff:a01:203'), '0a010203')
  assert.equal(hex('64:ff9b::192.0.2.33'), '0064ff9b0000000000000000c0000221')
  for (const bad of ['', 'localhost', '01.2.3.4', '1.2.3', '256.1.1.1', '1:2:3:4:5:6:7:8:9', '1::2::3', 'fe80::1%eth0', '1.2.3.4::', '12345::', '[::1]']) {
    assert.equal(parseIp(bad), undefined, bad)
  }
})
