// How long the backend's commits took, kept as histogram counts for etcd_disk_backend_commit_duration_seconds
// and the WAL histograms (etcdserver/metrics.ts): plain numbers, so observing one commit costs a few
// comparisons and no allocation.
import { exponentialBuckets, HistogramCounts } from '../pkg/histogram.js'

/** prometheus.ExponentialBuckets(0.001, 2, 14): the buckets of etcd's commit and WAL fsync histograms. */
export const COMMIT_SECONDS_BUCKETS: readonly number[] = exponentialBuckets(0.001, 2, 14)

/** Commit durations in seconds, by bucket. */
export class CommitTimes extends HistogramCounts {
  constructor() {
    super(COMMIT_SECONDS_BUCKETS)
  }
}
