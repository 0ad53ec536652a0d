// A Prometheus histogram read from the backend's commit times (backend/commit-times.ts) when scraped, so a
// commit pays nothing to prom-client. prom-client has no way to set a histogram's counts, so this replaces
// getForPromString(), which prom-client 15's Registry reads for the text format (as grpc/metrics.ts does).
import { Histogram, type Registry } from 'prom-client'
import { COMMIT_SECONDS_BUCKETS, type CommitTimes } from '../backend/commit-times.js'

interface ExportedValue {
  readonly labels: Readonly<Record<string, string | number>>
  readonly sharedLabels: Readonly<Record<string, string>>
  readonly value: number
  readonly metricName: string
}

/** An unlabelled histogram with etcd's commit buckets, showing `times` as they are at scrape time. */
export class CommitHistogram extends Histogram {
  private readonly times: () => CommitTimes
  private readonly metricName: string
  private readonly helpText: string

  constructor(registry: Registry, name: string, help: string, times: () => CommitTimes) {
    super({ name, help, buckets: [...COMMIT_SECONDS_BUCKETS], registers: [registry] })
    this.times = times
    this.metricName = name
    this.helpText = help
  }

  getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: ExportedValue[] }> {
    const t = this.times()
    const sharedLabels = {}
    const values: ExportedValue[] = []
    let acc = 0
    COMMIT_SECONDS_BUCKETS.forEach((le, i) => {
      acc += t.buckets[i] as number
      values.push({ labels: { le }, sharedLabels, value: acc, metricName: `${this.metricName}_bucket` })
    })
    values.push({ labels: { le: '+Inf' }, sharedLabels, value: t.count, metricName: `${this.metricName}_bucket` })
    values.push({ labels: {}, sharedLabels, value: t.sum, metricName: `${this.metricName}_sum` })
    values.push({ labels: {}, sharedLabels, value: t.count, metricName: `${this.metricName}_count` })
    return Promise.resolve({ name: this.metricName, help: this.helpText, type: 'histogram', aggregator: 'sum', values })
  }
}
