// What the MVCC store counts for etcd's mvcc metric families (etcd mvcc/metrics.go, metrics_txn.go,
// kvstore_compaction.go), as plain numbers and histogram counts that etcdserver/metrics.ts reads when
// scraped: counting costs an increment on the request path.
import { exponentialBuckets, HistogramCounts } from '../pkg/histogram.js'

/** One store's figures. */
export class MvccMetrics {
  // metrics_txn.go: every Range, Put and DeleteRange a txn (read or write) does, one txn for every txn that
  // did more than one of them, and the key and value bytes of the puts.
  range = 0
  put = 0
  delete = 0
  txn = 0
  putSize = 0
  /** Events handed to watch streams (etcd's ReportEventReceived: etcd_debugging_mvcc_events_total). */
  events = 0
  /** How long the key index compaction held the index, whole ms (etcd's indexCompactionPauseMs). */
  readonly indexCompactionPauseMs = new HistogramCounts(exponentialBuckets(0.5, 2, 14))
  /** Each deletion batch of a compaction but the last, whole ms (etcd's dbCompactionPauseMs). */
  readonly dbCompactionPauseMs = new HistogramCounts(exponentialBuckets(1, 2, 13))
  /** Each compaction's pass over the revision log, whole ms (etcd's dbCompactionTotalMs). */
  readonly dbCompactionTotalMs = new HistogramCounts(exponentialBuckets(100, 2, 14))
  /** Revisions the compactions deleted from the revision log. */
  dbCompactionKeys = 0
  /** Unix seconds at the end of the last compaction's pass over the revision log; 0 until one ends. */
  dbCompactionLast = 0
  /** Hash (whole backend) and HashKV (by revision) times, seconds. */
  readonly hashSec = new HistogramCounts(exponentialBuckets(0.01, 2, 15))
  readonly hashRevSec = new HistogramCounts(exponentialBuckets(0.01, 2, 15))
}
