// How long the backend's commits took, kept as histogram counts for etcd_disk_backend_commit_duration_seconds
// and etcd_disk_wal_fsync_duration_seconds (etcdserver/metrics.ts): plain numbers, so observing one commit
// costs a few comparisons and no allocation.

/** prometheus.ExponentialBuckets(0.001, 2, 14): the buckets of etcd's commit and WAL fsync histograms. */
export const COMMIT_SECONDS_BUCKETS: readonly number[] = Array.from({ length: 14 }, (_, i) => 0.001 * 2 ** i)

/** Commit durations in seconds, by bucket. */
export class CommitTimes {
  /** Observations per bucket, not cumulative; the last slot is past the largest bound. */
  readonly buckets: number[] = new Array<number>(COMMIT_SECONDS_BUCKETS.length + 1).fill(0)
  sum = 0
  count = 0

  observe(seconds: number): void {
    let i = 0
    while (i < COMMIT_SECONDS_BUCKETS.length && seconds > (COMMIT_SECONDS_BUCKETS[i] as number)) i++
    this.buckets[i] = (this.buckets[i] as number) + 1
    this.sum += seconds
    this.count++
  }
}
