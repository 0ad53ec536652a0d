// The process and runtime families on /metrics. etcd's Go client library adds a process collector (process_*)
// and a Go runtime collector (go_*). Here prom-client's default metrics describe the process: its process_*
// families that Go's collector also has, under the same names and HELP, plus process_virtual_memory_max_bytes,
// which prom-client lacks; and nodejs_*, the runtime's own figures, in place of go_* (a Node.js process has
// no goroutines or Go heap to report). prom-client's process_cpu_user/system_seconds_total and
// process_heap_bytes have no counterpart in etcd and are left out.
//
// The files read here (/proc/self/limits, /proc/self/fd) exist on Linux only; elsewhere the figures that
// need them are left out or 0, as etcd's are where its runtime package cannot read them. They are read
// synchronously, as prom-client reads /proc: /proc answers from memory at once, and a scrape then completes
// without yielding to I/O (an HTTP/1.0 client that half-closes after its request gets its answer before
// node:http sees the close).
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type * as promClient from 'prom-client'
import type { HistogramMetric, Labels, MetricFamily, ScalarMetric, SummaryMetric } from '../pkg/expfmt.js'

/** The process_* families of client_golang's process collector that prom-client also provides. */
const GO_PROCESS_FAMILIES = new Set([
  'process_cpu_seconds_total', 'process_max_fds', 'process_open_fds', 'process_resident_memory_bytes',
  'process_start_time_seconds', 'process_virtual_memory_bytes',
])

let defaults: promClient.Registry | undefined
/**
 * prom-client's default metrics, registered once per process in a registry of their own by the first scrape.
 * prom-client loads then (a server never scraped needs none of it), synchronously, as the files above are read.
 */
function defaultMetrics(): promClient.Registry {
  if (defaults === undefined) {
    const { collectDefaultMetrics, Registry } = createRequire(import.meta.url)('prom-client') as typeof promClient
    defaults = new Registry()
    collectDefaultMetrics({ register: defaults })
  }
  return defaults
}

type PromValue = { readonly value: unknown; readonly labels: Readonly<Record<string, unknown>>; readonly metricName?: unknown }

const numberOf = (v: unknown): number => (typeof v === 'number' ? v : NaN)

/** Label values as strings, leaving out the ones named in `drop` (le, quantile). */
function labelsOf(labels: Readonly<Record<string, unknown>>, drop?: string): Labels {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(labels)) {
    if (k !== drop && (typeof v === 'string' || typeof v === 'number')) out[k] = String(v)
  }
  return out
}

/** Group a histogram's or summary's values by their labels without `le`/`quantile`. */
function groups(values: readonly PromValue[], drop: string): Map<string, { labels: Labels; values: PromValue[] }> {
  const out = new Map<string, { labels: Labels; values: PromValue[] }>()
  for (const v of values) {
    const labels = labelsOf(v.labels, drop)
    const key = JSON.stringify(Object.entries(labels).sort())
    let g = out.get(key)
    if (g === undefined) out.set(key, (g = { labels, values: [] }))
    g.values.push(v)
  }
  return out
}

/** One prom-client metric (its JSON form) as a family. */
function toFamily(m: { readonly name: string; readonly help: string; readonly type: unknown; readonly values: readonly PromValue[] }): MetricFamily | undefined {
  switch (String(m.type)) {
    case 'counter':
    case 'gauge':
      return {
        name: m.name, help: m.help, type: String(m.type) === 'counter' ? 'counter' : 'gauge',
        metrics: m.values.map((v): ScalarMetric => ({ labels: labelsOf(v.labels), value: numberOf(v.value) })),
      }
    case 'histogram': {
      const metrics: HistogramMetric[] = []
      for (const g of groups(m.values, 'le').values()) {
        const buckets = g.values.filter((v) => v.metricName === `${m.name}_bucket` && v.labels['le'] !== '+Inf')
        const one = (suffix: string): number => numberOf(g.values.find((v) => v.metricName === `${m.name}_${suffix}`)?.value)
        metrics.push({
          labels: g.labels,
          bounds: buckets.map((v) => Number(v.labels['le'])),
          cumulative: buckets.map((v) => numberOf(v.value)),
          sum: one('sum'),
          count: one('count'),
        })
      }
      return { name: m.name, help: m.help, type: 'histogram', metrics }
    }
    case 'summary': {
      const metrics: SummaryMetric[] = []
      for (const g of groups(m.values, 'quantile').values()) {
        const one = (suffix: string): number => numberOf(g.values.find((v) => v.metricName === `${m.name}_${suffix}`)?.value)
        const quantiles = g.values.filter((v) => v.labels['quantile'] !== undefined).map((v): [number, number] => [Number(v.labels['quantile']), numberOf(v.value)])
        metrics.push({ labels: g.labels, quantiles, sum: one('sum'), count: one('count') })
      }
      return { name: m.name, help: m.help, type: 'summary', metrics }
    }
    default:
      return undefined
  }
}

/** A soft limit from /proc/self/limits ("unlimited" reads as Go's procfs reads it: 2^64-1), if readable. */
function softLimit(name: string): number | undefined {
  let text: string
  try {
    text = readFileSync('/proc/self/limits', 'utf8')
  } catch {
    return undefined
  }
  const line = text.split('\n').find((l) => l.startsWith(name))
  const soft = line?.slice(name.length).trim().split(/\s+/)[0]
  if (soft === undefined) return undefined
  return soft === 'unlimited' ? 2 ** 64 - 1 : Number(soft)
}

/** The process_* and nodejs_* families, as this process stands now. */
export async function processFamilies(): Promise<MetricFamily[]> {
  const out: MetricFamily[] = []
  for (const m of await defaultMetrics().getMetricsAsJSON()) {
    if (m.name.startsWith('process_') && !GO_PROCESS_FAMILIES.has(m.name)) continue
    const f = toFamily(m)
    if (f !== undefined) out.push(f)
  }
  const maxVsize = softLimit('Max address space')
  if (maxVsize !== undefined) {
    out.push({
      name: 'process_virtual_memory_max_bytes', help: 'Maximum amount of virtual memory available in bytes.', type: 'gauge',
      metrics: [{ labels: {}, value: maxVsize }],
    })
  }
  return out
}

/** etcd's runtime.FDUsage and FDLimit (os_fd_used, os_fd_limit): 0 each where they cannot be read. */
export function fileDescriptors(): { used: number; limit: number } {
  let used = 0
  try {
    used = readdirSync('/proc/self/fd').length
  } catch {
    // Not Linux: etcd's FDUsage fails too and leaves the gauge at 0.
  }
  return { used, limit: softLimit('Max open files') ?? 0 }
}
