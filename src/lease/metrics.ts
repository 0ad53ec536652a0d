// What the lessor counts for etcd's lease metric families (etcd lease/metrics.go), as plain numbers that
// etcdserver/metrics.ts reads when scraped.
import { exponentialBuckets, HistogramCounts } from '../pkg/histogram.js'

export class LeaseMetrics {
  /** Leases granted, revoked (by request or on expiry) and renewed. */
  granted = 0
  revoked = 0
  renewed = 0
  /** The TTL of each granted lease, in seconds, after the raise to the minimum TTL (1 s to about 3 months). */
  readonly ttls = new HistogramCounts(exponentialBuckets(1, 2, 24))
}
