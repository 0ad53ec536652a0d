// IdGenerator (src/pkg/id-generator.ts): etcd's idutil layout — member ID's low 16 bits, 5 bytes of start
// time in ms, a counter in the low byte that carries into the timestamp — and no repeats.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { IdGenerator } from '../../../src/pkg/id-generator.js'

describe('IdGenerator', () => {
  const cases = [
    { name: 'first ID: member prefix, start time, counter 1', member: 0x1234_5678_9abc_def0n, now: 0x01_0203_0405, want: 0xdef0_0102_0304_0501n },
    { name: 'only the low 16 bits of the member ID are used', member: 0xffff_0000_0000_0001n, now: 5, want: 0x0001_0000_0000_0501n },
    { name: 'the timestamp keeps its low 5 bytes', member: 0n, now: 0xff_ffff_ffff_ff, want: 0x0000_ffff_ffff_ff01n },
  ]
  for (const c of cases) {
    it(c.name, () => assert.equal(new IdGenerator(c.member, c.now).next(), c.want))
  }

  it('counts up, the counter carrying into the timestamp, and never repeats', () => {
    const g = new IdGenerator(7n, 1000)
    const seen = new Set<bigint>()
    let prev = 0n
    for (let i = 0; i < 1000; i++) {
      const id = g.next()
      assert.ok(id > prev)
      assert.equal(id >> 48n, 7n)
      seen.add(id)
      prev = id
    }
    assert.equal(seen.size, 1000)
    assert.equal(prev, (7n << 48n) | ((1000n << 8n) + 1000n))
  })
})
