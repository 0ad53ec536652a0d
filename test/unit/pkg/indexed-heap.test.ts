// IndexedMinHeap (src/pkg/indexed-heap.ts), the lease expiry queue's and the delaying queue's heap. Checked
// against a brute-force map with random set/update/delete/pop sequences: the top is always the lowest
// priority (ties in any order) and each key has at most one entry.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { IndexedMinHeap } from '../../../src/pkg/indexed-heap.js'

type Op = { readonly op: 'set'; readonly id: number; readonly time: number } | { readonly op: 'remove'; readonly id: number } | { readonly op: 'pop' }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), id: fc.integer({ min: 1, max: 30 }), time: fc.integer({ min: 0, max: 100 }) }),
  fc.record({ op: fc.constant('remove' as const), id: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ op: fc.constant('pop' as const) }),
)

function checkTop(q: IndexedMinHeap<bigint>, model: Map<bigint, number>): void {
  assert.equal(q.size, model.size)
  const top = q.peek()
  if (model.size === 0) {
    assert.equal(top, undefined)
    return
  }
  assert.ok(top !== undefined)
  const min = Math.min(...model.values())
  assert.equal(top.priority, min, 'the top is the earliest time')
  assert.equal(model.get(top.key), top.priority, 'the top entry is current for its ID')
  for (const [k, v] of model) assert.equal(q.get(k), v)
  for (const now of [0, 25, 50, 100]) {
    const due = [...model.values()].filter((t) => t <= now).length
    assert.equal(q.countAtMost(now, 1000), due, `entries due at ${now}`)
    assert.equal(q.countAtMost(now, 3), Math.min(3, due), 'counting stops at the limit')
  }
}

describe('IndexedMinHeap', () => {
  const cases: Array<{ name: string; ops: Op[]; wantOrder: number[] }> = [
    { name: 'pops in time order', ops: [{ op: 'set', id: 1, time: 30 }, { op: 'set', id: 2, time: 10 }, { op: 'set', id: 3, time: 20 }], wantOrder: [2, 3, 1] },
    { name: 'an update moves an entry later', ops: [{ op: 'set', id: 1, time: 10 }, { op: 'set', id: 2, time: 20 }, { op: 'set', id: 1, time: 30 }], wantOrder: [2, 1] },
    { name: 'an update moves an entry earlier', ops: [{ op: 'set', id: 1, time: 10 }, { op: 'set', id: 2, time: 20 }, { op: 'set', id: 2, time: 5 }], wantOrder: [2, 1] },
    { name: 'a removed entry never comes out', ops: [{ op: 'set', id: 1, time: 10 }, { op: 'set', id: 2, time: 20 }, { op: 'remove', id: 1 }], wantOrder: [2] },
    { name: 'removing an unknown ID is harmless', ops: [{ op: 'set', id: 1, time: 10 }, { op: 'remove', id: 9 }], wantOrder: [1] },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const q = new IndexedMinHeap<bigint>()
      for (const o of c.ops) {
        if (o.op === 'set') q.set(BigInt(o.id), o.time)
        else if (o.op === 'remove') q.delete(BigInt(o.id))
      }
      const order: number[] = []
      for (let top = q.pop(); top !== undefined; top = q.pop()) order.push(Number(top.key))
      assert.deepEqual(order, c.wantOrder)
    })
  }

  it('agrees with a brute-force model on random operation sequences', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        const q = new IndexedMinHeap<bigint>()
        const model = new Map<bigint, number>()
        for (const o of ops) {
          if (o.op === 'set') {
            q.set(BigInt(o.id), o.time)
            model.set(BigInt(o.id), o.time)
          } else if (o.op === 'remove') {
            q.delete(BigInt(o.id))
            model.delete(BigInt(o.id))
          } else {
            const top = q.pop()
            if (top === undefined) assert.equal(model.size, 0)
            else {
              assert.equal(top.priority, Math.min(...model.values()), 'pop takes the lowest')
              model.delete(top.key)
            }
          }
          checkTop(q, model)
        }
      }),
      { numRuns: 300 },
    )
  })
})
