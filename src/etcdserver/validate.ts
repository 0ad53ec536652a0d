// etcd's request checks (v3rpc/key.go and the size check of etcdserver/v3_server.go), shared by the
// gRPC service and the embedded API so both front ends refuse exactly what etcd refuses.
import { bytesToLatin1, compareBytes } from '../pkg/bytes.js'
import { EtcdError } from '../pkg/errors.js'
import type { DeleteRangeRequest, PutRequest, RangeRequest, RequestOp, TxnRequest } from './types/kv.js'

export function checkRangeRequest(r: RangeRequest): void {
  if (r.key.length === 0) throw new EtcdError('EMPTY_KEY')
}

export function checkPutRequest(r: PutRequest): void {
  if (r.key.length === 0) throw new EtcdError('EMPTY_KEY')
  if (r.ignoreValue === true && (r.value?.length ?? 0) !== 0) throw new EtcdError('VALUE_PROVIDED')
  if (r.ignoreLease === true && (r.lease ?? 0n) !== 0n) throw new EtcdError('LEASE_PROVIDED')
}

export function checkDeleteRequest(r: DeleteRangeRequest): void {
  if (r.key.length === 0) throw new EtcdError('EMPTY_KEY')
}

/** Op-count and key checks; each nested level gets the budget maxTxnOps minus its parent's count. */
export function checkTxnRequest(r: TxnRequest, maxTxnOps: number): void {
  const compare = r.compare ?? []
  const success = r.success ?? []
  const failure = r.failure ?? []
  const opc = Math.max(compare.length, success.length, failure.length)
  if (opc > maxTxnOps) throw new EtcdError('TOO_MANY_OPS')
  for (const c of compare) if (c.key.length === 0) throw new EtcdError('EMPTY_KEY')
  for (const op of success) checkRequestOp(op, maxTxnOps - opc)
  for (const op of failure) checkRequestOp(op, maxTxnOps - opc)
}

function checkRequestOp(op: RequestOp, maxTxnOps: number): void {
  switch (op.type) {
    case 'range':
      return checkRangeRequest(op.request)
    case 'put':
      return checkPutRequest(op.request)
    case 'deleteRange':
      return checkDeleteRequest(op.request)
    case 'txn':
      return checkTxnRequest(op.request, maxTxnOps)
    case 'empty':
      throw new EtcdError('KEY_NOT_FOUND')
  }
}

/** A half-open byte interval [start, end); etcd builds these with adt.NewStringAffineInterval. */
interface Interval {
  readonly start: Uint8Array
  readonly end: Uint8Array
}

const contains = (ivs: readonly Interval[], k: Uint8Array): boolean =>
  ivs.some((iv) => compareBytes(iv.start, k) <= 0 && compareBytes(k, iv.end) < 0)

/** The point interval etcd uses for a single key: [k, k + "\0"). */
const point = (k: Uint8Array): Interval => {
  const end = new Uint8Array(k.length + 1)
  end.set(k)
  return { start: k, end }
}

/**
 * etcd's checkIntervals: within one level, a key put twice, or put inside a range deleted by the same
 * level or by an already processed child txn, is a duplicate. A child's then/else branches may put the
 * same key. As in etcd, a delete's range_end is taken literally, so a `"\0"` (from-key) delete forms an
 * empty interval and conflicts with nothing.
 */
export function checkIntervals(reqs: readonly RequestOp[]): { puts: Set<string>; dels: Interval[] } {
  const dels: Interval[] = []
  for (const op of reqs) {
    if (op.type !== 'deleteRange') continue
    const d = op.request
    dels.push(d.rangeEnd !== undefined && d.rangeEnd.length !== 0 ? { start: d.key, end: d.rangeEnd } : point(d.key))
  }
  const puts = new Set<string>()
  for (const op of reqs) {
    if (op.type !== 'txn') continue
    const then = checkIntervals(op.request.success ?? [])
    const els = checkIntervals(op.request.failure ?? [])
    for (const k of then.puts) {
      if (puts.has(k) || contains(dels, Buffer.from(k, 'latin1'))) throw new EtcdError('DUPLICATE_KEY')
      puts.add(k)
    }
    for (const k of els.puts) {
      if (puts.has(k) && !then.puts.has(k)) throw new EtcdError('DUPLICATE_KEY')
      if (contains(dels, Buffer.from(k, 'latin1'))) throw new EtcdError('DUPLICATE_KEY')
      puts.add(k)
    }
    dels.push(...then.dels, ...els.dels)
  }
  for (const op of reqs) {
    if (op.type !== 'put') continue
    const k = bytesToLatin1(op.request.key)
    if (puts.has(k) || contains(dels, op.request.key)) throw new EtcdError('DUPLICATE_KEY')
    puts.add(k)
  }
  return { puts, dels }
}

/** Every check etcd's kvServer.Txn makes before the request reaches the server. */
export function checkTxn(r: TxnRequest, maxTxnOps: number): void {
  checkTxnRequest(r, maxTxnOps)
  checkIntervals(r.success ?? [])
  checkIntervals(r.failure ?? [])
}
