// The workqueue_* metric families (src/workqueue/metrics.ts): client-go's names and label, on the
// registry passed, with durations on the queue's clock.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { Registry, register as globalRegistry } from 'prom-client'
import { RateLimitingQueue } from '../../../src/workqueue/rate-limiting-queue.js'
import { WorkQueue } from '../../../src/workqueue/queue.js'
import { ManualClock } from '../../../src/pkg/clock.js'

async function value(registry: Registry, metric: string, name: string, suffix = ''): Promise<number | undefined> {
  const json = await registry.getMetricsAsJSON()
  const m = json.find((x) => x.name === metric)
  const v = m?.values.find((x) => x.labels['name'] === name && (suffix === '' || ('metricName' in x && x.metricName === metric + suffix)))
  return v?.value
}

it('records depth, adds, retries, queue and work durations, and running work, per queue name', async () => {
  const registry = new Registry()
  const clock = new ManualClock()
  const q = new RateLimitingQueue<string>({ name: 'ctl', clock, registry })
  const other = new WorkQueue<string>({ name: 'other', clock, registry })
  other.add('z')
  q.add('a')
  q.add('b')
  q.add('a')
  assert.equal(await value(registry, 'workqueue_depth', 'ctl'), 2)
  assert.equal(await value(registry, 'workqueue_adds_total', 'ctl'), 2)
  await clock.advance(2000)
  const a = await q.get()
  assert.equal(a, 'a')
  assert.equal(await value(registry, 'workqueue_depth', 'ctl'), 1)
  assert.equal(await value(registry, 'workqueue_queue_duration_seconds', 'ctl', '_sum'), 2)
  await clock.advance(3000)
  assert.equal(await value(registry, 'workqueue_unfinished_work_seconds', 'ctl'), 3)
  assert.equal(await value(registry, 'workqueue_longest_running_processor_seconds', 'ctl'), 3)
  q.done('a')
  assert.equal(await value(registry, 'workqueue_work_duration_seconds', 'ctl', '_sum'), 3)
  assert.equal(await value(registry, 'workqueue_unfinished_work_seconds', 'ctl'), 0)
  q.addRateLimited('a')
  q.addAfter('c', 10)
  assert.equal(await value(registry, 'workqueue_retries_total', 'ctl'), 2)
  assert.equal(await value(registry, 'workqueue_depth', 'other'), 1)
  assert.equal(globalRegistry.getSingleMetric('workqueue_depth'), undefined, 'nothing on the global registry')
  q.shutDown()
  other.shutDown()
})

it('a queue without a registry records nothing and still works', async () => {
  const q = new WorkQueue<string>()
  q.add('a')
  assert.equal(await q.get(), 'a')
  q.done('a')
})
