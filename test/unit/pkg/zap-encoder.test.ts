// The zap line encoder (src/pkg/zap-encoder.ts) and Go's duration form (src/pkg/duration.ts): the key order,
// timestamp, escaping and value forms etcd's lines have.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { encodeZapEntry, encodeZapValue, formatZapFloat, formatZapTime, quoteZapString } from '../../../src/pkg/zap-encoder.js'
import { formatGoDuration, GoDuration } from '../../../src/pkg/duration.js'

/** A line real etcd 3.4.23 wrote with --logger=zap (3.5 writes the same shape, its ts to the microsecond). */
const ETCD_LINE =
  '{"level":"info","ts":"2026-11-25T20:15:36.250Z","caller":"etcdserver/server.go:2069","msg":"published local member to cluster through raft",' +
  '"local-member-id":"d45c5c2e1f5dcb38","local-member-attributes":"{Name:ref ClientURLs:[http://127.0.0.1:37311]}",' +
  '"request-path":"/0/members/d45c5c2e1f5dcb38/attributes","cluster-id":"9cd12a8df81f9cbb","publish-timeout":"7s"}'

describe('zap line encoding', () => {
  it("writes etcd's line: level, ts, caller, msg, then the fields in order, one line", () => {
    const line = encodeZapEntry({
      level: 'info',
      time: Date.UTC(2026, 10, 25, 20, 15, 36, 250) + 0.125,
      tzOffsetMinutes: 0,
      caller: 'etcdserver/server.go:2069',
      msg: 'published local member to cluster through raft',
      fields: {
        'local-member-id': 'd45c5c2e1f5dcb38',
        'local-member-attributes': '{Name:ref ClientURLs:[http://127.0.0.1:37311]}',
        'request-path': '/0/members/d45c5c2e1f5dcb38/attributes',
        'cluster-id': '9cd12a8df81f9cbb',
        'publish-timeout': GoDuration.ms(7000),
      },
    })
    assert.ok(line.endsWith('}\n') && !line.slice(0, -1).includes('\n'))
    // The same as etcd's but for the timestamp, which etcd 3.5 writes to the microsecond.
    assert.equal(line, ETCD_LINE.replace('20:15:36.250Z', '20:15:36.250125Z') + '\n')
    const ours = JSON.parse(line) as Record<string, unknown>
    const theirs = JSON.parse(ETCD_LINE) as Record<string, unknown>
    assert.deepEqual(Object.keys(ours), Object.keys(theirs))
    assert.deepEqual(Object.values(ours).map((v) => typeof v), Object.values(theirs).map((v) => typeof v))
  })

  it('adds the stacktrace after the fields, and leaves out undefined fields', () => {
    const line = encodeZapEntry({ level: 'error', time: 0, tzOffsetMinutes: 0, caller: 'a/b.go:1', msg: 'm', fields: { a: 1, b: undefined, c: 'x' }, stacktrace: 'f\n\tfile:1' })
    assert.equal(line, '{"level":"error","ts":"1970-01-01T00:00:00.000000Z","caller":"a/b.go:1","msg":"m","a":1,"c":"x","stacktrace":"f\\n\\tfile:1"}\n')
  })

  const times: ReadonlyArray<{ name: string; ms: number; tz: number; want: string }> = [
    { name: 'UTC is Z', ms: Date.UTC(2024, 0, 2, 3, 4, 5, 6) + 0.75, tz: 0, want: '2024-01-02T03:04:05.006750Z' },
    { name: 'east of UTC is +hhmm in local time', ms: Date.UTC(2024, 0, 2, 23, 30, 0, 0), tz: -90, want: '2024-01-03T01:00:00.000000+0130' },
    { name: 'west of UTC is -hhmm', ms: Date.UTC(2024, 6, 1, 2, 0, 0, 500), tz: 420, want: '2024-06-30T19:00:00.500000-0700' },
  ]
  for (const c of times) {
    it(`timestamps: ${c.name}`, () => assert.equal(formatZapTime(c.ms, c.tz), c.want))
  }

  const strings: ReadonlyArray<[string, string]> = [
    ['plain <html> & stays', '"plain <html> & stays"'],
    ['q"b\\s', '"q\\"b\\\\s"'],
    ['\n\r\t', '"\\n\\r\\t"'],
    ['\b\f\u0001\u001f', '"\\u0008\\u000c\\u0001\\u001f"'],
    ['µs é 😀', '"µs é 😀"'],
    ['lone \ud800 surrogate', '"lone \ufffd surrogate"'],
  ]
  for (const [s, want] of strings) {
    it(`strings as zap escapes them: ${JSON.stringify(s)}`, () => assert.equal(quoteZapString(s), want))
  }

  const floats: ReadonlyArray<[number, string]> = [
    [0, '0'], [1.5, '1.5'], [-2, '-2'], [1e21, '1000000000000000000000'], [1.5e-7, '0.00000015'], [1e-7, '0.0000001'],
    [Number.NaN, '"NaN"'], [Infinity, '"+Inf"'], [-Infinity, '"-Inf"'],
  ]
  for (const [n, want] of floats) {
    it(`numbers as Go's 'f' format: ${n}`, () => assert.equal(formatZapFloat(n), want))
  }

  it('values: bigints as numbers, errors as their message, lists, durations, binary as base64', () => {
    assert.equal(encodeZapValue(18446744073709551615n), '18446744073709551615')
    assert.equal(encodeZapValue(new Error('open x: no such file or directory')), '"open x: no such file or directory"')
    assert.equal(encodeZapValue(['a', 1, true]), '["a",1,true]')
    assert.equal(encodeZapValue([]), '[]')
    assert.equal(encodeZapValue(GoDuration.ms(1500)), '"1.5s"')
    assert.equal(encodeZapValue(new Uint8Array([1, 2, 3])), '"AQID"')
    assert.equal(encodeZapValue(null), 'null')
    assert.equal(encodeZapValue({ b: 1, a: 'x' }), '{"b":1,"a":"x"}')
  })
})

describe("Go's time.Duration.String", () => {
  const cases: ReadonlyArray<[number | bigint, string]> = [
    [0, '0s'], [1, '1ns'], [999, '999ns'], [1500, '1.5µs'], [100_000, '100µs'], [1_500_000, '1.5ms'], [20_481_192, '20.481192ms'],
    [1e9, '1s'], [7e9, '7s'], [1.5e9, '1.5s'], [60e9, '1m0s'], [90e9, '1m30s'], [3600e9, '1h0m0s'], [3723.5e9, '1h2m3.5s'],
    [-1.5e9, '-1.5s'], [9223372036854775807n, '2562047h47m16.854775807s'],
  ]
  for (const [ns, want] of cases) {
    it(`${String(ns)} ns is ${want}`, () => assert.equal(formatGoDuration(ns), want))
  }
})
