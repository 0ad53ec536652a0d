/**
 * An ordered map from latin1 key strings (see bytes.ts) to values: a hash map for point lookups plus a
 * two-level B-tree of sorted blocks for ordered scans. Inserts and deletes cost O(log n + B) with B the
 * block size (512); scans are sequential. It stands in for etcd's google/btree in the key index.
 */

const MAX_BLOCK = 512
/** Keys per block after a bulk load: room for inserts before the first splits. */
const LOAD_BLOCK = 384

interface Block<V> {
  keys: string[]
  vals: V[]
}

export class OrderedMap<V> {
  private map = new Map<string, V>()
  private blocks: Block<V>[] = []

  get size(): number {
    return this.map.size
  }

  get(key: string): V | undefined {
    return this.map.get(key)
  }

  has(key: string): boolean {
    return this.map.has(key)
  }

  /** Insert or replace. */
  set(key: string, value: V): void {
    if (this.map.has(key)) {
      this.map.set(key, value)
      const b = this.blocks[this.blockFor(key)] as Block<V>
      b.vals[lowerBound(b.keys, key)] = value
      return
    }
    this.map.set(key, value)
    if (this.blocks.length === 0) {
      this.blocks.push({ keys: [key], vals: [value] })
      return
    }
    const bi = this.blockFor(key)
    const b = this.blocks[bi] as Block<V>
    const i = lowerBound(b.keys, key)
    b.keys.splice(i, 0, key)
    b.vals.splice(i, 0, value)
    if (b.keys.length > MAX_BLOCK) {
      const half = b.keys.length >>> 1
      const right: Block<V> = { keys: b.keys.splice(half), vals: b.vals.splice(half) }
      this.blocks.splice(bi + 1, 0, right)
    }
  }

  delete(key: string): boolean {
    if (!this.map.delete(key)) return false
    const bi = this.blockFor(key)
    const b = this.blocks[bi] as Block<V>
    const i = lowerBound(b.keys, key)
    b.keys.splice(i, 1)
    b.vals.splice(i, 1)
    if (b.keys.length === 0) this.blocks.splice(bi, 1)
    return true
  }

  /**
   * Replace the contents with every entry of `entries` (taken over, not copied): one sort of the keys
   * instead of an ordered insert per key, for building a large map at once.
   */
  load(entries: Map<string, V>): void {
    this.map = entries
    // The default sort compares UTF-16 code units, which for latin1 strings is byte order.
    const keys = [...entries.keys()].sort()
    const blocks: Block<V>[] = []
    for (let i = 0; i < keys.length; i += LOAD_BLOCK) {
      const bk = keys.slice(i, i + LOAD_BLOCK)
      blocks.push({ keys: bk, vals: bk.map((k) => entries.get(k) as V) })
    }
    this.blocks = blocks
  }

  clear(): void {
    this.map.clear()
    this.blocks = []
  }

  /**
   * Visit entries with start <= key < end in key order; `end` undefined means no upper bound.
   * The callback returns false to stop. The map must not be modified during the visit.
   */
  forEachRange(start: string, end: string | undefined, fn: (key: string, value: V) => boolean | void): void {
    if (this.blocks.length === 0) return
    let bi = this.blockFor(start)
    let b = this.blocks[bi] as Block<V>
    let i = lowerBound(b.keys, start)
    for (;;) {
      while (i < b.keys.length) {
        const k = b.keys[i] as string
        if (end !== undefined && k >= end) return
        if (fn(k, b.vals[i] as V) === false) return
        i++
      }
      bi++
      if (bi >= this.blocks.length) return
      b = this.blocks[bi] as Block<V>
      i = 0
    }
  }

  /** Every entry in key order. */
  *entries(): IterableIterator<[string, V]> {
    for (const b of this.blocks) for (let i = 0; i < b.keys.length; i++) yield [b.keys[i] as string, b.vals[i] as V]
  }

  /** Index of the block that holds (or would hold) `key`: the last block whose first key <= key. */
  private blockFor(key: string): number {
    let lo = 0
    let hi = this.blocks.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (((this.blocks[mid] as Block<V>).keys[0] as string) <= key) lo = mid
      else hi = mid - 1
    }
    return lo
  }
}

/** First index i with keys[i] >= key. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((keys[mid] as string) < key) lo = mid + 1
    else hi = mid
  }
  return lo
}
