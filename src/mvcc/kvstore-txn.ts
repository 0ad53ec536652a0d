// Mirrors etcd mvcc/kvstore_txn.go: storeTxnRead / storeTxnWrite.
import type { RangeEnd } from '../pkg/bytes.js'
import { invariant } from '../pkg/verify.js'
import { CompactedError, FutureRevError } from './errors.js'
import type { Change, KeyValue, RangeOptions, RangeResult, TxnRead, TxnWrite } from './kv.js'
import type { KvStore } from './kvstore.js'
import { decodeKeyValue, encodeKeyValue } from '../wire/keyvalue.js'
import { revToBytes, type Revision } from './revision.js'

const EMPTY: Uint8Array = new Uint8Array(0)

/** A read view pinned at one revision (reads are synchronous, so pinning needs no lock). */
export class StoreTxnRead implements TxnRead {
  protected readonly s: KvStore
  private readonly first: number
  private readonly at: number
  private ops = 0

  constructor(s: KvStore, firstRev: number, rev: number) {
    this.s = s
    this.first = firstRev
    this.at = rev
  }

  firstRev(): number {
    return this.first
  }

  rev(): number {
    return this.at
  }

  range(key: Uint8Array, end: RangeEnd, ro: RangeOptions = {}): RangeResult {
    this.ops++
    this.s.metrics.range++
    return rangeKeys(this.s, key, end, this.at, ro)
  }

  endOps(): void {
    if (this.ops > 1) this.s.metrics.txn++
    this.ops = 0
  }
}

/** etcd's rangeKeys: resolve revisions in the index, then point-read each value from the backend. */
function rangeKeys(s: KvStore, key: Uint8Array, end: RangeEnd, curRev: number, ro: RangeOptions): RangeResult {
  let rev = ro.rev ?? 0
  if (rev > curRev) throw new FutureRevError()
  if (rev <= 0) rev = curRev
  if (rev < s.compactRev()) throw new CompactedError()
  if (ro.count === true) return { kvs: [], rev: curRev, count: s.index.count(key, end, rev) }
  const limit = ro.limit ?? 0
  const kvs: KeyValue[] = []
  let count = 0
  s.index.visitAt(key, end, rev, (at) => {
    count++
    if (limit <= 0 || kvs.length < limit) kvs.push(s.readRevision(at.modified))
  })
  return { kvs, rev: curRev, count }
}

/** A write txn: every put/delete lands at (beginRev+1, sub) in the index and the backend buffer at once. */
export class StoreTxnWrite implements TxnWrite {
  private readonly s: KvStore
  private readonly beginRev: number
  private readonly changeList: Change[] = []
  private ended = false
  private ops = 0

  constructor(s: KvStore, beginRev: number) {
    this.s = s
    this.beginRev = beginRev
  }

  firstRev(): number {
    return this.s.compactRev()
  }

  rev(): number {
    return this.beginRev
  }

  changes(): readonly Change[] {
    return this.changeList
  }

  /** Reads see this txn's own writes (etcd reads at beginRev+1 once there are changes). */
  range(key: Uint8Array, end: RangeEnd, ro: RangeOptions = {}): RangeResult {
    const rev = this.changeList.length > 0 ? this.beginRev + 1 : this.beginRev
    this.ops++
    this.s.metrics.range++
    return rangeKeys(this.s, key, end, rev, ro)
  }

  put(key: Uint8Array, value: Uint8Array, lease: bigint): number {
    invariant(!this.ended, 'put after end')
    this.ops++
    this.s.metrics.put++
    this.s.metrics.putSize += key.length + value.length
    const rev = this.beginRev + 1
    const prev = this.s.index.get(key, rev)
    const idxRev: Revision = { main: rev, sub: this.changeList.length }
    // The change outlives the call (watch events, and the watchable store's recent events for up to 8 MiB of
    // them), so it gets its own copy of the key and value, one buffer for both. The caller's may be views
    // into a larger buffer it reuses: grpc-js hands a request over in a buffer from Node's shared 8 KiB
    // Buffer pool, which a kept event would pin whole. Pinned pool buffers reach V8's old space in bulk
    // under watch load, and the mark-compacts that follow stall event delivery far more than this copy costs.
    const own = new Uint8Array(key.length + value.length)
    own.set(key, 0)
    own.set(value, key.length)
    const kv: KeyValue = {
      key: own.subarray(0, key.length),
      value: own.subarray(key.length),
      createRevision: prev === undefined ? rev : prev.created.main,
      modRevision: rev,
      version: (prev?.version ?? 0) + 1,
      lease,
    }
    this.s.backend.put('key', revToBytes(idxRev), encodeKeyValue(kv))
    this.s.index.put(key, idxRev)
    const le = this.s.leases
    if (le !== undefined && (lease !== 0n || le.attachedKeys > 0)) {
      const old = le.leaseOf(key)
      if (old !== lease) {
        if (old !== 0n) le.detach(old, key)
        if (lease !== 0n) le.attach(lease, key)
      }
    }
    this.changeList.push({ type: 'put', kv })
    return rev
  }

  deleteRange(key: Uint8Array, end: RangeEnd): { deleted: number; rev: number } {
    invariant(!this.ended, 'deleteRange after end')
    this.ops++
    this.s.metrics.delete++
    const rrev = this.changeList.length > 0 ? this.beginRev + 1 : this.beginRev
    const keys = this.s.index.range(key, end, rrev)
    for (const k of keys) this.delete(k.key)
    if (keys.length !== 0 || this.changeList.length > 0) return { deleted: keys.length, rev: this.beginRev + 1 }
    return { deleted: 0, rev: this.beginRev }
  }

  end(): number {
    invariant(!this.ended, 'end called twice')
    this.ended = true
    this.endOps()
    return this.s.endWrite(this.changeList)
  }

  endOps(): void {
    if (this.ops > 1) this.s.metrics.txn++
    this.ops = 0
  }

  private delete(key: Uint8Array): void {
    const idxRev: Revision = { main: this.beginRev + 1, sub: this.changeList.length }
    const kv: KeyValue = { key, value: EMPTY, createRevision: 0, modRevision: 0, version: 0, lease: 0n }
    this.s.backend.put('key', revToBytes(idxRev, true), encodeKeyValue(kv))
    this.s.index.tombstone(key, idxRev)
    const le = this.s.leases
    if (le !== undefined && le.attachedKeys > 0) {
      const old = le.leaseOf(key)
      if (old !== 0n) le.detach(old, key)
    }
    this.changeList.push({ type: 'delete', kv })
  }
}

/** Decode the value stored at a revision; a missing one is a broken invariant (etcd panics). */
export function decodeStored(raw: Uint8Array | undefined, rev: Revision): KeyValue {
  invariant(raw !== undefined, `range cannot find rev (${rev.main},${rev.sub})`)
  return decodeKeyValue(raw)
}
