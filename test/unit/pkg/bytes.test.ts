import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { compareBytes, FROM_KEY, inRange, prefixEnd, toRangeEnd } from '../../../src/pkg/bytes.js'

const b = (...xs: number[]): Uint8Array => Uint8Array.from(xs)

describe('bytes', () => {
  const prefixCases = [
    { prefix: b(0x61), end: b(0x62) },
    { prefix: b(0x61, 0xff), end: b(0x62) },
    { prefix: b(0xff, 0xff), end: b(0) },
    { prefix: b(), end: b(0) },
  ]
  for (const c of prefixCases) it(`prefixEnd(${Buffer.from(c.prefix).toString('hex')})`, () => assert.deepEqual(prefixEnd(c.prefix), c.end))

  it('compares like Go bytes.Compare', () => {
    assert.ok(compareBytes(b(1), b(1, 0)) < 0)
    assert.ok(compareBytes(b(0xff), b(1, 0)) > 0)
    assert.equal(compareBytes(b(), b()), 0)
  })

  it('reads range ends as etcd does', () => {
    assert.equal(toRangeEnd(undefined), undefined)
    assert.equal(toRangeEnd(b()), undefined)
    assert.equal(toRangeEnd(b(0)), FROM_KEY)
    assert.deepEqual(toRangeEnd(b(0, 0)), b(0, 0))
    assert.ok(inRange(b(5), b(1), FROM_KEY))
    assert.ok(!inRange(b(5), b(1), b(5)))
    assert.ok(inRange(b(1), b(1), undefined))
  })
})
