// runController (src/controller/controller.ts): keys from the informer reach reconcile, one worker per key
// at a time; a throw requeues rate-limited, requeueAfterMs after the delay; stopping lets reconciles in
// progress finish.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd } from '../../../src/embed/etcd.js'
import { SharedInformer } from '../../../src/informer/shared-informer.js'
import { runController } from '../../../src/controller/controller.js'
import { ItemExponentialFailureRateLimiter } from '../../../src/workqueue/rate-limiters.js'
import type { RateLimitingQueue } from '../../../src/workqueue/rate-limiting-queue.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { until } from '../../helpers/until.js'
import { objDecoder, type Obj } from '../../helpers/informer.js'

it('reconciles every key, never the same key twice at once; throws retry with backoff; requeueAfter waits', async () => {
  const clock = new ManualClock()
  await using etcd = await openEtcd({ memory: true })
  for (let i = 0; i < 20; i++) await etcd.put({ key: `c/${i}`, value: 'v' })
  await using inf = new SharedInformer<Obj>(etcd, { prefix: 'c/', decode: objDecoder }).start()
  const ac = new AbortController()
  const running = new Set<string>()
  const calls = new Map<string, number>()
  const overlaps: string[] = []
  let queue: RateLimitingQueue<string> | undefined
  const done = runController<Obj>({
    informer: inf,
    workers: 4,
    signal: ac.signal,
    clock,
    rateLimiter: new ItemExponentialFailureRateLimiter<string>(100, 1000),
    onError: () => undefined,
    onQueue: (q) => (queue = q),
    reconcile: async (key) => {
      if (running.has(key)) overlaps.push(key)
      running.add(key)
      calls.set(key, (calls.get(key) ?? 0) + 1)
      await new Promise((resolve) => setImmediate(resolve))
      running.delete(key)
      const n = calls.get(key) as number
      if (key === 'c/1' && n < 3) throw new Error('not yet')
      if (key === 'c/2' && n === 1) return { requeueAfterMs: 5000 }
      return {}
    },
  })
  // A reconcile counts its call before it returns, so each step waits for the outcome (the requeue and
  // its timer) to be registered before it moves the clock; otherwise the timer would start later.
  const held = (n: number): boolean => queue?.waitingCount() === n
  await until(() => calls.size === 20 && held(2), 'every key reconciled, c/1 and c/2 held')
  assert.equal(calls.get('c/1'), 1)
  assert.equal(queue?.numRequeues('c/1'), 1)
  await clock.advance(100)
  await until(() => calls.get('c/1') === 2 && queue?.numRequeues('c/1') === 2 && held(2), 'the first retry after 100 ms, failed again')
  await clock.advance(199)
  assert.equal(calls.get('c/1'), 2, 'the second waits 200 ms')
  await clock.advance(1)
  await until(() => calls.get('c/1') === 3, 'the second retry')
  assert.equal(queue?.numRequeues('c/1'), 0, 'success forgets the failures')
  assert.equal(calls.get('c/2'), 1)
  await clock.advance(5000)
  await until(() => calls.get('c/2') === 2, 'requeueAfterMs')
  // Changes keep arriving through the informer, including bursts on one key.
  for (let i = 0; i < 30; i++) await etcd.put({ key: 'c/5', value: `x${i}` })
  await etcd.deleteRange({ key: 'c/6' })
  await until(() => (calls.get('c/5') ?? 0) >= 2 && (calls.get('c/6') ?? 0) >= 2 && queue?.len() === 0 && queue.processingCount() === 0, 'the changes')
  assert.deepEqual(overlaps, [])
  ac.abort()
  await done
  assert.equal(queue?.isShuttingDown(), true)
})

it('stopping waits for reconciles in progress, and takes no new key', async () => {
  await using etcd = await openEtcd({ memory: true })
  for (let i = 0; i < 5; i++) await etcd.put({ key: `s/${i}`, value: 'v' })
  await using inf = new SharedInformer<Obj>(etcd, { prefix: 's/', decode: objDecoder }).start()
  const ac = new AbortController()
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const started: string[] = []
  let finished = 0
  let stopped = false
  const done = runController<Obj>({
    informer: inf,
    signal: ac.signal,
    reconcile: async (key, signal) => {
      started.push(key)
      await gate
      assert.equal(signal.aborted, true)
      finished++
    },
  }).then(() => (stopped = true))
  await until(() => started.length === 1, 'one reconcile in progress')
  ac.abort()
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(stopped, false, 'waits for the reconcile in progress')
  release()
  await done
  assert.deepEqual([started.length, finished], [1, 1])
})

it('refuses bad options', async () => {
  await using etcd = await openEtcd({ memory: true })
  const inf = new SharedInformer<Obj>(etcd, { decode: objDecoder })
  const signal = new AbortController().signal
  await assert.rejects(runController({ informer: inf, reconcile: () => undefined, signal, workers: 0 }), TypeError)
  await assert.rejects(runController({ informer: inf, reconcile: 1 as never, signal }), TypeError)
  await assert.rejects(runController({ informer: {} as never, reconcile: () => undefined, signal }), TypeError)
  await inf.stop()
})
