import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { bytesToRev, compareRev, isRevKey, isTombstone, revToBytes } from '../../../src/mvcc/revision.js'

describe('revision', () => {
  const cases = [
    { main: 0, sub: 0, hex: '0000000000000000_0000000000000000' },
    { main: 1, sub: 0, hex: '0000000000000001_0000000000000000' },
    { main: 0x7fff_ffff, sub: 0x8000_0000, hex: '000000007fffffff_0000000080000000' },
    { main: 0xffff_ffff, sub: 1, hex: '00000000ffffffff_0000000000000001' },
    { main: 0x1_0000_0000, sub: 3, hex: '0000000100000000_0000000000000003' },
    { main: Number.MAX_SAFE_INTEGER, sub: 255, hex: '001fffffffffffff_00000000000000ff' },
  ]
  for (const c of cases) {
    it(`encodes ${c.main}.${c.sub} as 17 big-endian bytes and back`, () => {
      const b = revToBytes(c)
      assert.equal(b.length, 17)
      assert.equal(Buffer.from(b.subarray(0, 8)).toString('hex') + '_' + Buffer.from(b.subarray(9)).toString('hex'), c.hex)
      assert.equal(b[8], 0x5f)
      assert.deepEqual(bytesToRev(b), { main: c.main, sub: c.sub })
      assert.equal(isTombstone(b), false)
      assert.equal(isRevKey(b), true)
    })
  }

  it('marks tombstones with a trailing t', () => {
    const b = revToBytes({ main: 5, sub: 1 }, true)
    assert.equal(b.length, 18)
    assert.equal(b[17], 0x74)
    assert.equal(isTombstone(b), true)
    assert.deepEqual(bytesToRev(b), { main: 5, sub: 1 })
  })

  it('byte order equals revision order', () => {
    const revs = [{ main: 2, sub: 0 }, { main: 1, sub: 5 }, { main: 256, sub: 0 }, { main: 1, sub: 0 }, { main: 2 ** 40, sub: 1 }]
    const byRev = [...revs].sort(compareRev)
    const byBytes = [...revs].sort((a, b) => Buffer.compare(Buffer.from(revToBytes(a)), Buffer.from(revToBytes(b))))
    assert.deepEqual(byBytes, byRev)
  })
})
