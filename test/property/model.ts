// A naive oracle of etcd's KV semantics for property tests: it keeps every change ever made in one flat
// list and answers every question by scanning that list. No key index, no generations, no compaction of
// data (compaction only moves the readable floor), so it shares no code or structure with src/mvcc.
//
// Semantics written from etcd 3.4 (v3rpc/key.go checks, etcdserver/apply.go, mvcc/kvstore_txn.go):
// - a fresh store is at revision 1 and has compacted revision -1 (nothing compacted);
// - every write request (or write txn) that changes something takes the next main revision; its changes
//   are numbered sub = 0, 1, 2…; one that changes nothing takes no revision;
// - Range at rev <= 0 reads the current revision; rev > current is FUTURE_REV; rev < compacted is COMPACTED;
// - response headers carry the current revision (not the requested one); txn-inner headers are etcd's:
//   range = the view's revision, put = beginRev + 1, delete = beginRev (+1 once the txn has changes),
//   nested txn = 0.
import type { ErrorCode } from '../../src/pkg/errors.js'
import type { ResponseHeader } from '../../src/etcdserver/types/header.js'
import type {
  CompactionRequest, Compare, DeleteRangeRequest, DeleteRangeResponse, KeyValue, PutRequest, PutResponse,
  RangeRequest, RangeResponse, RequestOp, ResponseOp, TxnRequest, TxnResponse,
} from '../../src/etcdserver/types/kv.js'

/** A failure the model predicts, by etcd error code. */
export class ModelError extends Error {
  constructor(readonly code: ErrorCode) {
    super(code)
    this.name = 'ModelError'
  }
}

/** One change in the log. */
interface Change {
  readonly key: string // latin1 form of the key bytes (order-preserving)
  readonly main: number
  readonly sub: number
  readonly kind: 'put' | 'delete'
  readonly kv: KeyValue | undefined // for puts
}

const EMPTY = new Uint8Array(0)
const l1 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1')
const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))
const hdr = (revision: number): ResponseHeader => ({ clusterId: 0n, memberId: 0n, revision, raftTerm: 0 })

/** Byte order of latin1 strings: plain `<` on UTF-16 code units equals byte order for latin1. */
const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

function cmpBytes(a: Uint8Array, b: Uint8Array): number {
  return cmpStr(l1(a), l1(b))
}

/**
 * Does `key` fall in the request's range? rangeEnd absent/empty: exactly `key`; rangeEnd "\0": every key
 * >= key; otherwise [key, rangeEnd) (empty when rangeEnd <= key).
 */
function inRange(k: string, key: Uint8Array, rangeEnd: Uint8Array | undefined): boolean {
  const start = l1(key)
  if (rangeEnd === undefined || rangeEnd.length === 0) return k === start
  if (rangeEnd.length === 1 && rangeEnd[0] === 0) return k >= start
  return k >= start && k < l1(rangeEnd)
}

interface WriteTxn {
  readonly beginRev: number
  readonly changes: Change[]
}

export class KvModel {
  private readonly log: Change[] = []
  private current = 1
  private compacted = -1
  constructor(private readonly maxTxnOps = 128) {}

  rev(): number {
    return this.current
  }

  compactRev(): number {
    return this.compacted
  }

  /** Live key -> kv at revision `rev`, also seeing the uncommitted changes of `wt` when given. */
  private stateAt(rev: number, wt?: WriteTxn): Map<string, KeyValue> {
    const state = new Map<string, KeyValue>()
    const all = wt === undefined ? this.log : [...this.log, ...wt.changes]
    for (const c of all) {
      if (c.main > rev) continue
      if (c.kind === 'put' && c.kv !== undefined) state.set(c.key, c.kv)
      else state.delete(c.key)
    }
    return state
  }

  /** The revision a read inside `wt` sees (etcd: beginRev, or beginRev+1 once the txn has changes). */
  private viewRev(wt?: WriteTxn): number {
    if (wt === undefined) return this.current
    return wt.changes.length > 0 ? wt.beginRev + 1 : wt.beginRev
  }

  /** Keys in range at `rev`, ascending. */
  private select(key: Uint8Array, rangeEnd: Uint8Array | undefined, rev: number, wt?: WriteTxn): KeyValue[] {
    const out: [string, KeyValue][] = []
    for (const [k, kv] of this.stateAt(rev, wt)) if (inRange(k, key, rangeEnd)) out.push([k, kv])
    out.sort((a, b) => cmpStr(a[0], b[0]))
    return out.map(([, kv]) => kv)
  }

  // Range

  range(r: RangeRequest): RangeResponse {
    if (r.key.length === 0) throw new ModelError('EMPTY_KEY')
    return this.doRange(r)
  }

  private doRange(r: RangeRequest, wt?: WriteTxn): RangeResponse {
    const viewRev = this.viewRev(wt)
    let rev = r.revision ?? 0
    if (rev > viewRev) throw new ModelError('FUTURE_REV')
    if (rev <= 0) rev = viewRev
    if (rev < this.compacted) throw new ModelError('COMPACTED')
    const all = this.select(r.key, r.rangeEnd, rev, wt)
    const count = all.length
    if (r.countOnly === true) return { header: hdr(viewRev), kvs: [], more: false, count }
    const { minModRevision: minMod = 0, maxModRevision: maxMod = 0, minCreateRevision: minC = 0, maxCreateRevision: maxC = 0 } = r
    const limit = r.limit ?? 0
    // etcd quirk: only an explicit sort order or a filter makes it fetch everything before sorting; with
    // order NONE and a non-KEY target it fetches the first limit+1 keys (key order), then sorts just those.
    const fetchAll = (r.sortOrder ?? 'NONE') !== 'NONE' || minMod !== 0 || maxMod !== 0 || minC !== 0 || maxC !== 0
    let kvs = !fetchAll && limit > 0 ? all.slice(0, limit + 1) : all
    if (maxMod !== 0) kvs = kvs.filter((kv) => kv.modRevision <= maxMod)
    if (minMod !== 0) kvs = kvs.filter((kv) => kv.modRevision >= minMod)
    if (maxC !== 0) kvs = kvs.filter((kv) => kv.createRevision <= maxC)
    if (minC !== 0) kvs = kvs.filter((kv) => kv.createRevision >= minC)
    const target = r.sortTarget ?? 'KEY'
    let order = r.sortOrder ?? 'NONE'
    if (target !== 'KEY' && order === 'NONE') order = 'ASCEND'
    if (order !== 'NONE') {
      const field = (kv: KeyValue): number | Uint8Array =>
        target === 'KEY' ? kv.key : target === 'VERSION' ? kv.version : target === 'CREATE' ? kv.createRevision : target === 'MOD' ? kv.modRevision : kv.value
      const cmp = (a: KeyValue, b: KeyValue): number => {
        const x = field(a)
        const y = field(b)
        return typeof x === 'number' && typeof y === 'number' ? x - y : cmpBytes(x as Uint8Array, y as Uint8Array)
      }
      // Stable: ties keep ascending key order in both directions (as Go's insertion sort for <= 12 kvs).
      kvs = [...kvs].sort(order === 'ASCEND' ? cmp : (a, b) => cmp(b, a))
    }
    let more = false
    if (limit > 0 && kvs.length > limit) {
      kvs = kvs.slice(0, limit)
      more = true
    }
    if (r.keysOnly === true) kvs = kvs.map((kv) => ({ ...kv, value: EMPTY }))
    return { header: hdr(viewRev), kvs, more, count }
  }

  // Put / DeleteRange

  private checkPutRequest(p: PutRequest): void {
    if (p.key.length === 0) throw new ModelError('EMPTY_KEY')
    if (p.ignoreValue === true && (p.value?.length ?? 0) > 0) throw new ModelError('VALUE_PROVIDED')
    if (p.ignoreLease === true && (p.lease ?? 0n) !== 0n) throw new ModelError('LEASE_PROVIDED')
  }

  put(p: PutRequest): PutResponse {
    this.checkPutRequest(p)
    // No lease is ever granted in these tests: any lease ID is unknown.
    if ((p.lease ?? 0n) !== 0n) throw new ModelError('LEASE_NOT_FOUND')
    const wt: WriteTxn = { beginRev: this.current, changes: [] }
    const resp = this.doPut(p, wt)
    this.commit(wt)
    return { ...resp, header: hdr(this.current) }
  }

  private doPut(p: PutRequest, wt: WriteTxn): PutResponse {
    const k = l1(p.key)
    const prev = this.stateAt(Infinity, wt).get(k)
    if ((p.ignoreValue === true || p.ignoreLease === true) && prev === undefined) throw new ModelError('KEY_NOT_FOUND')
    const rev = wt.beginRev + 1
    const kv: KeyValue = {
      key: bytes(k),
      createRevision: prev === undefined ? rev : prev.createRevision,
      modRevision: rev,
      version: prev === undefined ? 1 : prev.version + 1,
      value: p.ignoreValue === true && prev !== undefined ? prev.value : (p.value ?? EMPTY),
      lease: p.ignoreLease === true && prev !== undefined ? prev.lease : (p.lease ?? 0n),
    }
    wt.changes.push({ key: k, main: rev, sub: wt.changes.length, kind: 'put', kv })
    const resp: PutResponse = { header: hdr(rev) }
    return p.prevKv === true && prev !== undefined ? { ...resp, prevKv: prev } : resp
  }

  deleteRange(d: DeleteRangeRequest): DeleteRangeResponse {
    if (d.key.length === 0) throw new ModelError('EMPTY_KEY')
    const wt: WriteTxn = { beginRev: this.current, changes: [] }
    const resp = this.doDelete(d, wt)
    this.commit(wt)
    return { ...resp, header: hdr(this.current) }
  }

  private doDelete(d: DeleteRangeRequest, wt: WriteTxn): DeleteRangeResponse {
    const victims = this.select(d.key, d.rangeEnd, Infinity, wt)
    for (const kv of victims) {
      wt.changes.push({ key: l1(kv.key), main: wt.beginRev + 1, sub: wt.changes.length, kind: 'delete', kv: undefined })
    }
    return {
      header: hdr(wt.changes.length > 0 ? wt.beginRev + 1 : wt.beginRev),
      deleted: victims.length,
      prevKvs: d.prevKv === true ? victims : [],
    }
  }

  private commit(wt: WriteTxn): void {
    if (wt.changes.length === 0) return
    this.log.push(...wt.changes)
    this.current = wt.beginRev + 1
  }

  // Txn

  txn(t: TxnRequest): TxnResponse {
    this.checkTxnRequest(t, this.maxTxnOps)
    this.checkIntervals(t.success ?? [])
    this.checkIntervals(t.failure ?? [])
    // Every compare of every level on the taken path is evaluated before anything runs.
    const path = this.path(t)
    const write = !this.readOnly(t)
    if (write) this.walkPath(t, path, (op) => { if (op.type === 'put') this.checkTxnPut(op.request) })
    this.walkPath(t, path, (op) => {
      if (op.type !== 'range') return
      const rev = op.request.revision ?? 0
      if (rev === 0) return
      if (rev > this.current) throw new ModelError('FUTURE_REV')
      if (rev < this.compacted) throw new ModelError('COMPACTED')
    })
    const wt: WriteTxn = { beginRev: this.current, changes: [] }
    const cursor = { i: 0 }
    const resp = this.runTxn(t, path, cursor, wt)
    this.commit(wt)
    return { ...resp, header: hdr(this.current) }
  }

  private checkTxnRequest(t: TxnRequest, max: number): void {
    const compare = t.compare ?? []
    const success = t.success ?? []
    const failure = t.failure ?? []
    const opc = Math.max(compare.length, success.length, failure.length)
    if (opc > max) throw new ModelError('TOO_MANY_OPS')
    for (const c of compare) if (c.key.length === 0) throw new ModelError('EMPTY_KEY')
    for (const op of [...success, ...failure]) {
      switch (op.type) {
        case 'range': if (op.request.key.length === 0) throw new ModelError('EMPTY_KEY'); break
        case 'put': this.checkPutRequest(op.request); break
        case 'deleteRange': if (op.request.key.length === 0) throw new ModelError('EMPTY_KEY'); break
        case 'txn': this.checkTxnRequest(op.request, max - opc); break
        case 'empty': throw new ModelError('KEY_NOT_FOUND')
      }
    }
  }

  /**
   * etcd's duplicate-key rule, per level: a put may not hit a key put elsewhere on the level or in a child
   * txn (a child's then and else branches may share keys), nor a key inside a delete of the level or of a
   * child processed earlier. Delete intervals are taken literally: [key, rangeEnd), or the point key.
   */
  private checkIntervals(ops: readonly RequestOp[]): { puts: Set<string>; dels: [string, string][] } {
    const dels: [string, string][] = []
    const hit = (k: string): boolean => dels.some(([s, e]) => s <= k && k < e)
    for (const op of ops) {
      if (op.type !== 'deleteRange') continue
      const { key, rangeEnd } = op.request
      dels.push(rangeEnd !== undefined && rangeEnd.length > 0 ? [l1(key), l1(rangeEnd)] : [l1(key), l1(key) + '\x00'])
    }
    const puts = new Set<string>()
    for (const op of ops) {
      if (op.type !== 'txn') continue
      const a = this.checkIntervals(op.request.success ?? [])
      const b = this.checkIntervals(op.request.failure ?? [])
      for (const k of a.puts) {
        if (puts.has(k) || hit(k)) throw new ModelError('DUPLICATE_KEY')
        puts.add(k)
      }
      for (const k of b.puts) {
        if ((puts.has(k) && !a.puts.has(k)) || hit(k)) throw new ModelError('DUPLICATE_KEY')
        puts.add(k)
      }
      dels.push(...a.dels, ...b.dels)
    }
    for (const op of ops) {
      if (op.type !== 'put') continue
      const k = l1(op.request.key)
      if (puts.has(k) || hit(k)) throw new ModelError('DUPLICATE_KEY')
      puts.add(k)
    }
    return { puts, dels }
  }

  private checkTxnPut(p: PutRequest): void {
    if ((p.ignoreValue === true || p.ignoreLease === true) && !this.stateAt(this.current).has(l1(p.key))) throw new ModelError('KEY_NOT_FOUND')
    if ((p.lease ?? 0n) !== 0n) throw new ModelError('LEASE_NOT_FOUND')
  }

  private readOnly(t: TxnRequest): boolean {
    return [...(t.success ?? []), ...(t.failure ?? [])].every((op) => op.type === 'range' || op.type === 'empty' || (op.type === 'txn' && this.readOnly(op.request)))
  }

  /** Outcome of each level's compares, in pre-order of the taken branches, all at the current revision. */
  private path(t: TxnRequest): boolean[] {
    const ok = (t.compare ?? []).every((c) => this.compare(c))
    const out = [ok]
    for (const op of (ok ? t.success : t.failure) ?? []) if (op.type === 'txn') out.push(...this.path(op.request))
    return out
  }

  private walkPath(t: TxnRequest, path: boolean[], f: (op: RequestOp) => void, cursor = { i: 0 }): void {
    const ok = path[cursor.i++] === true
    for (const op of (ok ? t.success : t.failure) ?? []) {
      if (op.type === 'txn') this.walkPath(op.request, path, f, cursor)
      else f(op)
    }
  }

  private compare(c: Compare): boolean {
    const kvs = this.select(c.key, c.rangeEnd, this.current)
    if (kvs.length === 0) return c.target === 'VALUE' ? false : this.compareOne(c, undefined)
    return kvs.every((kv) => this.compareOne(c, kv))
  }

  private compareOne(c: Compare, kv: KeyValue | undefined): boolean {
    let d: number
    switch (c.target) {
      case 'VERSION': d = (kv?.version ?? 0) - (c.version ?? 0); break
      case 'CREATE': d = (kv?.createRevision ?? 0) - (c.createRevision ?? 0); break
      case 'MOD': d = (kv?.modRevision ?? 0) - (c.modRevision ?? 0); break
      case 'VALUE': d = cmpBytes(kv?.value ?? EMPTY, c.value ?? EMPTY); break
      case 'LEASE': {
        const x = kv?.lease ?? 0n
        const y = c.lease ?? 0n
        d = x < y ? -1 : x > y ? 1 : 0
        break
      }
      case 'UNKNOWN': d = 0; break
    }
    switch (c.result) {
      case 'EQUAL': return d === 0
      case 'NOT_EQUAL': return d !== 0
      case 'GREATER': return d > 0
      case 'LESS': return d < 0
      case 'UNKNOWN': return true
    }
  }

  private runTxn(t: TxnRequest, path: boolean[], cursor: { i: number }, wt: WriteTxn): TxnResponse {
    const ok = path[cursor.i++] === true
    const responses: ResponseOp[] = []
    for (const op of (ok ? t.success : t.failure) ?? []) {
      switch (op.type) {
        case 'range': responses.push({ type: 'range', response: this.doRange(op.request, wt) }); break
        case 'put': responses.push({ type: 'put', response: this.doPut(op.request, wt) }); break
        case 'deleteRange': responses.push({ type: 'deleteRange', response: this.doDelete(op.request, wt) }); break
        case 'txn': responses.push({ type: 'txn', response: this.runTxn(op.request, path, cursor, wt) }); break
        case 'empty': responses.push({ type: 'empty' }); break
      }
    }
    return { header: hdr(0), succeeded: ok, responses }
  }

  // Compaction

  compact(r: CompactionRequest): { header: ResponseHeader } {
    if (r.revision <= this.compacted) throw new ModelError('COMPACTED')
    if (r.revision > this.current) throw new ModelError('FUTURE_REV')
    this.compacted = r.revision
    return { header: hdr(this.current) }
  }
}
