// client-go's workqueue metric families, through prom-client, on a registry the caller passes (nothing
// goes on prom-client's global registry). Every queue is one `name` label value; queues sharing a
// registry share the families. prom-client loads with the first queue given a registry (whose owner has
// loaded it already): importing etcdlite loads none of it.
import { createRequire } from 'node:module'
import type * as promClient from 'prom-client'
import type { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Clock } from '../pkg/clock.js'

/** What a queue reports as items move through it (client-go's queueMetrics). */
export interface QueueMetrics<T> {
  add(item: T): void
  get(item: T): void
  done(item: T): void
  retry(): void
  /** The queue shut down: its series stop being reported as running work. */
  close(): void
}

/** Metrics that record nothing: a queue without a registry. */
export function noQueueMetrics<T>(): QueueMetrics<T> {
  return { add: () => undefined, get: () => undefined, done: () => undefined, retry: () => undefined, close: () => undefined }
}

/** client-go's buckets for both duration histograms: 10 ns to 10 s, by factors of 10. */
const DURATION_BUCKETS = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i)

interface Families {
  readonly depth: Gauge<'name'>
  readonly adds: Counter<'name'>
  readonly latency: Histogram<'name'>
  readonly workDuration: Histogram<'name'>
  readonly retries: Counter<'name'>
  /** The live queues, read at each scrape for the two running-work gauges. */
  readonly live: Set<RegistryQueueMetrics<unknown>>
}

const familiesByRegistry = new WeakMap<Registry, Families>()

function families(registry: Registry): Families {
  const known = familiesByRegistry.get(registry)
  if (known !== undefined) return known
  const prom = createRequire(import.meta.url)('prom-client') as typeof promClient
  const live = new Set<RegistryQueueMetrics<unknown>>()
  const registers = [registry]
  const running = (pick: (m: RegistryQueueMetrics<unknown>) => number, combine: (a: number, b: number) => number) =>
    function collect(this: Gauge<'name'>): void {
      this.reset()
      const byName = new Map<string, number>()
      for (const m of live) byName.set(m.name, combine(byName.get(m.name) ?? 0, pick(m)))
      for (const [name, v] of byName) this.set({ name }, v)
    }
  const f: Families = {
    depth: new prom.Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers }),
    adds: new prom.Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'], registers }),
    latency: new prom.Histogram({
      name: 'workqueue_queue_duration_seconds', help: 'How long in seconds an item stays in workqueue before being requested.',
      labelNames: ['name'], buckets: DURATION_BUCKETS, registers,
    }),
    workDuration: new prom.Histogram({
      name: 'workqueue_work_duration_seconds', help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: ['name'], buckets: DURATION_BUCKETS, registers,
    }),
    retries: new prom.Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'], registers }),
    live,
  }
  new prom.Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: 'How many seconds of work has done that is in progress and hasn\'t been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
    labelNames: ['name'], registers, collect: running((m) => m.unfinishedSeconds(), (a, b) => a + b),
  })
  new prom.Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: ['name'], registers, collect: running((m) => m.longestRunningSeconds(), Math.max),
  })
  familiesByRegistry.set(registry, f)
  return f
}

/** One queue's series on a registry; times come from the queue's clock. */
class RegistryQueueMetrics<T> implements QueueMetrics<T> {
  readonly name: string
  private readonly f: Families
  private readonly clock: Clock
  private readonly addTimes = new Map<T, number>()
  private readonly processingStarts = new Map<T, number>()

  constructor(f: Families, name: string, clock: Clock) {
    this.f = f
    this.name = name
    this.clock = clock
    f.live.add(this)
    // Present from the start, as client-go's are once a queue exists.
    f.depth.set({ name }, 0)
    f.adds.inc({ name }, 0)
    f.retries.inc({ name }, 0)
  }

  add(item: T): void {
    this.f.adds.inc({ name: this.name })
    this.f.depth.inc({ name: this.name })
    if (!this.addTimes.has(item)) this.addTimes.set(item, this.clock.now())
  }

  get(item: T): void {
    this.f.depth.dec({ name: this.name })
    const now = this.clock.now()
    this.processingStarts.set(item, now)
    const added = this.addTimes.get(item)
    if (added !== undefined) {
      this.f.latency.observe({ name: this.name }, (now - added) / 1000)
      this.addTimes.delete(item)
    }
  }

  done(item: T): void {
    const start = this.processingStarts.get(item)
    if (start === undefined) return
    this.f.workDuration.observe({ name: this.name }, (this.clock.now() - start) / 1000)
    this.processingStarts.delete(item)
  }

  retry(): void {
    this.f.retries.inc({ name: this.name })
  }

  close(): void {
    this.f.live.delete(this)
  }

  unfinishedSeconds(): number {
    const now = this.clock.now()
    let total = 0
    for (const t of this.processingStarts.values()) total += now - t
    return total / 1000
  }

  longestRunningSeconds(): number {
    const now = this.clock.now()
    let longest = 0
    for (const t of this.processingStarts.values()) longest = Math.max(longest, now - t)
    return longest / 1000
  }
}

/** The metrics of queue `name` on `registry` (the families are registered there on first use). */
export function registryQueueMetrics<T>(registry: Registry, name: string, clock: Clock): QueueMetrics<T> {
  return new RegistryQueueMetrics<T>(families(registry), name, clock)
}
