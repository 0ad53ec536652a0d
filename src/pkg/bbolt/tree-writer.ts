// Writing one bbolt B+tree bottom-up from entries that arrive in key order, one page at a time: the way to
// produce a bbolt file as a stream. A leaf is written as soon as the next entry does not fit on it; its
// first key and page id go up into the branch node above, which is written when it is full in turn, and so
// on. Memory holds one unfinished node per level. Pages are numbered in the order they are written.
import { compareBytes } from '../bytes.js'
import { BoltError, encodeNode, MAX_KEY_SIZE, MAX_VALUE_SIZE, nodeSize } from './page.js'

/** Where finished pages go, numbered from `next` on. A dry run counts pages and encodes nothing. */
export class PageOut {
  readonly pageSize: number
  /** The id the next page gets. */
  next: number
  private readonly sink: ((pages: Buffer) => void) | undefined

  /** `sink` undefined: a dry run. */
  constructor(pageSize: number, first: number, sink: ((pages: Buffer) => void) | undefined) {
    this.pageSize = pageSize
    this.next = first
    this.sink = sink
  }

  get dry(): boolean {
    return this.sink === undefined
  }

  /** Pages a node of `size` bytes takes. */
  pagesFor(size: number): number {
    return Math.max(1, Math.ceil(size / this.pageSize))
  }

  /** Write a node (or skip its pages in a dry run); returns its page id. */
  node(leaf: boolean, items: readonly Item[], size: number): number {
    const id = this.next
    if (this.sink === undefined) this.next += this.pagesFor(size)
    else {
      const b = encodeNode(id, leaf, items, this.pageSize)
      this.next += b.length / this.pageSize
      this.sink(b)
    }
    return id
  }

  /** Write whole pages made elsewhere (meta, freelist); returns the first page's id. */
  raw(pages: Buffer): number {
    const id = this.next
    this.next += pages.length / this.pageSize
    this.sink?.(pages)
    return id
  }
}

export interface Item {
  readonly key: Uint8Array
  readonly value?: Uint8Array
  readonly flags?: number
  readonly pgid?: number
}

interface Level {
  items: Item[]
  data: number
}

/** Check a key and value as bbolt's Put does. */
export function checkEntry(key: Uint8Array, value: Uint8Array): void {
  if (key.length === 0) throw new BoltError('bbolt: key required')
  if (key.length > MAX_KEY_SIZE) throw new BoltError('bbolt: key too large')
  if (value.length > MAX_VALUE_SIZE) throw new BoltError('bbolt: value too large')
}

export class TreeWriter {
  private readonly out: PageOut
  /** levels[0] is the unfinished leaf, levels[i] the unfinished branch node i levels above. */
  private readonly levels: Level[] = [{ items: [], data: 0 }]
  private last: Uint8Array | undefined
  private finished = false

  constructor(out: PageOut) {
    this.out = out
  }

  /** Add an entry; keys must arrive in strictly increasing order. */
  add(key: Uint8Array, value: Uint8Array, flags = 0): void {
    if (this.finished) throw new BoltError('bbolt: tree already finished')
    checkEntry(key, value)
    if (this.last !== undefined && compareBytes(this.last, key) >= 0) throw new BoltError('bbolt: keys out of order')
    this.last = key
    this.push(0, { key, value, flags }, key.length + value.length)
  }

  /** Write what is left and return the root's page id. An empty tree is one empty leaf page. */
  finish(): number {
    if (this.finished) throw new BoltError('bbolt: tree already finished')
    this.finished = true
    for (let i = 0; ; i++) {
      const lv = this.levels[i] as Level
      if (i === this.levels.length - 1 && lv.items.length <= 1) {
        // The top: one child is the root; an empty leaf level is an empty tree.
        return lv.items.length === 1 && i > 0 ? (lv.items[0]?.pgid as number) : this.flush(i, false)
      }
      this.flush(i, true)
    }
  }

  private push(level: number, item: Item, data: number): void {
    const lv = this.levels[level] as Level
    // A branch node is cut only once it has two children, so each level above has at most half as many
    // nodes and the tree ends in one root even when keys are larger than a page (the node then overflows).
    const min = level === 0 ? 1 : 2
    if (lv.items.length >= min && nodeSize(lv.items.length + 1, lv.data + data) > this.out.pageSize) this.flush(level, true)
    lv.items.push(item)
    lv.data += data
  }

  /** Write level `level`'s node; with `up`, hand its first key and page id to the level above. */
  private flush(level: number, up: boolean): number {
    const lv = this.levels[level] as Level
    const id = this.out.node(level === 0, lv.items, nodeSize(lv.items.length, lv.data))
    const first = lv.items[0]
    lv.items = []
    lv.data = 0
    if (up && first !== undefined) {
      if (this.levels.length === level + 1) this.levels.push({ items: [], data: 0 })
      this.push(level + 1, { key: first.key, pgid: id }, first.key.length)
    }
    return id
  }
}
