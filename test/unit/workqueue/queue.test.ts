// The work queue's client-go semantics (src/workqueue/queue.ts, delaying-queue.ts, rate-limiting-queue.ts),
// with time on a ManualClock.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { WorkQueue } from '../../../src/workqueue/queue.js'
import { DelayingQueue } from '../../../src/workqueue/delaying-queue.js'
import { RateLimitingQueue } from '../../../src/workqueue/rate-limiting-queue.js'
import { ItemExponentialFailureRateLimiter } from '../../../src/workqueue/rate-limiters.js'
import { ManualClock } from '../../../src/pkg/clock.js'

/** Whether `p` has settled after pending callbacks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false
  void p.then(() => (done = true))
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe('WorkQueue', () => {
  it('queues an item at most once, in FIFO order', async () => {
    const q = new WorkQueue<string>()
    for (const x of ['a', 'b', 'a', 'c', 'b']) q.add(x)
    assert.equal(q.len(), 3)
    assert.deepEqual([await q.get(), await q.get(), await q.get()], ['a', 'b', 'c'])
    assert.equal(q.len(), 0)
  })

  it('never hands an item being processed to a second worker; an add meanwhile is queued again after done', async () => {
    const q = new WorkQueue<string>()
    q.add('a')
    assert.equal(await q.get(), 'a')
    q.add('a')
    q.add('a')
    assert.equal(q.len(), 0, 'a is processing: the add only marks it dirty')
    const second = q.get()
    assert.equal(await settled(second), false, 'no second worker gets a')
    q.done('a')
    assert.equal(await second, 'a', 'queued again once, after done')
    q.done('a')
    assert.equal(q.len(), 0)
  })

  it('wakes a waiting get() on add', async () => {
    const q = new WorkQueue<number>()
    const g = q.get()
    assert.equal(await settled(g), false)
    q.add(7)
    assert.equal(await g, 7)
  })

  it('shutDown: adds are ignored, waiting gets end, queued items are still handed out', async () => {
    const q = new WorkQueue<string>()
    const waiting = new WorkQueue<string>()
    const w = waiting.get()
    waiting.shutDown()
    assert.equal(await w, undefined)
    q.add('a')
    q.add('b')
    q.shutDown()
    q.add('c')
    assert.equal(q.len(), 2)
    assert.equal(await q.get(), 'a')
    assert.equal(await q.get(), 'b')
    assert.equal(await q.get(), undefined)
    assert.equal(q.isShuttingDown(), true)
  })

  it('an item added while processing before shutDown is still queued again at done', async () => {
    const q = new WorkQueue<string>()
    q.add('a')
    await q.get()
    q.add('a')
    q.shutDown()
    q.done('a')
    assert.equal(await q.get(), 'a')
    q.done('a')
    assert.equal(await q.get(), undefined)
  })

  it('shutDownWithDrain resolves once every item in progress is done', async () => {
    const q = new WorkQueue<string>()
    q.add('a')
    q.add('b')
    await q.get()
    await q.get()
    const drained = q.shutDownWithDrain()
    assert.equal(await settled(drained), false)
    q.done('a')
    assert.equal(await settled(drained), false)
    q.done('b')
    assert.equal(await settled(drained), true)
    assert.equal(q.isDraining(), true)
    await new WorkQueue<string>().shutDownWithDrain()
  })
})

describe('DelayingQueue', () => {
  it('adds an item when its delay has passed on the clock, earliest first', async () => {
    const clock = new ManualClock()
    const q = new DelayingQueue<string>({ clock })
    q.addAfter('late', 100)
    q.addAfter('early', 10)
    q.addAfter('now', 0)
    assert.equal(q.len(), 1)
    assert.equal(q.waitingCount(), 2)
    await clock.advance(9)
    assert.equal(q.len(), 1)
    await clock.advance(1)
    assert.equal(q.len(), 2)
    assert.deepEqual([await q.get(), await q.get()], ['now', 'early'])
    await clock.advance(90)
    assert.equal(await q.get(), 'late')
  })

  it('an item waiting twice keeps the earlier time, and is added once', async () => {
    const clock = new ManualClock()
    const q = new DelayingQueue<string>({ clock })
    q.addAfter('a', 50)
    q.addAfter('a', 20)
    q.addAfter('a', 80)
    assert.equal(q.waitingCount(), 1)
    await clock.advance(20)
    assert.equal(q.len(), 1)
    await clock.advance(100)
    assert.equal(q.len(), 1)
  })

  it('shutDown drops waiting items and cancels its timer', async () => {
    const clock = new ManualClock()
    const q = new DelayingQueue<string>({ clock })
    q.addAfter('a', 10)
    q.shutDown()
    assert.equal(clock.pending(), 0)
    await clock.advance(100)
    assert.equal(q.len(), 0)
    q.addAfter('b', 10)
    assert.equal(clock.pending(), 0)
  })

  it('refuses a delay that is not a number', () => {
    const q = new DelayingQueue<string>()
    assert.throws(() => q.addAfter('a', Number.NaN), TypeError)
    assert.throws(() => q.addAfter('a', '5' as unknown as number), TypeError)
  })
})

describe('RateLimitingQueue', () => {
  it('addRateLimited waits per the limiter; forget resets; numRequeues counts', async () => {
    const clock = new ManualClock()
    const q = new RateLimitingQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000) })
    q.addRateLimited('a')
    assert.equal(q.numRequeues('a'), 1)
    await clock.advance(4)
    assert.equal(q.len(), 0)
    await clock.advance(1)
    assert.equal(await q.get(), 'a')
    q.done('a')
    q.addRateLimited('a')
    await clock.advance(9)
    assert.equal(q.len(), 0)
    await clock.advance(1)
    assert.equal(q.len(), 1)
    q.forget('a')
    assert.equal(q.numRequeues('a'), 0)
  })

  it('the default limiter is client-go\'s (max of exponential and bucket)', () => {
    const q = new RateLimitingQueue<string>({ clock: new ManualClock() })
    assert.equal(q.rateLimiter.when('x'), 5)
    assert.equal(q.rateLimiter.when('x'), 10)
    assert.throws(() => new RateLimitingQueue<string>({ rateLimiter: {} as never }), TypeError)
  })
})
