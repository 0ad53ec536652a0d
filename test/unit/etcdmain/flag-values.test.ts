// The Go parsing under etcd's flags: strconv's integers (base prefixes, underscores, ranges), Go's duration
// text, url.Parse with URL.String, net.SplitHostPort, and etcd's URL list values.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { formatGoDuration, parseGoInt, parseGoUint, SelectiveStringsValue, UniqueUrlsValue } from '../../../src/etcdmain/flag-values.js'
import { goUrlString, parseGoUrl } from '../../../src/pkg/go-url.js'
import { isGoIp, splitHostPort } from '../../../src/pkg/transport/host-port.js'
import { newUrlsMap, urlsMapString } from '../../../src/etcdmain/urls.js'

describe('strconv.ParseUint / ParseInt with base 0', () => {
  const cases: ReadonlyArray<readonly [string, bigint | 'syntax' | 'range']> = [
    ['0', 0n], ['10', 10n], ['0x1F', 31n], ['0X1f', 31n], ['017', 15n], ['0o17', 15n], ['0b101', 5n], ['1_000', 1000n], ['0x_1F', 31n],
    ['', 'syntax'], ['08', 'syntax'], ['1__0', 'syntax'], ['_1', 'syntax'], ['1_', 'syntax'], ['+1', 'syntax'], ['0x', 'syntax'], ['1e3', 'syntax'],
    ['18446744073709551615', 18446744073709551615n], ['18446744073709551616', 'range'],
  ]
  for (const [s, want] of cases) it(`ParseUint(${JSON.stringify(s)}) = ${String(want)}`, () => assert.equal(parseGoUint(s, 64), want))
  it('ParseInt takes a sign and checks int64', () => {
    assert.equal(parseGoInt('-0x10', 64), -16n)
    assert.equal(parseGoInt('+7', 64), 7n)
    assert.equal(parseGoInt('9223372036854775807', 64), 9223372036854775807n)
    assert.equal(parseGoInt('9223372036854775808', 64), 'range')
    assert.equal(parseGoInt('-9223372036854775808', 64), -9223372036854775808n)
  })
  it('32 bits', () => assert.equal(parseGoUint('4294967296', 32), 'range'))
})

describe("Go's Duration.String", () => {
  const cases: ReadonlyArray<readonly [number, string]> = [
    [0, '0s'], [5e9, '5s'], [60e9, '1m0s'], [7200e9, '2h0m0s'], [100e6, '100ms'], [1.5e9, '1.5s'], [1500, '1.5µs'], [-1e9, '-1s'], [90e9, '1m30s'],
  ]
  for (const [ns, want] of cases) it(`${ns} ns = ${want}`, () => assert.equal(formatGoDuration(ns), want))
})

describe('url.Parse and URL.String', () => {
  it('keeps what Go keeps and lowers only the scheme', () => {
    assert.equal(goUrlString(parseGoUrl('HTTP://Host.Example:2380')), 'http://Host.Example:2380')
    assert.equal(goUrlString(parseGoUrl('http://[::1]:2379')), 'http://[::1]:2379')
    assert.equal(goUrlString(parseGoUrl('unix://localhost:1234')), 'unix://localhost:1234')
    assert.equal(goUrlString(parseGoUrl('http://u:p@h:1?x=1#f')), 'http://u:p@h:1?x=1#f')
  })
  it("reads \"localhost:2379\" as Go does: scheme \"localhost\"", () => {
    const u = parseGoUrl('localhost:2379')
    assert.deepEqual([u.scheme, u.opaque], ['localhost', '2379'])
  })
  const bad: ReadonlyArray<readonly [string, string]> = [
    ['http://h:x', 'parse "http://h:x": invalid port ":x" after host'],
    ['http://[::1', `parse "http://[::1": missing ']' in host`],
    [':2379', 'parse ":2379": missing protocol scheme'],
    ['http://a\tb:1', 'parse "http://a\\tb:1": net/url: invalid control character in URL'],
  ]
  for (const [s, msg] of bad) it(`${JSON.stringify(s)}: ${msg}`, () => assert.throws(() => parseGoUrl(s), { message: msg }))
})

describe('net.SplitHostPort and net.ParseIP', () => {
  it('splits and refuses as Go does', () => {
    assert.deepEqual(splitHostPort('a:1'), { host: 'a', port: '1' })
    assert.deepEqual(splitHostPort('[::1]:2'), { host: '::1', port: '2' })
    assert.deepEqual(splitHostPort(':3'), { host: '', port: '3' })
    assert.throws(() => splitHostPort('a'), { message: 'address a: missing port in address' })
    assert.throws(() => splitHostPort('a:b:c'), { message: 'address a:b:c: too many colons in address' })
  })
  it('IPs', () => {
    assert.ok(isGoIp('127.0.0.1') && isGoIp('::1') && isGoIp('0.0.0.0'))
    assert.ok(!isGoIp('localhost') && !isGoIp('010.0.0.1') && !isGoIp('256.1.1.1') && !isGoIp('example.com'))
  })
})

describe("etcd's URL values", () => {
  it('UniqueURLs: sorted, deduplicated, exceptions as they are, the same text again changes nothing', () => {
    const v = new UniqueUrlsValue('*', '*')
    assert.deepEqual([...v.values], ['*'])
    v.set('http://b:1,http://a:1,http://b:1')
    assert.deepEqual(v.urls.map((u) => u.text), ['http://a:1', 'http://b:1'])
    assert.equal(v.string(), 'http://a:1,http://b:1')
  })
  it('SelectiveStrings adds to what it holds and keeps it sorted', () => {
    const v = new SelectiveStringsValue(['not-yet', 'gone'])
    v.set('not-yet')
    v.set('gone')
    assert.equal(v.string(), 'gone,not-yet')
  })
  it('URLsMap: names gather their URLs; pairs print sorted', () => {
    const m = newUrlsMap('b=http://b:1,a=http://a:2,a=http://a:1,,')
    assert.deepEqual([...m.keys()].sort(), ['a', 'b'])
    assert.equal(urlsMapString(m), 'a=http://a:1,a=http://a:2,b=http://b:1')
    assert.throws(() => newUrlsMap('a'), { message: 'URL scheme must be http, https, unix, or unixs: ' })
  })
})
