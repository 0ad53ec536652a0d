// etcd's v2 store (server/etcdserver/api/v2store/store.go, 3.5.17): a tree of nodes under "/" whose every
// write takes the next store index and is recorded as an event (history for waitIndex watches, and live
// notification of watchers). Operations, errors, indexes and statistics follow etcd's exactly, including
// its quirks: failed compare-and-deletes and writes to read-only paths count as successes, a stream watcher
// hears the deletion of its own key twice, and (3.5) a value-less update of a directory fails.
//
// Synchronous, as etcd's applier is: every change to nodes, events, the index and the statistics is
// collected for the caller (takeChanges) to persist, so nothing here touches storage.
import { clean, join, split } from '../../../pkg/go-path.js'
import {
  EcodeKeyNotFound, EcodeNodeExist, EcodeNotDir, EcodeNotFile, EcodeRootROnly, EcodeTestFailed, V2Error,
} from '../v2error/error.js'
import { newEvent, type Action, type V2Event } from './event.js'
import type { NodeExtern } from './node-extern.js'
import { sortNodeExterns } from './node-extern.js'
import { compareFailCause, V2Node, walk, type NodeStore } from './node.js'
import type { StoreChanges } from './persist.js'
import { Stats } from './stats.js'
import { TtlKeyHeap } from './ttl-key-heap.js'
import type { Watcher } from './watcher.js'
import { WatcherHub } from './watcher-hub.js'

/** Events the history keeps (etcd's watcher hub capacity). */
export const HISTORY_CAPACITY = 1000

/** 2000-01-01T00:00:00Z: an expiry before it means none (clients that serialize a zero time send such). */
const MIN_EXPIRE_TIME = 946_684_800_000_000_000n

/** A write's expiry (undefined: permanent) and whether it only refreshes the TTL. */
export interface TtlOptionSet {
  readonly expireTime: bigint | undefined
  readonly refresh: boolean
}

/** A store operation failed in a way etcd reports as a plain Go error (a Raft Internal Error to clients). */
export class StoreError extends Error {
  override name = 'StoreError'
}

const emptyChanges = (): StoreChanges => ({ nodes: new Map(), events: [], dropped: [] })

export class V2Store implements NodeStore {
  readonly root: V2Node
  readonly watcherHub = new WatcherHub(HISTORY_CAPACITY)
  readonly stats = new Stats()
  readonly ttlKeyHeap = new TtlKeyHeap<V2Node>()
  currentIndex = 0
  private readonly readonly: ReadonlySet<string>
  /** Wall-clock time in Unix nanoseconds (TTLs are computed against it). */
  private readonly now: () => bigint
  private changes = emptyChanges()

  /** A store whose root holds the given namespaces, which, like the root, cannot be written (etcd's New). */
  constructor(now: () => bigint, namespaces: readonly string[]) {
    this.now = now
    this.root = V2Node.dir(this, '/', 0, undefined, undefined)
    for (const ns of namespaces) this.root.add(V2Node.dir(this, ns, 0, this.root, undefined))
    this.readonly = new Set([...namespaces, '/'])
  }

  noteWritten(n: V2Node): void {
    this.changes.nodes.set(n.path, n)
  }

  noteRemoved(n: V2Node): void {
    this.changes.nodes.set(n.path, null)
  }

  /** Everything written since the last call. */
  takeChanges(): StoreChanges {
    const c = this.changes
    this.changes = emptyChanges()
    return c
  }

  /** Whether any node has a TTL (etcd only syncs expiry while one does). */
  hasTtlKeys(): boolean {
    return this.ttlKeyHeap.length !== 0
  }

  /** /v2/stats/store. */
  jsonStats(): string {
    return this.stats.toJson(this.watcherHub.count)
  }

  /** The node at `nodePath` (a directory with its children, recursively or not, sorted or not). */
  get(nodePath: string, recursive: boolean, sorted: boolean): V2Event {
    return this.stats.counted('getsSuccess', 'getsFail', () => {
      const n = this.internalGet(nodePath)
      const e = newEvent('get', nodePath, n.modifiedIndex, n.createdIndex)
      e.etcdIndex = this.currentIndex
      if (e.node !== undefined) this.loadInternalNode(e.node, n, recursive, sorted)
      return e
    })
  }

  /** Create a node; fails if it exists. `unique` appends the next index, zero-padded, as its name (POST). */
  create(nodePath: string, dir: boolean, value: string, unique: boolean, expireOpts: TtlOptionSet): V2Event {
    return this.stats.counted('createSuccess', 'createFail', () => {
      const e = this.internalCreate(nodePath, dir, value, unique, false, expireOpts.expireTime, 'create')
      e.etcdIndex = this.currentIndex
      this.notify(e)
      return e
    })
  }

  /** Create or replace a node (not a directory); `refresh` only moves the expiry of an existing node. */
  set(nodePath: string, dir: boolean, value: string, expireOpts: TtlOptionSet): V2Event {
    return this.stats.counted('setsSuccess', 'setsFail', () => {
      let n: V2Node | undefined
      let getErr: V2Error | undefined
      try {
        n = this.internalGet(nodePath)
      } catch (err) {
        if (!(err instanceof V2Error)) throw err
        getErr = err
      }
      if (getErr !== undefined && getErr.errorCode !== EcodeKeyNotFound) throw getErr
      if (expireOpts.refresh) {
        if (getErr !== undefined || n === undefined) throw getErr ?? new StoreError('refresh without a node')
        value = n.value
      }
      const e = this.internalCreate(nodePath, dir, value, false, true, expireOpts.expireTime, 'set')
      e.etcdIndex = this.currentIndex
      if (n !== undefined) {
        const prev = newEvent('get', nodePath, n.modifiedIndex, n.createdIndex)
        if (prev.node !== undefined) this.loadInternalNode(prev.node, n, false, false)
        e.prevNode = prev.node
      }
      this.record(e, expireOpts.refresh)
      return e
    })
  }

  compareAndSwap(nodePath: string, prevValue: string, prevIndex: bigint, value: string, expireOpts: TtlOptionSet): V2Event {
    return this.stats.counted('compareAndSwapSuccess', 'compareAndSwapFail', (fail) => {
      nodePath = clean(join('/', nodePath))
      // etcd returns this error without setting its deferred error: it counts as a success.
      if (this.readonly.has(nodePath)) throw fail.not(new V2Error(EcodeRootROnly, '/', this.currentIndex))
      const n = this.internalGet(nodePath)
      if (n.isDir()) throw new V2Error(EcodeNotFile, nodePath, this.currentIndex)
      const [ok, which] = n.compare(prevValue, prevIndex)
      if (!ok) throw new V2Error(EcodeTestFailed, compareFailCause(n, which, prevValue, prevIndex), this.currentIndex)
      if (expireOpts.refresh) value = n.value
      this.currentIndex++
      const e = newEvent('compareAndSwap', nodePath, this.currentIndex, n.createdIndex)
      e.etcdIndex = this.currentIndex
      e.prevNode = n.repr(false, false, this.now())
      const werr = n.write(value, this.currentIndex)
      if (werr !== undefined) throw werr
      n.updateTtl(expireOpts.expireTime)
      if (e.node !== undefined) {
        e.node.value = value
        ;[e.node.expiration, e.node.ttl] = n.expirationAndTtl(this.now())
      }
      this.record(e, expireOpts.refresh)
      return e
    })
  }

  /** Delete a node: a directory needs `dir`, a non-empty one `recursive` (which implies `dir`). */
  delete(nodePath: string, dir: boolean, recursive: boolean): V2Event {
    return this.stats.counted('deleteSuccess', 'deleteFail', (fail) => {
      nodePath = clean(join('/', nodePath))
      if (this.readonly.has(nodePath)) throw fail.not(new V2Error(EcodeRootROnly, '/', this.currentIndex))
      if (recursive) dir = true
      const n = this.internalGet(nodePath)
      const nextIndex = this.currentIndex + 1
      const e = newEvent('delete', nodePath, nextIndex, n.createdIndex)
      e.etcdIndex = nextIndex
      e.prevNode = n.repr(false, false, this.now())
      if (n.isDir() && e.node !== undefined) e.node.dir = true
      const rerr = n.remove(dir, recursive, (path) => this.watcherHub.notifyWatchers(e, path, true))
      if (rerr !== undefined) throw rerr
      this.currentIndex++
      this.notify(e)
      return e
    })
  }

  compareAndDelete(nodePath: string, prevValue: string, prevIndex: bigint): V2Event {
    return this.stats.counted('compareAndDeleteSuccess', 'compareAndDeleteFail', (fail) => {
      nodePath = clean(join('/', nodePath))
      const n = this.internalGet(nodePath)
      // etcd returns these two errors without setting its deferred error: they count as successes.
      if (n.isDir()) throw fail.not(new V2Error(EcodeNotFile, nodePath, this.currentIndex))
      const [ok, which] = n.compare(prevValue, prevIndex)
      if (!ok) throw fail.not(new V2Error(EcodeTestFailed, compareFailCause(n, which, prevValue, prevIndex), this.currentIndex))
      this.currentIndex++
      const e = newEvent('compareAndDelete', nodePath, this.currentIndex, n.createdIndex)
      e.etcdIndex = this.currentIndex
      e.prevNode = n.repr(false, false, this.now())
      const rerr = n.remove(false, false, (path) => this.watcherHub.notifyWatchers(e, path, true))
      if (rerr !== undefined) throw rerr
      this.notify(e)
      return e
    })
  }

  /** Watch `key` from `sinceIndex` (0: the next index). Throws EventIndexCleared for an index out of the history. */
  watch(key: string, recursive: boolean, stream: boolean, sinceIndex: bigint): Watcher {
    key = clean(join('/', key))
    const since = sinceIndex === 0n ? BigInt(this.currentIndex + 1) : sinceIndex
    const w = this.watcherHub.watch(key, recursive, stream, since, this.currentIndex)
    if (w instanceof V2Error) throw w
    return w
  }

  /** Update a node's value (keys only) and expiry; `refresh` keeps the value. */
  update(nodePath: string, newValue: string, expireOpts: TtlOptionSet): V2Event {
    return this.stats.counted('updateSuccess', 'updateFail', (fail) => {
      nodePath = clean(join('/', nodePath))
      if (this.readonly.has(nodePath)) throw fail.not(new V2Error(EcodeRootROnly, '/', this.currentIndex))
      const currIndex = this.currentIndex
      const nextIndex = currIndex + 1
      const n = this.internalGet(nodePath)
      if (n.isDir() && newValue.length !== 0) throw fail.not(new V2Error(EcodeNotFile, nodePath, currIndex))
      if (expireOpts.refresh) newValue = n.value
      const e = newEvent('update', nodePath, nextIndex, n.createdIndex)
      e.etcdIndex = nextIndex
      e.prevNode = n.repr(false, false, this.now())
      const werr = n.write(newValue, nextIndex)
      // etcd 3.5 wraps this one in a plain error (3.4 ignored it and updated a directory's TTL).
      if (werr !== undefined) throw fail.not(new StoreError(`nodePath ${nodePath} : ${werr.message}`))
      if (e.node !== undefined) {
        if (n.isDir()) e.node.dir = true
        else e.node.value = newValue
      }
      n.updateTtl(expireOpts.expireTime)
      if (e.node !== undefined) [e.node.expiration, e.node.ttl] = n.expirationAndTtl(this.now())
      this.record(e, expireOpts.refresh)
      this.currentIndex = nextIndex
      return e
    })
  }

  /** Remove every node whose expiry is at or before `cutoff`, each as an expire event with its own index. */
  deleteExpiredKeys(cutoff: bigint): void {
    for (;;) {
      const node = this.ttlKeyHeap.top()
      if (node === undefined || (node.expireTime ?? 0n) > cutoff) break
      this.currentIndex++
      const e = newEvent('expire', node.path, this.currentIndex, node.createdIndex)
      e.etcdIndex = this.currentIndex
      e.prevNode = node.repr(false, false, this.now())
      if (node.isDir() && e.node !== undefined) e.node.dir = true
      this.ttlKeyHeap.pop()
      node.remove(true, true, (path) => this.watcherHub.notifyWatchers(e, path, true))
      this.stats.inc('expireCount')
      this.notify(e)
    }
  }

  /** Record an event: a refresh goes into the history unannounced, anything else is announced to watchers. */
  private record(e: V2Event, refresh: boolean): void {
    if (refresh) {
      e.refresh = true
      this.track(e, this.watcherHub.add(e))
    } else {
      this.notify(e)
    }
  }

  private notify(e: V2Event): void {
    this.track(e, this.watcherHub.notify(e))
  }

  private track(e: V2Event, dropped: V2Event | undefined): void {
    this.changes.events.push(e)
    if (dropped !== undefined) this.changes.dropped.push(dropped.node?.modifiedIndex ?? 0)
  }

  private loadInternalNode(e: NodeExtern, n: V2Node, recursive: boolean, sorted: boolean): void {
    const now = this.now()
    if (n.isDir()) {
      e.dir = true
      e.nodes = n.visibleChildren().map((c) => c.repr(recursive, sorted, now))
      if (sorted) sortNodeExterns(e.nodes)
    } else {
      e.value = n.value
    }
    ;[e.expiration, e.ttl] = n.expirationAndTtl(now)
  }

  private internalCreate(nodePath: string, dir: boolean, value: string, unique: boolean, replace: boolean, expireTime: bigint | undefined, action: Action): V2Event {
    const currIndex = this.currentIndex
    const nextIndex = currIndex + 1
    if (unique) nodePath += `/${String(nextIndex).padStart(20, '0')}`
    nodePath = clean(join('/', nodePath))
    if (this.readonly.has(nodePath)) throw new V2Error(EcodeRootROnly, '/', currIndex)
    if (expireTime !== undefined && expireTime < MIN_EXPIRE_TIME) expireTime = undefined
    const [dirName, nodeName] = split(nodePath)
    let d: V2Node
    try {
      d = walk(this.root, dirName, (parent, name) => this.checkDir(parent, name))
    } catch (err) {
      if (err instanceof V2Error) {
        // etcd counts this failure as a failed set whatever the operation, on top of the operation's own count.
        this.stats.inc('setsFail')
        err.index = currIndex
      }
      throw err
    }
    const e = newEvent(action, nodePath, nextIndex, nextIndex)
    const existing = d.children?.get(nodeName)
    if (existing !== undefined) {
      if (!replace) throw new V2Error(EcodeNodeExist, nodePath, currIndex)
      if (existing.isDir()) throw new V2Error(EcodeNotFile, nodePath, currIndex)
      e.prevNode = existing.repr(false, false, this.now())
      existing.remove(false, false, undefined)
    }
    let n: V2Node
    if (!dir) {
      if (e.node !== undefined) e.node.value = value
      n = V2Node.kv(this, nodePath, value, nextIndex, d, expireTime)
    } else {
      if (e.node !== undefined) e.node.dir = true
      n = V2Node.dir(this, nodePath, nextIndex, d, expireTime)
    }
    const aerr = d.add(n)
    if (aerr !== undefined) throw aerr
    if (!n.isPermanent()) {
      this.ttlKeyHeap.push(n)
      if (e.node !== undefined) [e.node.expiration, e.node.ttl] = n.expirationAndTtl(this.now())
    }
    this.currentIndex = nextIndex
    return e
  }

  /** The node at a path, or KeyNotFound / NotDir. */
  private internalGet(nodePath: string): V2Node {
    nodePath = clean(join('/', nodePath))
    return walk(this.root, nodePath, (parent, name) => {
      if (parent.children === undefined) throw new V2Error(EcodeNotDir, parent.path, this.currentIndex)
      const child = parent.children.get(name)
      if (child !== undefined) return child
      throw new V2Error(EcodeKeyNotFound, join(parent.path, name), this.currentIndex)
    })
  }

  /** The directory `dirName` under `parent`, made if missing; NotDir if a key holds the name. */
  private checkDir(parent: V2Node, dirName: string): V2Node {
    const node = parent.children?.get(dirName)
    if (node !== undefined) {
      if (node.isDir()) return node
      throw new V2Error(EcodeNotDir, node.path, this.currentIndex)
    }
    const n = V2Node.dir(this, join(parent.path, dirName), this.currentIndex + 1, parent, undefined)
    parent.addIntermediate(dirName, n)
    return n
  }
}
