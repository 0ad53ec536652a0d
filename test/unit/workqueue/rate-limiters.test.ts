// The rate limiters' intervals (src/workqueue/rate-limiters.ts), the numbers in docs/API.md's table.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  BucketRateLimiter, defaultControllerRateLimiter, exponentialOnlyRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter,
} from '../../../src/workqueue/rate-limiters.js'
import { ManualClock } from '../../../src/pkg/clock.js'

describe('ItemExponentialFailureRateLimiter', () => {
  it('5 ms doubling per failure, capped at 1000 s from the 19th failure', () => {
    const l = new ItemExponentialFailureRateLimiter<string>()
    const delays = Array.from({ length: 21 }, () => l.when('a'))
    assert.deepEqual(delays.slice(0, 5), [5, 10, 20, 40, 80])
    assert.equal(delays[17], 655_360)
    assert.equal(delays[18], 1_000_000)
    assert.equal(delays[20], 1_000_000)
    assert.equal(l.numRequeues('a'), 21)
    assert.equal(l.when('b'), 5, 'items are independent')
    l.forget('a')
    assert.equal(l.numRequeues('a'), 0)
    assert.equal(l.when('a'), 5)
  })

  it('stays at the cap however many failures (no overflow)', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000)
    for (let i = 0; i < 2000; i++) l.when('a')
    assert.equal(l.when('a'), 1_000_000)
  })

  it('refuses bad parameters', () => {
    assert.throws(() => new ItemExponentialFailureRateLimiter(0), TypeError)
    assert.throws(() => new ItemExponentialFailureRateLimiter(5, Number.POSITIVE_INFINITY), TypeError)
  })
})

describe('BucketRateLimiter', () => {
  it('a burst of 100 at once, then one every 100 ms, shared by every item', async () => {
    const clock = new ManualClock()
    const l = new BucketRateLimiter<string>({ clock })
    for (let i = 0; i < 100; i++) assert.equal(l.when(`k${i}`), 0)
    assert.equal(Math.round(l.when('x')), 100)
    assert.equal(Math.round(l.when('y')), 200)
    assert.equal(l.numRequeues('x'), 0)
    await clock.advance(1000)
    // 10 tokens came back, 2 of them were owed.
    for (let i = 0; i < 8; i++) assert.equal(l.when('z'), 0)
    assert.equal(Math.round(l.when('z')), 100)
    await clock.advance(100_000)
    for (let i = 0; i < 100; i++) assert.equal(l.when('w'), 0, 'refills up to the burst only')
    assert.ok(l.when('w') > 0)
  })

  it('refuses bad parameters', () => {
    assert.throws(() => new BucketRateLimiter({ qps: 0 }), TypeError)
    assert.throws(() => new BucketRateLimiter({ burst: 1.5 }), TypeError)
  })
})

describe('default and exponential-only limiters', () => {
  it('defaultControllerRateLimiter: 200 items failing at once; the last 100 wait for the bucket even on their first failure', () => {
    const l = defaultControllerRateLimiter<string>(new ManualClock())
    const first = Array.from({ length: 200 }, (_, i) => l.when(`k${i}`))
    assert.deepEqual(first.slice(0, 100), Array(100).fill(5))
    assert.equal(Math.round(first[100] as number), 100)
    assert.equal(Math.round(first[199] as number), 10_000)
    assert.equal(l.numRequeues('k0'), 1)
    l.forget('k0')
    assert.equal(l.numRequeues('k0'), 0)
  })

  it('exponentialOnlyRateLimiter: the same 200 failing items do not slow each other', () => {
    const l = exponentialOnlyRateLimiter<string>()
    const first = Array.from({ length: 200 }, (_, i) => l.when(`k${i}`))
    assert.deepEqual(first, Array(200).fill(5))
  })

  it('MaxOfRateLimiter needs a limiter', () => {
    assert.throws(() => new MaxOfRateLimiter(), TypeError)
  })
})
