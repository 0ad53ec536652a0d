// AsyncQueue (src/pkg/async-queue.ts): a bounded queue whose tryPush() refuses when full, with onSpace
// once the consumer makes room after a refusal, close() that still delivers what is queued, and return()
// (a `break` out of for-await) that closes and drops the rest.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { AsyncQueue } from '../../../src/pkg/async-queue.js'

/** Take n items with next(); fails if the queue ends first. */
async function take(q: AsyncQueue<number>, n: number): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const r = await q.next()
    if (r.done === true) assert.fail(`ended after ${out.length} items`)
    out.push(r.value)
  }
  return out
}

/** Whether a promise has settled, checked after the microtasks queued so far have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false
  void p.then(() => (done = true), () => (done = true))
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe('AsyncQueue', () => {
  const pushes: Array<{ name: string; capacity: number; ops: Array<'push' | 'force' | 'take'>; want: { accepted: boolean[]; length: number } }> = [
    { name: 'takes up to capacity, then refuses', capacity: 2, ops: ['push', 'push', 'push'], want: { accepted: [true, true, false], length: 2 } },
    { name: 'takes again once an item is consumed', capacity: 2, ops: ['push', 'push', 'push', 'take', 'push', 'push'], want: { accepted: [true, true, false, true, false], length: 2 } },
    { name: 'pushForce goes past capacity, and tryPush then refuses', capacity: 1, ops: ['force', 'force', 'push'], want: { accepted: [false], length: 2 } },
    { name: 'capacity 0 refuses everything tryPush offers', capacity: 0, ops: ['push', 'force'], want: { accepted: [false], length: 1 } },
  ]
  for (const c of pushes) {
    it(c.name, async () => {
      const q = new AsyncQueue<number>({ capacity: c.capacity })
      const accepted: boolean[] = []
      let n = 0
      for (const op of c.ops) {
        if (op === 'push') accepted.push(q.tryPush(n++))
        else if (op === 'force') q.pushForce(n++)
        else await take(q, 1)
      }
      assert.deepEqual({ accepted, length: q.length }, c.want)
    })
  }

  it('delivers items in order, including across its internal compaction of consumed slots', async () => {
    const q = new AsyncQueue<number>({ capacity: 5000 })
    const got: number[] = []
    let next = 0
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 700; i++) assert.equal(q.tryPush(next++), true)
      got.push(...(await take(q, 500)))
    }
    got.push(...(await take(q, q.length)))
    assert.deepEqual(got, Array.from({ length: next }, (_, i) => i))
  })

  it('a waiting consumer gets the next item pushed', async () => {
    const q = new AsyncQueue<number>({ capacity: 1 })
    const p = q.next()
    assert.equal(await settled(p), false)
    assert.equal(q.tryPush(7), true)
    assert.deepEqual(await p, { done: false, value: 7 })
    assert.equal(q.length, 0, 'handed straight to the waiter, not queued')
  })

  it('a second concurrent next() is refused', async () => {
    const q = new AsyncQueue<number>({ capacity: 1 })
    const first = q.next()
    await assert.rejects(q.next(), /one consumer at a time/)
    q.close()
    assert.deepEqual(await first, { done: true, value: undefined })
  })

  describe('onSpace', () => {
    const cases: Array<{ name: string; capacity: number; script: Array<'push' | 'force' | 'take'>; wantCalls: number[] }> = [
      // wantCalls: the onSpace count after each step.
      { name: 'is not called when nothing was refused', capacity: 2, script: ['push', 'push', 'take', 'take'], wantCalls: [0, 0, 0, 0] },
      { name: 'is called once when the consumer takes from a queue that refused', capacity: 1, script: ['push', 'push', 'push', 'take', 'push', 'take'], wantCalls: [0, 0, 0, 1, 1, 1] },
      { name: 'is called again after a new refusal', capacity: 1, script: ['push', 'push', 'take', 'push', 'push', 'take'], wantCalls: [0, 0, 1, 1, 1, 2] },
      { name: 'waits until the queue is below capacity (after pushForce overfilled it)', capacity: 1, script: ['push', 'force', 'push', 'take', 'take'], wantCalls: [0, 0, 0, 0, 1] },
    ]
    for (const c of cases) {
      it(c.name, async () => {
        let calls = 0
        const q = new AsyncQueue<number>({ capacity: c.capacity, onSpace: () => calls++ })
        const seen: number[] = []
        for (const op of c.script) {
          if (op === 'push') q.tryPush(0)
          else if (op === 'force') q.pushForce(0)
          else await take(q, 1)
          seen.push(calls)
        }
        assert.deepEqual(seen, c.wantCalls)
      })
    }
  })

  describe('close', () => {
    it('delivers what is queued, then ends; later pushes are refused or ignored', async () => {
      const q = new AsyncQueue<number>({ capacity: 3 })
      q.tryPush(1)
      q.pushForce(2)
      q.close()
      q.close()
      assert.equal(q.isClosed, true)
      assert.equal(q.tryPush(3), false)
      q.pushForce(4)
      const got: number[] = []
      for await (const x of q) got.push(x)
      assert.deepEqual(got, [1, 2])
      assert.deepEqual(await q.next(), { done: true, value: undefined }, 'stays ended')
    })

    it('ends a consumer that is waiting', async () => {
      const q = new AsyncQueue<number>({ capacity: 3 })
      const p = q.next()
      q.close()
      assert.deepEqual(await p, { done: true, value: undefined })
    })

    it('break out of for-await closes the queue and drops what is left', async () => {
      const q = new AsyncQueue<number>({ capacity: 10 })
      for (let i = 0; i < 5; i++) q.tryPush(i)
      const got: number[] = []
      for await (const x of q) {
        got.push(x)
        if (x === 1) break
      }
      assert.deepEqual(got, [0, 1])
      assert.equal(q.isClosed, true)
      assert.equal(q.length, 0)
      assert.equal(q.tryPush(9), false)
      assert.deepEqual(await q.next(), { done: true, value: undefined })
    })
  })
})
