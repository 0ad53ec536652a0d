// The v2 store in the backend's `v2store` bucket. etcd keeps its v2 store in memory and gets it back from
// raft snapshots and its log; etcdlite writes what each operation changed (see StoreChanges), so a write
// costs the nodes and events it touched, never the whole store:
//   "/<path>"        a node (every node but the root): JSON {d?, c, m, e?, v?}
//   "i"              the store index, u64
//   "s"              the write statistics (stats.ts), JSON
//   "e" + u64 index  an event of the history (at most 1000), JSON
// Opening reads the bucket once and rebuilds the tree, the TTL heap and the history.
import type { Backend } from '../../../backend/backend.js'
import { readU64, u64 } from '../../../backend/meta-u64.js'
import { bstrBytes } from '../../../pkg/bstr.js'
import { split } from '../../../pkg/go-path.js'
import type { V2Event, Action } from './event.js'
import type { NodeExtern } from './node-extern.js'
import { V2Node, walk } from './node.js'
import { WRITE_STAT_FIELDS, type StatField } from './stats.js'
import { StoreError, type V2Store } from './store.js'

/** What writes changed since the last takeChanges(), for persisting. */
export interface StoreChanges {
  /** Nodes written (by path), or null for a path whose node was removed. */
  readonly nodes: Map<string, V2Node | null>
  /** Events recorded in the history, in order. */
  readonly events: V2Event[]
  /** Indexes of events the history dropped. */
  readonly dropped: number[]
}

const INDEX_KEY = Buffer.from('i')
const STATS_KEY = Buffer.from('s')
const EVENT_PREFIX = 0x65 /* e */
const NODE_PREFIX = 0x2f /* / */

/** Bucket entries read per scan while loading. */
const LOAD_PAGE = 1000

interface NodeRecord {
  readonly d?: 1
  readonly c: number
  readonly m: number
  /** Expiry, Unix nanoseconds, decimal. */
  readonly e?: string
  readonly v?: string
}

interface ExternRecord {
  readonly k: string
  readonly v?: string
  readonly d?: 1
  readonly e?: string
  readonly t?: number
  readonly m: number
  readonly c: number
}

interface EventRecord {
  readonly a: Action
  readonly n?: ExternRecord
  readonly p?: ExternRecord
  readonly i: number
  readonly r?: 1
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8')
const parse = <T>(b: Uint8Array): T => JSON.parse(Buffer.from(b).toString('utf8')) as T

const eventKey = (index: number): Buffer => Buffer.concat([Buffer.of(EVENT_PREFIX), u64(BigInt(index))])

function externRecord(n: NodeExtern): ExternRecord {
  return {
    k: n.key,
    ...(n.value === undefined ? {} : { v: n.value }),
    ...(n.dir ? { d: 1 as const } : {}),
    ...(n.expiration === undefined ? {} : { e: n.expiration.toString() }),
    ...(n.ttl === 0 ? {} : { t: n.ttl }),
    m: n.modifiedIndex,
    c: n.createdIndex,
  }
}

function externOf(r: ExternRecord): NodeExtern {
  return {
    key: r.k, value: r.v, dir: r.d === 1, expiration: r.e === undefined ? undefined : BigInt(r.e), ttl: r.t ?? 0,
    nodes: undefined, modifiedIndex: r.m, createdIndex: r.c,
  }
}

/** Buffer into the backend what the store's last operations changed, with its index and statistics. */
export function persistChanges(backend: Backend, store: V2Store, changes: StoreChanges): void {
  for (const [path, n] of changes.nodes) {
    if (path === '/') continue
    if (n === null) {
      backend.del('v2store', bstrBytes(path))
      continue
    }
    const r: NodeRecord = {
      ...(n.isDir() ? { d: 1 as const } : {}),
      c: n.createdIndex,
      m: n.modifiedIndex,
      ...(n.expireTime === undefined ? {} : { e: n.expireTime.toString() }),
      ...(n.isDir() ? {} : { v: n.value }),
    }
    backend.put('v2store', bstrBytes(path), json(r))
  }
  for (const e of changes.events) {
    const r: EventRecord = {
      a: e.action,
      ...(e.node === undefined ? {} : { n: externRecord(e.node) }),
      ...(e.prevNode === undefined ? {} : { p: externRecord(e.prevNode) }),
      i: e.etcdIndex,
      ...(e.refresh ? { r: 1 as const } : {}),
    }
    backend.put('v2store', eventKey(e.node?.modifiedIndex ?? 0), json(r))
  }
  for (const index of changes.dropped) backend.del('v2store', eventKey(index))
  backend.put('v2store', INDEX_KEY, u64(BigInt(store.currentIndex)))
  backend.put('v2store', STATS_KEY, json(Object.fromEntries(WRITE_STAT_FIELDS.map((f) => [f, store.stats.get(f)]))))
}

/** Attach a persisted node under its parent (parents come first: a path sorts before its children). */
function restoreNode(store: V2Store, path: string, r: NodeRecord, expireTime: bigint | undefined): void {
  const parent = walk(store.root, split(path)[0], (p, name) => {
    const c = p.children?.get(name)
    if (c === undefined) throw new StoreError(`v2 store: no parent directory for ${path}`)
    return c
  })
  const name = split(path)[1]
  const existing = parent.children?.get(name)
  const n = existing ?? (r.d === 1 ? V2Node.dir(store, path, r.c, parent, expireTime) : V2Node.kv(store, path, r.v ?? '', r.c, parent, expireTime))
  n.createdIndex = r.c
  n.modifiedIndex = r.m
  if (existing === undefined) parent.children?.set(name, n)
  if (expireTime !== undefined && existing === undefined) store.ttlKeyHeap.push(n)
}

/**
 * Rebuild `store` (a fresh one, with its namespaces) from the bucket. Resolves with false when the bucket is
 * empty: the v2 store was never written here.
 */
export async function loadStore(backend: Backend, store: V2Store): Promise<boolean> {
  let found = false
  let gte: Uint8Array = new Uint8Array(0)
  const end = Uint8Array.of(0xff)
  for (;;) {
    const page = await backend.scan('v2store', gte, end, LOAD_PAGE)
    for (const { key, value } of page) {
      found = true
      const k = Buffer.from(key)
      if (k[0] === NODE_PREFIX) {
        const r = parse<NodeRecord>(value)
        restoreNode(store, k.toString('latin1'), r, r.e === undefined ? undefined : BigInt(r.e))
      } else if (k[0] === EVENT_PREFIX) {
        const r = parse<EventRecord>(value)
        const e: V2Event = {
          action: r.a, node: r.n === undefined ? undefined : externOf(r.n), prevNode: r.p === undefined ? undefined : externOf(r.p),
          etcdIndex: r.i, refresh: r.r === 1,
        }
        store.watcherHub.add(e)
      } else if (k.equals(INDEX_KEY)) {
        store.currentIndex = Number(readU64(value) ?? 0n)
      } else if (k.equals(STATS_KEY)) {
        const stats = parse<Partial<Record<StatField, number>>>(value)
        for (const f of WRITE_STAT_FIELDS) store.stats.set(f, stats[f] ?? 0)
      } else {
        throw new StoreError(`v2 store: unknown record ${k.toString('hex')}`)
      }
    }
    if (page.length < LOAD_PAGE) break
    const last = page[page.length - 1]?.key ?? new Uint8Array(0)
    gte = Buffer.concat([Buffer.from(last), Buffer.of(0)])
  }
  store.takeChanges()
  return found
}
