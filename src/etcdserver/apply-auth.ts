// Mirrors etcd etcdserver/apply_auth.go (authApplierV3): the permissions each request needs, checked against
// the auth store. Every check is a no-op while auth is disabled (the store says so first).
import type { AuthInfo } from '../auth/permission.js'
import type { AuthStore } from '../auth/store.js'
import { EtcdError } from '../pkg/errors.js'
import type { Lessor } from '../lease/lessor.js'
import type { DeleteRangeRequest, PutRequest, RangeRequest, RequestOp, TxnRequest } from './types/kv.js'

const EMPTY = new Uint8Array(0)

/** Range: read on [key, rangeEnd). */
export function checkRangeAuth(as: AuthStore, ai: AuthInfo | undefined, r: RangeRequest): void {
  as.isRangePermitted(ai, r.key, r.rangeEnd ?? EMPTY)
}

/**
 * Put: write on the key; write on every key already attached to the lease the put attaches (the user could
 * not revoke that lease otherwise); read on the key when the previous value is asked for.
 */
export function checkPutAuth(as: AuthStore, lessor: Lessor, ai: AuthInfo | undefined, r: PutRequest): void {
  as.isPutPermitted(ai, r.key)
  checkLeasePuts(as, lessor, ai, r.lease ?? 0n)
  if (r.prevKv === true) as.isRangePermitted(ai, r.key, EMPTY)
}

/** DeleteRange: write on [key, rangeEnd), and read on it when the deleted values are asked for. */
export function checkDeleteRangeAuth(as: AuthStore, ai: AuthInfo | undefined, r: DeleteRangeRequest): void {
  as.isDeleteRangePermitted(ai, r.key, r.rangeEnd ?? EMPTY)
  if (r.prevKv === true) as.isRangePermitted(ai, r.key, r.rangeEnd ?? EMPTY)
}

/**
 * Txn: read on every compare, and every op of BOTH branches (either may run), nested txns included, each op
 * as its own request would be checked. Two fixes of later etcd releases: 3.4.23 skipped the ops of a nested
 * txn (GHSA-rfx7-8w68-q57q), and checked a put in a txn for write only, not for prev_kv's read or the
 * lease's keys (CVE-2026-44283, fixed in 3.4.44, 3.5.30 and 3.6.11).
 */
export function checkTxnAuth(as: AuthStore, lessor: Lessor, ai: AuthInfo | undefined, r: TxnRequest): void {
  for (const c of r.compare ?? []) as.isRangePermitted(ai, c.key, c.rangeEnd ?? EMPTY)
  checkOpsAuth(as, lessor, ai, r.success ?? [])
  checkOpsAuth(as, lessor, ai, r.failure ?? [])
}

function checkOpsAuth(as: AuthStore, lessor: Lessor, ai: AuthInfo | undefined, ops: readonly RequestOp[]): void {
  for (const op of ops) {
    switch (op.type) {
      case 'range':
        as.isRangePermitted(ai, op.request.key, op.request.rangeEnd ?? EMPTY)
        break
      case 'put':
        checkPutAuth(as, lessor, ai, op.request)
        break
      case 'deleteRange':
        if (op.request.prevKv === true) as.isRangePermitted(ai, op.request.key, op.request.rangeEnd ?? EMPTY)
        as.isDeleteRangePermitted(ai, op.request.key, op.request.rangeEnd ?? EMPTY)
        break
      case 'txn':
        checkTxnAuth(as, lessor, ai, op.request)
        break
      case 'empty':
        break
    }
  }
}

/** Write on every key attached to the lease (LeaseRevoke, and a Put that attaches the lease). */
export function checkLeasePuts(as: AuthStore, lessor: Lessor, ai: AuthInfo | undefined, lease: bigint): void {
  if (!as.enabled || lease === 0n) return
  const l = lessor.lookup(lease)
  if (l === undefined) return
  for (const key of l.keys()) as.isPutPermitted(ai, key)
}

/**
 * LeaseTimeToLive: a user, and read on every key attached to the lease. etcd 3.4.23 checked nothing, so
 * anyone could list the key names of any lease (CVE-2023-32082); later 3.4 and 3.5 releases check this.
 */
export function checkLeaseTimeToLiveAuth(as: AuthStore, lessor: Lessor, ai: AuthInfo | undefined, lease: bigint): void {
  if (!as.enabled) return
  if (ai === undefined) throw new EtcdError('USER_EMPTY')
  const l = lessor.lookup(lease)
  if (l === undefined) return
  for (const key of l.keys()) as.isRangePermitted(ai, key, EMPTY)
}
