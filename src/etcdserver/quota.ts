// Mirrors etcd etcdserver/quota.go: what a request may add to the backend, charged before it runs.
import type { PutRequest, RequestOp, TxnRequest } from './types/kv.js'

/** etcd's kvOverhead: bytes charged per put on top of its key and value. */
export const KV_OVERHEAD = 256
/** etcd's leaseOverhead: bytes charged per LeaseGrant. */
export const LEASE_OVERHEAD = 64

/**
 * Free bytes a write must leave on the data directory's filesystem, else it is refused as over the quota
 * (NOSPACE): room for LevelDB to turn a full write buffer (classic-level's 4 MiB) into a table, which it
 * does in the background after the write was acknowledged.
 */
export const DISK_RESERVE_BYTES = 4 * 1024 * 1024

export const costPut = (r: PutRequest): number => KV_OVERHEAD + r.key.length + (r.value?.length ?? 0)

/** Puts of one branch (nested txns cost nothing, as in etcd, which counts only top-level RequestPut). */
const costOps = (ops: readonly RequestOp[]): number => {
  let n = 0
  for (const op of ops) if (op.type === 'put') n += costPut(op.request)
  return n
}

/** A txn costs its more expensive branch. */
export const costTxn = (r: TxnRequest): number => Math.max(costOps(r.success ?? []), costOps(r.failure ?? []))
