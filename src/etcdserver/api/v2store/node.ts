// etcd's v2store node: a key with a value, or a directory of child nodes; its path, created and modified
// indexes, parent, and expiry (undefined: permanent). Every change a node makes to itself or its parent is
// reported to its store, which persists it.
import { split } from '../../../pkg/go-path.js'
import { EcodeDirNotEmpty, EcodeNodeExist, EcodeNotDir, EcodeNotFile, V2Error } from '../v2error/error.js'
import { newNodeExtern, sortNodeExterns, type NodeExtern } from './node-extern.js'
import type { TtlKeyHeap } from './ttl-key-heap.js'

/** What a node needs of its store. */
export interface NodeStore {
  readonly currentIndex: number
  readonly ttlKeyHeap: TtlKeyHeap<V2Node>
  /** The node was created, or its value, modified index or expiry changed. */
  noteWritten(n: V2Node): void
  /** The node was taken out of its directory. */
  noteRemoved(n: V2Node): void
}

/** Outcomes of Compare (etcd's CompareMatch and friends). */
export const CompareMatch = 0
export const CompareIndexNotMatch = 1
export const CompareValueNotMatch = 2
export const CompareNotMatch = 3

/** Why a compare failed, as etcd words it. */
export function compareFailCause(n: V2Node, which: number, prevValue: string, prevIndex: bigint): string {
  if (which === CompareIndexNotMatch) return `[${prevIndex} != ${n.modifiedIndex}]`
  if (which === CompareValueNotMatch) return `[${prevValue} != ${n.value}]`
  return `[${prevValue} != ${n.value}] [${prevIndex} != ${n.modifiedIndex}]`
}

/** Walk the components of a path from `root` (an empty component ends the walk). */
export function walk(root: V2Node, nodePath: string, step: (prev: V2Node, component: string) => V2Node): V2Node {
  const components = nodePath.split('/')
  let curr = root
  for (let i = 1; i < components.length; i++) {
    const c = components[i] ?? ''
    if (c === '') return curr
    curr = step(curr, c)
  }
  return curr
}

/** A node's expiry and TTL as etcd computes them at `now`: TTL is the time left in seconds, rounded up. */
export function expirationAndTtl(expireTime: bigint | undefined, now: bigint): [bigint | undefined, number] {
  if (expireTime === undefined) return [undefined, 0]
  const left = expireTime - now
  let ttl = left / 1_000_000_000n
  if (left % 1_000_000_000n > 0n) ttl++
  return [expireTime, Number(ttl)]
}

export class V2Node {
  readonly path: string
  createdIndex: number
  modifiedIndex: number
  parent: V2Node | undefined
  expireTime: bigint | undefined
  value: string
  /** A directory's children by name; undefined for a key. */
  readonly children: Map<string, V2Node> | undefined
  readonly store: NodeStore

  private constructor(store: NodeStore, path: string, createdIndex: number, parent: V2Node | undefined, expireTime: bigint | undefined, value: string, dir: boolean) {
    this.store = store
    this.path = path
    this.createdIndex = createdIndex
    this.modifiedIndex = createdIndex
    this.parent = parent
    this.expireTime = expireTime
    this.value = value
    this.children = dir ? new Map() : undefined
  }

  /** newKV */
  static kv(store: NodeStore, path: string, value: string, createdIndex: number, parent: V2Node | undefined, expireTime: bigint | undefined): V2Node {
    return new V2Node(store, path, createdIndex, parent, expireTime, value, false)
  }

  /** newDir */
  static dir(store: NodeStore, path: string, createdIndex: number, parent: V2Node | undefined, expireTime: bigint | undefined): V2Node {
    return new V2Node(store, path, createdIndex, parent, expireTime, '', true)
  }

  /** A hidden node's name starts with '_': listings leave it out. */
  isHidden(): boolean {
    return split(this.path)[1].startsWith('_')
  }

  isPermanent(): boolean {
    return this.expireTime === undefined
  }

  isDir(): boolean {
    return this.children !== undefined
  }

  /** Set a key's value and modified index; NotFile for a directory. */
  write(value: string, index: number): V2Error | undefined {
    if (this.children !== undefined) return new V2Error(EcodeNotFile, '', this.store.currentIndex)
    this.value = value
    this.modifiedIndex = index
    this.store.noteWritten(this)
    return undefined
  }

  expirationAndTtl(now: bigint): [bigint | undefined, number] {
    return expirationAndTtl(this.expireTime, now)
  }

  /** Child nodes (map order); NotDir for a key. */
  list(): V2Node[] | V2Error {
    if (this.children === undefined) return new V2Error(EcodeNotDir, '', this.store.currentIndex)
    return [...this.children.values()]
  }

  getChild(name: string): V2Node | undefined | V2Error {
    if (this.children === undefined) return new V2Error(EcodeNotDir, this.path, this.store.currentIndex)
    return this.children.get(name)
  }

  /** Add a child; NotDir for a key, NodeExist if the name is taken. */
  add(child: V2Node): V2Error | undefined {
    if (this.children === undefined) return new V2Error(EcodeNotDir, '', this.store.currentIndex)
    const name = split(child.path)[1]
    if (this.children.has(name)) return new V2Error(EcodeNodeExist, '', this.store.currentIndex)
    this.children.set(name, child)
    this.store.noteWritten(child)
    return undefined
  }

  /** Add a directory made on the way to a new node (etcd's checkDir writes the map directly). */
  addIntermediate(name: string, child: V2Node): void {
    this.children?.set(name, child)
    this.store.noteWritten(child)
  }

  /**
   * Remove this node (and, with `recursive`, everything under it), calling `callback` with each removed
   * path. A directory needs `dir`; a non-empty one needs `recursive`.
   */
  remove(dir: boolean, recursive: boolean, callback: ((path: string) => void) | undefined): V2Error | undefined {
    const name = split(this.path)[1]
    if (this.children === undefined) {
      if (this.parent !== undefined && this.parent.children?.get(name) === this) {
        this.parent.children.delete(name)
        this.store.noteRemoved(this)
      }
      callback?.(this.path)
      if (!this.isPermanent()) this.store.ttlKeyHeap.remove(this)
      return undefined
    }
    if (!dir) return new V2Error(EcodeNotFile, this.path, this.store.currentIndex)
    if (this.children.size !== 0 && !recursive) return new V2Error(EcodeDirNotEmpty, this.path, this.store.currentIndex)
    for (const child of [...this.children.values()]) child.remove(true, true, callback)
    if (this.parent !== undefined && this.parent.children?.get(name) === this) {
      this.parent.children.delete(name)
      this.store.noteRemoved(this)
      callback?.(this.path)
      if (!this.isPermanent()) this.store.ttlKeyHeap.remove(this)
    }
    return undefined
  }

  /** The node as clients see it; a directory lists its children (recursively with `recursive`), hidden ones left out. */
  repr(recursive: boolean, sorted: boolean, now: bigint): NodeExtern {
    const e = newNodeExtern(this.path, this.modifiedIndex, this.createdIndex)
    ;[e.expiration, e.ttl] = this.expirationAndTtl(now)
    if (this.children !== undefined) {
      e.dir = true
      if (!recursive) return e
      e.nodes = this.visibleChildren().map((c) => c.repr(recursive, sorted, now))
      if (sorted) sortNodeExterns(e.nodes)
      return e
    }
    e.value = this.value
    return e
  }

  /** Children that are not hidden. */
  visibleChildren(): V2Node[] {
    return [...(this.children?.values() ?? [])].filter((c) => !c.isHidden())
  }

  /** Set (undefined: clear) the expiry, keeping the store's TTL heap in step. */
  updateTtl(expireTime: bigint | undefined): void {
    const heap = this.store.ttlKeyHeap
    if (!this.isPermanent()) {
      this.expireTime = expireTime
      if (expireTime === undefined) heap.remove(this)
      else heap.update(this)
      this.store.noteWritten(this)
      return
    }
    if (expireTime === undefined) return
    this.expireTime = expireTime
    heap.push(this)
    this.store.noteWritten(this)
  }

  /** Compare the value and modified index with the expected ones (empty / 0: not compared). */
  compare(prevValue: string, prevIndex: bigint): [boolean, number] {
    const indexMatch = prevIndex === 0n || BigInt(this.modifiedIndex) === prevIndex
    const valueMatch = prevValue === '' || this.value === prevValue
    if (valueMatch && indexMatch) return [true, CompareMatch]
    if (indexMatch) return [false, CompareValueNotMatch]
    if (valueMatch) return [false, CompareIndexNotMatch]
    return [false, CompareNotMatch]
  }
}
