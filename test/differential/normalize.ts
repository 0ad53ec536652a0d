// Turn gRPC KV responses (as @grpc/proto-loader decodes them) into plain, comparable values.
//
// What is compared: every field, except the outer header's cluster_id, member_id and raft_term (they
// identify a cluster and an election, and differ between any two servers). Inner headers (those inside
// txn responses) are compared in full: etcd leaves everything but the revision zero there.
//
// Sort ties: Go's sort.Sort is not stable in general (pdqsort above 12 elements), so for a range sorted by
// a target other than KEY, kvs with the same sort value form a "tie group" that is compared as a set
// (ordered by key here). When the response was truncated by `limit` (more = true), which members of the
// last tie group survive depends on the sort algorithm, so that group is compared by sort value and size
// only. With keys_only and target VALUE the values are blank in the response, so the whole response is
// one tie group. Everything else about order (groups, and all KEY-sorted or unsorted ranges) is exact.

/** A byte string as readable text: printable ASCII as is, anything else as \xNN. */
export function show(v: unknown): string {
  if (!(v instanceof Uint8Array)) return `<${typeof v}:${String(v)}>`
  let s = ''
  for (const c of v) s += c >= 0x20 && c < 0x7f && c !== 0x5c ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`
  return s
}

import type { Op } from './gen.js'
import { errorMessage } from '../../src/pkg/as-error.js'

type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array)
const obj = (v: unknown): Obj => (isObj(v) ? v : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : [])

export interface NormKv {
  key: string
  create_revision: unknown
  mod_revision: unknown
  version: unknown
  value: string
  lease: unknown
}

function normKv(v: unknown): NormKv | null {
  if (v === null || v === undefined) return null
  const kv = obj(v)
  return {
    key: show(kv['key']),
    create_revision: kv['create_revision'],
    mod_revision: kv['mod_revision'],
    version: kv['version'],
    value: show(kv['value']),
    lease: kv['lease'],
  }
}

function normHeader(v: unknown, outer: boolean): unknown {
  if (v === null || v === undefined) return v
  const h = obj(v)
  return outer ? { revision: h['revision'] } : { cluster_id: h['cluster_id'], member_id: h['member_id'], revision: h['revision'], raft_term: h['raft_term'] }
}

const SORT_FIELD: Readonly<Record<string, keyof NormKv>> = {
  VERSION: 'version', CREATE: 'create_revision', MOD: 'mod_revision', VALUE: 'value',
}

function sortTargetOf(req: Obj): string {
  const t = req['sort_target']
  if (t === undefined || t === 0 || t === 'KEY') return 'KEY'
  return typeof t === 'string' ? t : ['KEY', 'VERSION', 'CREATE', 'MOD', 'VALUE'][Number(t)] ?? 'KEY'
}

/** kvs of a range sorted by a non-KEY target, as tie groups of equal `sortValue` (see the file comment). */
function tieGroups(kvs: NormKv[], sortValue: (kv: NormKv) => unknown, more: boolean): unknown[] {
  const groups: { sortValue: unknown; kvs: NormKv[] }[] = []
  for (const kv of kvs) {
    const last = groups[groups.length - 1]
    if (last !== undefined && last.sortValue === sortValue(kv)) last.kvs.push(kv)
    else groups.push({ sortValue: sortValue(kv), kvs: [kv] })
  }
  return groups.map((g, i) => {
    if (more && i === groups.length - 1) return { sortValue: g.sortValue, truncatedTieGroupSize: g.kvs.length }
    return { sortValue: g.sortValue, kvs: [...g.kvs].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0)) }
  })
}

export function normRange(req: Obj, v: unknown, outer: boolean): unknown {
  const r = obj(v)
  const kvs = arr(r['kvs']).map((x) => normKv(x) as NormKv)
  const target = sortTargetOf(req)
  const field = SORT_FIELD[target]
  const more = r['more']
  let kvsOut: unknown = kvs
  if (field !== undefined) {
    // keys_only blanks values after sorting: a VALUE sort is then unobservable, so it is all one tie group.
    const sortValue = field === 'value' && req['keys_only'] === true ? (): unknown => 'blanked by keys_only' : (kv: NormKv): unknown => kv[field]
    kvsOut = { sortedBy: target, groups: tieGroups(kvs, sortValue, more === true) }
  }
  return { header: normHeader(r['header'], outer), kvs: kvsOut, more, count: r['count'] }
}

export function normPut(v: unknown, outer: boolean): unknown {
  const r = obj(v)
  return { header: normHeader(r['header'], outer), prev_kv: normKv(r['prev_kv']) }
}

export function normDelete(v: unknown, outer: boolean): unknown {
  const r = obj(v)
  return { header: normHeader(r['header'], outer), deleted: r['deleted'], prev_kvs: arr(r['prev_kvs']).map(normKv) }
}

export function normTxn(req: Obj, v: unknown, outer: boolean): unknown {
  const r = obj(v)
  const succeeded = r['succeeded']
  const reqOps = arr(succeeded === true ? req['success'] : req['failure'])
  const responses = arr(r['responses']).map((x, i) => {
    const op = obj(x)
    const which = op['response']
    const reqOp = obj(reqOps[i])
    switch (which) {
      case 'response_range': return { response_range: normRange(obj(reqOp['request_range']), op['response_range'], false) }
      case 'response_put': return { response_put: normPut(op['response_put'], false) }
      case 'response_delete_range': return { response_delete_range: normDelete(op['response_delete_range'], false) }
      case 'response_txn': return { response_txn: normTxn(obj(reqOp['request_txn']), op['response_txn'], false) }
      default: return { empty: which ?? null }
    }
  })
  return { header: normHeader(r['header'], outer), succeeded, responses }
}

export function normCompact(v: unknown): unknown {
  return { header: normHeader(obj(v)['header'], true) }
}

/** A successful response to `op`, normalized by its kind. */
export function normResponse(op: Op, res: Record<string, unknown>): unknown {
  switch (op.kind) {
    case 'range': return normRange(op.req, res, true)
    case 'put': return normPut(res, true)
    case 'deleteRange': return normDelete(res, true)
    case 'txn': return normTxn(op.req, res, true)
    case 'compact': return normCompact(res)
  }
}

/** A failed call as code + message (grpc-js ServiceError: code, details). */
export function normError(e: unknown): unknown {
  const err = obj(e)
  if (typeof err['code'] === 'number') return { error: { code: err['code'], details: err['details'] } }
  return { error: { unexpected: errorMessage(e) } }
}

/** Make a request printable (Buffers as text) for failure messages. */
export function showRequest(v: unknown): unknown {
  if (v instanceof Uint8Array) return show(v)
  if (Array.isArray(v)) return v.map(showRequest)
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, showRequest(x)]))
  return v
}
