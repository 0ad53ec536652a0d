// Property: under any interleaving of adds, delayed and rate-limited adds, workers taking and finishing
// items, and time passing, the work queue never hands an item to two workers at once, and every item
// added is eventually processed (a processing of it starts after its last add).
import { it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { RateLimitingQueue } from '../../src/workqueue/rate-limiting-queue.js'
import { ItemExponentialFailureRateLimiter } from '../../src/workqueue/rate-limiters.js'
import { ManualClock } from '../../src/pkg/clock.js'

const WORKERS = 4

type Cmd =
  | { readonly op: 'add' | 'addRateLimited' | 'forget'; readonly item: number }
  | { readonly op: 'addAfter'; readonly item: number; readonly ms: number }
  | { readonly op: 'get' | 'done'; readonly worker: number }
  | { readonly op: 'advance'; readonly ms: number }

const item = fc.integer({ min: 0, max: 5 })
const worker = fc.integer({ min: 0, max: WORKERS - 1 })
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  fc.record({ op: fc.constantFrom('add' as const, 'addRateLimited' as const, 'forget' as const), item }),
  fc.record({ op: fc.constant('addAfter' as const), item, ms: fc.integer({ min: -5, max: 50 }) }),
  fc.record({ op: fc.constantFrom('get' as const, 'done' as const), worker }),
  fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 60 }) }),
)

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

async function check(cmds: readonly Cmd[]): Promise<void> {
  const clock = new ManualClock()
  const q = new RateLimitingQueue<number>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<number>(5, 40) })
  const holding = Array.from({ length: WORKERS }, (): number | undefined => undefined)
  const getting = Array.from({ length: WORKERS }, () => false)
  const held = new Set<number>()
  /** Step of an item's last add call, and of its last processing start. */
  const lastAdd = new Map<number, number>()
  const lastStart = new Map<number, number>()
  let step = 0
  /** Found inside promise callbacks, asserted after each step. */
  const violations: string[] = []
  const startWorker = (w: number): void => {
    if (holding[w] !== undefined || getting[w] === true) return
    getting[w] = true
    void q.get().then((x) => {
      getting[w] = false
      if (x === undefined) return
      if (held.has(x)) violations.push(`item ${x} handed to a second worker`)
      held.add(x)
      holding[w] = x
      lastStart.set(x, ++step)
    })
  }
  const finish = (w: number): void => {
    const x = holding[w]
    if (x === undefined) return
    held.delete(x)
    holding[w] = undefined
    q.done(x)
  }
  for (const c of cmds) {
    switch (c.op) {
      case 'add':
        q.add(c.item)
        lastAdd.set(c.item, ++step)
        break
      case 'addRateLimited':
        q.addRateLimited(c.item)
        lastAdd.set(c.item, ++step)
        break
      case 'addAfter':
        q.addAfter(c.item, c.ms)
        lastAdd.set(c.item, ++step)
        break
      case 'forget':
        q.forget(c.item)
        break
      case 'get':
        startWorker(c.worker)
        break
      case 'done':
        finish(c.worker)
        break
      case 'advance':
        await clock.advance(c.ms)
        break
    }
    await tick()
    assert.deepEqual(violations, [])
  }
  // Let time pass and every worker run until nothing is left.
  for (let round = 0; round < 200; round++) {
    await clock.advance(50)
    for (let w = 0; w < WORKERS; w++) startWorker(w)
    await tick()
    for (let w = 0; w < WORKERS; w++) finish(w)
    await tick()
    assert.deepEqual(violations, [])
    if (q.len() === 0 && q.waitingCount() === 0 && held.size === 0 && q.processingCount() === 0) break
  }
  assert.equal(q.len() + q.waitingCount() + q.processingCount(), 0, 'the queue drained')
  for (const [x, added] of lastAdd) {
    assert.ok((lastStart.get(x) ?? -1) > added, `item ${x} added at step ${added} but not processed after it`)
  }
  q.shutDown()
  await tick()
  assert.ok(getting.every((g) => !g), 'waiting workers were released by shutDown')
}

it('work queue: no item on two workers at once; every added item is processed after its last add', async () => {
  const scale = Number(process.env['PROP_SCALE'] ?? 1)
  await fc.assert(fc.asyncProperty(fc.array(cmd, { maxLength: 120 }), check), { numRuns: Math.max(1, Math.round(150 * scale)) })
})
