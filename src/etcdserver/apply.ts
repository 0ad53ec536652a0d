// Mirrors etcd etcdserver/apply.go (applierV3backend): Range, Put, DeleteRange, Txn over mvcc views.
// Everything here is synchronous: a write txn runs from begin to end() without an await.
import { compareBytes, equalBytes, inRange, toRangeEnd, type RangeEnd } from '../pkg/bytes.js'
import { EtcdError } from '../pkg/errors.js'
import { CompactedError, FutureRevError } from '../mvcc/errors.js'
import type { KeyValue, ReadView, TxnWrite } from '../mvcc/kv.js'
import type { ResponseHeader } from './types/header.js'
import type {
  Compare, DeleteRangeRequest, DeleteRangeResponse, PutRequest, PutResponse, RangeRequest, RangeResponse, RequestOp,
  ResponseOp, TxnRequest,
} from './types/kv.js'

/** Which lease IDs exist (the lessor's Lookup). */
export type LeaseLookup = (id: bigint) => boolean

/** Inner responses carry only a revision, as etcd fills the full header on the outer response alone. */
const innerHeader = (revision: number): ResponseHeader => ({ clusterId: 0n, memberId: 0n, revision, raftTerm: 0 })

/**
 * Makes a response's header from its revision: {@link innerHeader} for the ops of a txn (the default), the
 * server's full header for a request of its own, so the response is built once with it.
 */
export type HeaderOf = (revision: number) => ResponseHeader

const EMPTY: Uint8Array = new Uint8Array(0)

/** Range with etcd's apply-layer semantics: filters and sort fetch everything, limit+1 for `more`. */
export function applyRange(view: ReadView, r: RangeRequest, headerOf: HeaderOf = innerHeader): RangeResponse {
  const sortOrderIn = r.sortOrder ?? 'NONE'
  const sortTarget = r.sortTarget ?? 'KEY'
  const minMod = r.minModRevision ?? 0
  const maxMod = r.maxModRevision ?? 0
  const minCreate = r.minCreateRevision ?? 0
  const maxCreate = r.maxCreateRevision ?? 0
  const reqLimit = r.limit ?? 0
  let limit = reqLimit
  if (sortOrderIn !== 'NONE' || minMod !== 0 || maxMod !== 0 || minCreate !== 0 || maxCreate !== 0) limit = 0
  if (limit > 0) limit = limit + 1

  const rr = view.range(r.key, toRangeEnd(r.rangeEnd), { limit, rev: r.revision ?? 0, count: r.countOnly === true })
  let kvs = rr.kvs
  if (maxMod !== 0) kvs = kvs.filter((kv) => !(kv.modRevision > maxMod))
  if (minMod !== 0) kvs = kvs.filter((kv) => !(kv.modRevision < minMod))
  if (maxCreate !== 0) kvs = kvs.filter((kv) => !(kv.createRevision > maxCreate))
  if (minCreate !== 0) kvs = kvs.filter((kv) => !(kv.createRevision < minCreate))

  let sortOrder = sortOrderIn
  // mvcc returns keys ascending already; a non-KEY target with order NONE defaults to ASCEND.
  if (sortTarget !== 'KEY' && sortOrder === 'NONE') sortOrder = 'ASCEND'
  if (sortOrder !== 'NONE') {
    const cmp = sorter(sortTarget)
    if (sortOrder === 'ASCEND') kvs.sort(cmp)
    else kvs.sort((a, b) => cmp(b, a))
  }
  let more = false
  if (reqLimit > 0 && kvs.length > reqLimit) {
    kvs = kvs.slice(0, reqLimit)
    more = true
  }
  if (r.keysOnly === true) kvs = kvs.map((kv) => ({ ...kv, value: EMPTY }))
  return { header: headerOf(rr.rev), kvs, more, count: rr.count }
}

function sorter(target: RangeRequest['sortTarget'] & string): (a: KeyValue, b: KeyValue) => number {
  switch (target) {
    case 'KEY': return (a, b) => compareBytes(a.key, b.key)
    case 'VERSION': return (a, b) => a.version - b.version
    case 'CREATE': return (a, b) => a.createRevision - b.createRevision
    case 'MOD': return (a, b) => a.modRevision - b.modRevision
    case 'VALUE': return (a, b) => compareBytes(a.value, b.value)
  }
}

/** Put inside a write txn; pre-checks (lease, ignore_* on a missing key) were done by the caller. */
export function applyPut(tw: TxnWrite, p: PutRequest, headerOf: HeaderOf = innerHeader): PutResponse {
  let value = p.value ?? EMPTY
  let lease = p.lease ?? 0n
  let prev: KeyValue | undefined
  if (p.ignoreValue === true || p.ignoreLease === true || p.prevKv === true) {
    prev = tw.range(p.key, undefined).kvs[0]
  }
  if (p.ignoreValue === true || p.ignoreLease === true) {
    if (prev === undefined) throw new EtcdError('KEY_NOT_FOUND')
    if (p.ignoreValue === true) value = prev.value
    if (p.ignoreLease === true) lease = prev.lease
  }
  const header = headerOf(tw.put(p.key, value, lease))
  return p.prevKv === true && prev !== undefined ? { header, prevKv: prev } : { header }
}

export function applyDeleteRange(tw: TxnWrite, dr: DeleteRangeRequest, headerOf: HeaderOf = innerHeader): DeleteRangeResponse {
  const end = toRangeEnd(dr.rangeEnd)
  const prevKvs = dr.prevKv === true ? tw.range(dr.key, end).kvs : []
  const { deleted, rev } = tw.deleteRange(dr.key, end)
  return { header: headerOf(rev), deleted, prevKvs }
}

/**
 * True when every op of both branches is a Range (etcd's isTxnReadonly). As in etcd, a nested txn makes
 * the txn a write txn even when it only reads: it then runs as a write txn that changes nothing.
 */
export function isTxnReadonly(r: TxnRequest): boolean {
  const ro = (ops: readonly RequestOp[] | undefined): boolean => (ops ?? []).every((op) => op.type === 'range')
  return ro(r.success) && ro(r.failure)
}

/**
 * The branch taken at every txn level, evaluated entirely against `rv` before anything executes:
 * element 0 is this level, then the nested txns on the chosen branch in order (etcd's compareToPath).
 */
export function compareToPath(rv: ReadView, r: TxnRequest): boolean[] {
  const ok = (r.compare ?? []).every((c) => applyCompare(rv, c))
  const path = [ok]
  for (const op of (ok ? r.success : r.failure) ?? []) if (op.type === 'txn') path.push(...compareToPath(rv, op.request))
  return path
}

function applyCompare(rv: ReadView, c: Compare): boolean {
  let kvs: KeyValue[]
  try {
    kvs = rv.range(c.key, toRangeEnd(c.rangeEnd)).kvs
  } catch {
    return false
  }
  if (kvs.length === 0) {
    if (c.target === 'VALUE') return false
    return compareKV(c, undefined)
  }
  return kvs.every((kv) => compareKV(c, kv))
}

function compareKV(c: Compare, kv: KeyValue | undefined): boolean {
  let result: number
  switch (c.target) {
    case 'VALUE':
      result = Math.sign(compareBytes(kv?.value ?? EMPTY, c.value ?? EMPTY))
      break
    case 'CREATE':
      result = Math.sign((kv?.createRevision ?? 0) - (c.createRevision ?? 0))
      break
    case 'MOD':
      result = Math.sign((kv?.modRevision ?? 0) - (c.modRevision ?? 0))
      break
    case 'VERSION':
      result = Math.sign((kv?.version ?? 0) - (c.version ?? 0))
      break
    case 'LEASE': {
      const a = kv?.lease ?? 0n
      const b = c.lease ?? 0n
      result = a < b ? -1 : a > b ? 1 : 0
      break
    }
    case 'UNKNOWN':
      result = 0
      break
  }
  switch (c.result) {
    case 'EQUAL': return result === 0
    case 'NOT_EQUAL': return result !== 0
    case 'GREATER': return result > 0
    case 'LESS': return result < 0
    case 'UNKNOWN': return true
  }
}

/** Walk the ops of the chosen branches (etcd's checkRequests), calling `f` on every non-txn op. */
function checkRequests(r: TxnRequest, path: boolean[], f: (op: RequestOp) => void): number {
  let txnCount = 0
  let rest = path
  for (const op of (rest[0] === true ? r.success : r.failure) ?? []) {
    if (op.type === 'txn') {
      const n = checkRequests(op.request, rest.slice(1), f)
      txnCount += n + 1
      rest = [rest[0] as boolean, ...rest.slice(n + 2)]
      continue
    }
    f(op)
  }
  return txnCount
}

/** Pre-check of a range's revision against the view (etcd's checkRequestRange). */
export function checkRangeRev(rv: ReadView, r: RangeRequest): void {
  const rev = r.revision ?? 0
  if (rev === 0) return
  if (rev > rv.rev()) throw new FutureRevError()
  if (rev < rv.firstRev()) throw new CompactedError()
}

/**
 * Run every pre-check of a txn on the chosen path; a failure fails the whole txn before any write.
 *
 * Puts with ignore_value/ignore_lease are checked in execution order against the state the txn will have
 * reached by then: a key deleted by an earlier op of the same txn is missing. etcd 3.4 checks them only
 * against the state before the txn and panics when such a put then finds no key; etcdlite refuses the
 * whole txn with "key not found" and applies nothing (docs/DEVIATIONS.md).
 */
export function checkTxnPath(rv: ReadView, r: TxnRequest, path: boolean[], isWrite: boolean, leaseExists: LeaseLookup): void {
  if (isWrite) {
    // Mutations met so far on the path, newest last: a put makes its key exist, a delete removes its range.
    const earlier: ({ readonly put: Uint8Array } | { readonly del: Uint8Array; readonly end: RangeEnd })[] = []
    const existsNow = (key: Uint8Array): boolean => {
      for (let i = earlier.length - 1; i >= 0; i--) {
        const m = earlier[i] as (typeof earlier)[number]
        if ('put' in m) {
          if (equalBytes(m.put, key)) return true
        } else if (inRange(key, m.del, m.end)) return false
      }
      return rv.range(key, undefined).kvs.length !== 0
    }
    checkRequests(r, path, (op) => {
      if (op.type === 'put') {
        const p = op.request
        if ((p.ignoreValue === true || p.ignoreLease === true) && !existsNow(p.key)) throw new EtcdError('KEY_NOT_FOUND')
        const lease = p.lease ?? 0n
        if (lease !== 0n && !leaseExists(lease)) throw new EtcdError('LEASE_NOT_FOUND')
        earlier.push({ put: p.key })
      } else if (op.type === 'deleteRange') earlier.push({ del: op.request.key, end: toRangeEnd(op.request.rangeEnd) })
    })
  }
  checkRequests(r, path, (op) => { if (op.type === 'range') checkRangeRev(rv, op.request) })
}

/**
 * Execute the chosen branches in order against `view` (a TxnWrite for a write txn, a read view otherwise).
 * Returns the number of nested txns consumed from `path`.
 */
export function applyTxnOps(view: ReadView | TxnWrite, r: TxnRequest, path: boolean[], out: ResponseOp[]): number {
  let txns = 0
  let rest = path
  const succeeded = rest[0] === true
  for (const op of (succeeded ? r.success : r.failure) ?? []) {
    switch (op.type) {
      case 'range':
        out.push({ type: 'range', response: applyRange(view, op.request) })
        break
      case 'put':
        out.push({ type: 'put', response: applyPut(view as TxnWrite, op.request) })
        break
      case 'deleteRange':
        out.push({ type: 'deleteRange', response: applyDeleteRange(view as TxnWrite, op.request) })
        break
      case 'txn': {
        const inner: ResponseOp[] = []
        const sub = rest.slice(1)
        const n = applyTxnOps(view, op.request, sub, inner)
        out.push({ type: 'txn', response: { header: innerHeader(0), succeeded: sub[0] === true, responses: inner } })
        txns += n + 1
        rest = [succeeded, ...rest.slice(n + 2)]
        break
      }
      case 'empty':
        out.push({ type: 'empty' })
        break
    }
  }
  return txns
}
