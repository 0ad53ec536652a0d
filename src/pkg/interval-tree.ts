// Stands in for etcd pkg/adt IntervalTree over StringAffineIntervals, as mvcc/watcher_group.go uses it.
/**
 * A set of half-open byte ranges `[key, end)`, each holding a set of values, that answers "which ranges
 * contain this key" (stab) and "does any range meet this range" (intersects). It adapts
 * `node-interval-tree` (an augmented AVL tree of closed numeric intervals) to byte keys in a thin layer,
 * so the balancing is the library's and only the mapping needs checking (its test compares it with a
 * brute-force list scan):
 *
 * 1. Each byte string maps to a monotone bigint {@link ordinal}: its first {@link ORDINAL_WIDTH}
 *    bytes, zero-padded, as a big-endian number. `compareBytes(a, b) <= 0` implies
 *    `ordinal(a) <= ordinal(b)`; keys that agree on their first ORDINAL_WIDTH bytes (or differ only by
 *    trailing zero bytes) map to the same number.
 * 2. `[key, end)` is stored as the closed interval `[ordinal(key), ordinal(end)]`, and an end of
 *    {@link FROM_KEY} (etcd's `"\0"`: no upper bound) as `[ordinal(key), INFINITY]`, where INFINITY
 *    is above every ordinal. Every key in the byte range maps into the numeric one, so a numeric search
 *    finds a superset of the answer.
 * 3. The superset is filtered exactly with `compareBytes`. The byte comparison runs only where the
 *    numbers cannot decide: when the point's ordinal equals a bound's ordinal.
 *
 * The search walks the library's nodes itself (`root`, `left`, `right`, `key`, `max`, `records`, all
 * public in its typings) instead of calling `search()`, which builds and concatenates an array at
 * every node it visits. So `stab()` and `intersects()` allocate only the point's bigint ordinal (a
 * few BigInt operations). Identical intervals share one record with a `Set` of values, like etcd's
 * watcherGroup, which stores one watcherSet per interval.
 */
import { createRequire } from 'node:module'
import type * as NodeIntervalTree from 'node-interval-tree'
import type { Node } from 'node-interval-tree'
import { compareBytes, equalBytes, FROM_KEY } from './bytes.js'

// Required rather than imported: the package is CommonJS, and the first CommonJS module an ES module imports
// costs the ESM loader several milliseconds (its export scanner), paid by every import('etcdlite').
const { IntervalTree: AugmentedTree } = createRequire(import.meta.url)('node-interval-tree') as typeof NodeIntervalTree

/**
 * How many leading bytes of a key its ordinal reflects. Keys that share a longer prefix get the same
 * ordinal. They still match exactly, but they fall into one tree node that is scanned linearly, so
 * this should cover the usual shared prefixes (Kubernetes' `/registry/<resource>/<namespace>/` is
 * 20-40 bytes). A wider ordinal costs more BigInt work on every stab, but only for keys that long:
 * a key of n bytes costs ceil(n / 8) words (64 bytes = 512 bits = 8 words at most). A multiple of 8.
 */
export const ORDINAL_WIDTH = 64

/** ORDINAL_WIDTH in 64-bit words. */
const WORDS = ORDINAL_WIDTH / 8

/** SHIFT[i] = 64 * i: the shift that pads an ordinal built from WORDS - i words. */
const SHIFT: readonly bigint[] = Array.from({ length: WORDS + 1 }, (_, i) => BigInt(64 * i))

/** Above every ordinal (the largest is 2^(8 * ORDINAL_WIDTH) - 1): the numeric image of FROM_KEY. */
const INFINITY: bigint = 1n << BigInt(8 * ORDINAL_WIDTH)

/** Scratch space for {@link ordinal}; safe to share because ordinal() is synchronous and not reentrant. */
const scratch = new Uint8Array(ORDINAL_WIDTH)
const scratchView = new DataView(scratch.buffer)

/**
 * The monotone numeric image of a byte string: its first {@link ORDINAL_WIDTH} bytes, zero-padded,
 * read as a big-endian unsigned integer. `compareBytes(a, b) <= 0` implies `ordinal(a) <= ordinal(b)`,
 * hence `ordinal(a) < ordinal(b)` implies `compareBytes(a, b) < 0`. Ties: keys equal on their first
 * ORDINAL_WIDTH bytes, and keys that differ only by trailing zero bytes ("a" and "a\x00"). The empty
 * key maps to 0.
 *
 * Base 256 rather than base 257 (byte b -> digit b + 1, which would also separate "a" from "a\x00"):
 * the number is then assembled from big-endian 64-bit words with shifts, about three times faster
 * than base-257 multiplications, and the rare trailing-zero tie is settled by the exact filter.
 */
export function ordinal(key: Uint8Array): bigint {
  const n = key.length < ORDINAL_WIDTH ? key.length : ORDINAL_WIDTH
  if (n === 0) return 0n
  const words = (n + 7) >>> 3
  for (let i = 0; i < n; i++) scratch[i] = key[i] as number
  scratch.fill(0, n, words * 8)
  let acc = scratchView.getBigUint64(0, false)
  for (let w = 1; w < words; w++) acc = (acc << 64n) | scratchView.getBigUint64(w * 8, false)
  return words === WORDS ? acc : acc << (SHIFT[WORDS - words] as bigint)
}

/** One stored interval: the library's record (`low`, `high`) plus the exact bounds and the values. */
interface Item<V> {
  /** ordinal(key). */
  readonly low: bigint
  /** ordinal(end), INFINITY for FROM_KEY, raised to `low` for an inverted range (the library refuses low > high). */
  readonly high: bigint
  /** Our own copy of the start key. */
  readonly key: Uint8Array
  /** Our own copy of the exclusive end, or FROM_KEY. */
  readonly end: Uint8Array | typeof FROM_KEY
  /** True when the range holds no key (end <= key): such an item never matches. */
  readonly empty: boolean
  readonly values: Set<V>
}

type TreeNode<V> = Node<Item<V>, bigint>

/**
 * Half-open byte ranges `[key, end)`, each with a set of values.
 *
 * Ranges:
 * - `end` is the exclusive upper bound, already normalised (see `toRangeEnd` in bytes.ts): a
 *   `Uint8Array` means keys `k` with `key <= k < end`, and {@link FROM_KEY} means every `k >= key`.
 *   Here an empty `end` array is NOT "the single key" and a one-byte `[0x00]` array is NOT "from
 *   key": both are plain exclusive bounds. Store a single key `k` as `[k, k + "\0")` if you must
 *   (etcd keeps single-key watchers in a separate map).
 * - The empty key is an ordinary key, the smallest of all: `["", FROM_KEY)` holds every key.
 * - An empty or inverted range (`end <= key`) is the caller's problem: etcd refuses it up front
 *   (ErrEmptyWatcherRange). Here it is stored, counted in {@link size} and can be deleted, but it
 *   never matches a stab or an intersects.
 *
 * Values are compared with `Set` semantics (SameValueZero). The tree copies the key and end bytes,
 * so callers may reuse their arrays.
 *
 * Cost: insert and delete are O(log n) plus a scan of the ranges whose keys share an ordinal. A
 * stab visits O((k + 1) log n) nodes for k hits, like etcd's tree; wide ranges (FROM_KEY, short
 * prefixes) are hits wherever they start left of the point, so they add visits, not wasted work.
 *
 * Reentrancy: the `fn` passed to {@link stab} may call `stab()` and `intersects()` but must not
 * insert or delete; those throw while a stab is running (they would rebalance the nodes being
 * walked). Collect first, then mutate, as etcd's newWatcherBatch does.
 */
export class IntervalTree<V> {
  private readonly tree = new AugmentedTree<Item<V>, bigint>()
  private count = 0
  /** Number of stab() calls in progress (nested stabs are allowed). */
  private stabbing = 0

  /** Number of stored (interval, value) pairs. */
  get size(): number {
    return this.count
  }

  /**
   * Add `value` to the range `[key, end)`. Identical ranges (same key bytes, same end) share one
   * record and its value set, so adding a value the range already holds does nothing. `end <= key` is
   * stored but never matches (see the class comment). Throws if called from inside a stab callback.
   */
  insert(key: Uint8Array, end: Uint8Array | typeof FROM_KEY, value: V): void {
    this.assertNotStabbing('insert')
    const low = ordinal(key)
    const item = this.find(low, key, end)
    if (item !== undefined) {
      if (!item.values.has(value)) {
        item.values.add(value)
        this.count++
      }
      return
    }
    let high = INFINITY
    let empty = false
    let endCopy: Uint8Array | typeof FROM_KEY = FROM_KEY
    if (end !== FROM_KEY) {
      const h = ordinal(end)
      high = h < low ? low : h
      empty = compareBytes(end, key) <= 0
      endCopy = new Uint8Array(end)
    }
    // new Uint8Array(x) copies; Buffer#slice would not.
    this.tree.insert({ low, high, key: new Uint8Array(key), end: endCopy, empty, values: new Set([value]) })
    this.count++
  }

  /**
   * Remove `value` from the range `[key, end)` (the same bytes it was inserted with). Returns true if
   * the pair was there. The range's node goes when its last value does. Throws if called from inside
   * a stab callback.
   */
  delete(key: Uint8Array, end: Uint8Array | typeof FROM_KEY, value: V): boolean {
    this.assertNotStabbing('delete')
    const item = this.find(ordinal(key), key, end)
    if (item === undefined || !item.values.delete(value)) return false
    this.count--
    if (item.values.size === 0 && !this.tree.remove(item)) {
      // etcd panics here too ("could not remove watcher from interval tree").
      throw new Error('interval-tree: a found interval could not be removed')
    }
    return true
  }

  /**
   * Call `fn` for every value whose range contains `point` (`key <= point < end`), exactly. A value
   * stored under several ranges that contain the point is passed once per range. Order is
   * unspecified. Allocates only the point's ordinal. `fn` must not insert or delete (see the class
   * comment); if it throws, the stab stops and the error propagates.
   */
  stab(point: Uint8Array, fn: (value: V) => void): void {
    const root = this.tree.root
    if (root === undefined) return
    const q = ordinal(point)
    if (q > root.max) return
    this.stabbing++
    try {
      visitContaining(root, q, point, (it) => {
        for (const v of it.values) fn(v)
        return false
      })
    } finally {
      this.stabbing--
    }
  }

  /**
   * True if some stored range shares at least one key with `[key, end)`, exactly. `end` undefined
   * asks about the single key `key` (etcd's watcherGroup.contains); FROM_KEY means no upper bound; an
   * empty or inverted query range (`end <= key`) intersects nothing. Allocation-free apart from the
   * ordinals.
   */
  intersects(key: Uint8Array, end?: Uint8Array | typeof FROM_KEY): boolean {
    const root = this.tree.root
    if (root === undefined) return false
    if (end === undefined) {
      const q = ordinal(key)
      return visitContaining(root, q, key, stop)
    }
    if (end !== FROM_KEY && compareBytes(end, key) <= 0) return false
    return anyOverlaps(root, ordinal(key), end === FROM_KEY ? INFINITY : ordinal(end), key, end)
  }

  /** The record for exactly [key, end), if stored: the node keyed by `low`, then an exact scan. */
  private find(low: bigint, key: Uint8Array, end: Uint8Array | typeof FROM_KEY): Item<V> | undefined {
    const node = this.tree.root?.searchExisting(low)
    if (node === undefined) return undefined
    for (const item of node.records) {
      if (!equalBytes(item.key, key)) continue
      if (item.end === FROM_KEY ? end === FROM_KEY : end !== FROM_KEY && equalBytes(item.end, end)) return item
    }
    return undefined
  }

  private assertNotStabbing(op: string): void {
    if (this.stabbing > 0) throw new Error(`interval-tree: ${op} called from inside a stab() callback`)
  }
}

// The walks below rely on the library's invariants: a node's `key` is the `low` of all its records,
// left keys < key < right keys, and `max` is the largest `high` in the node's subtree. They recurse
// left and loop right, so the stack depth is the tree height (an AVL tree: ~1.44 log2 n).

/**
 * Visits each item that contains `point` (ordinal q), in order, until `visit` returns true; returns
 * whether it did. stab() visits every item, intersects() stops at the first.
 */
function visitContaining<V>(start: TreeNode<V>, q: bigint, point: Uint8Array, visit: (it: Item<V>) => boolean): boolean {
  let node: TreeNode<V> | undefined = start
  while (node !== undefined && q <= node.max) {
    if (node.left !== undefined && visitContaining(node.left, q, point, visit)) return true
    if (node.key > q) return false // this node and everything to its right start after the point
    const lowTie = node.key === q
    const records = node.records
    for (let i = 0; i < records.length; i++) {
      const it = records[i] as Item<V>
      if (it.high < q) continue
      // ordinal(key) < q proves key < point; only a tie needs the bytes. Likewise for the end.
      if (lowTie && compareBytes(it.key, point) > 0) continue
      if (it.high === q && it.end !== FROM_KEY && compareBytes(point, it.end) >= 0) continue
      if (visit(it)) return true
    }
    node = node.right
  }
  return false
}

const stop = (): boolean => true

/**
 * True if some non-empty item overlaps the non-empty query [key, end) with ordinals [qlo, qhi]:
 * item.key < end and key < item.end.
 */
function anyOverlaps<V>(
  start: TreeNode<V>, qlo: bigint, qhi: bigint, key: Uint8Array, end: Uint8Array | typeof FROM_KEY,
): boolean {
  let node: TreeNode<V> | undefined = start
  while (node !== undefined && qlo <= node.max) {
    if (node.left !== undefined && anyOverlaps(node.left, qlo, qhi, key, end)) return true
    if (node.key > qhi) return false
    const highTie = node.key === qhi && end !== FROM_KEY
    const records = node.records
    for (let i = 0; i < records.length; i++) {
      const it = records[i] as Item<V>
      if (it.high < qlo || it.empty) continue
      // ordinal(item.key) < qhi proves item.key < end; ordinal(item.end) > qlo proves key < item.end.
      if (highTie && compareBytes(it.key, end) >= 0) continue
      if (it.high === qlo && it.end !== FROM_KEY && compareBytes(key, it.end) >= 0) continue
      return true
    }
    node = node.right
  }
  return false
}
