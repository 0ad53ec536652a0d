// The request counts behind etcd_mvcc_range_total, _put_total, _delete_total and _txn_total, counted as
// etcd's mvcc/metrics_txn.go counts them: every Range, Put and DeleteRange a txn (read or write) does,
// and one txn for every txn that did more than one of them. Plain numbers: counting costs an increment.

/** One store's op counts, read by the metrics when scraped. */
export class MvccOpCounts {
  range = 0
  put = 0
  delete = 0
  txn = 0
}
