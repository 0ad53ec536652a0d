// Mirrors etcd auth/range_perm_cache.go, with the insert-only part of pkg/adt/interval_tree.go it relies on.
//
// Why a port of etcd's adt tree and not pkg/interval-tree (or a sorted array): the answer of a permission
// check must be etcd's, and etcd's is defined by that tree, not by interval arithmetic.
// - Endpoints are BytesAffineComparable: the EMPTY byte string compares as +infinity, as a begin too (a
//   permission on key "" from "\0" covers nothing, a point query on "" intersects nothing). pkg/interval-tree
//   maps keys to numbers and has no such order.
// - adt's "overlap" (Interval.Compare) is asymmetric, and for an inverted query (rangeEnd < key, which etcd
//   checks without complaint) it means "a permission contains the query's begin". Which of those permissions
//   Visit reaches then depends on the tree's shape, because the subtree pruning (the node's max against the
//   query) assumes begin <= end. Only the same red-black tree, fed the same intervals in the same order
//   (roles sorted by name, each role's permissions in stored order, READWRITE into both trees), prunes the
//   same way; for every well-formed query this is plain interval coverage (checked against a list scan).
// The trees are rebuilt for every user after each change, as etcd's refreshRangePermCache does; nothing is
// ever deleted from one, so adt's Delete is not ported.
import { compareBytes } from '../pkg/bytes.js'
import type { Role, User } from './permission.js'

const EMPTY = new Uint8Array(0)

/** adt.BytesAffineComparable.Compare: -1, 0 or 1; the empty byte string is greater than every other. */
export function compareAffine(a: Uint8Array, b: Uint8Array): -1 | 0 | 1 {
  if (a.length === 0) return b.length === 0 ? 0 : 1
  if (b.length === 0) return -1
  const c = compareBytes(a, b)
  return c < 0 ? -1 : c > 0 ? 1 : 0
}

/** adt.Interval over BytesAffineComparable: [begin, end), either end empty = +infinity. */
export interface AffineInterval {
  readonly begin: Uint8Array
  readonly end: Uint8Array
}

/** adt.NewBytesAffinePoint: [key, key + "\0"). */
export function affinePoint(key: Uint8Array): AffineInterval {
  const end = new Uint8Array(key.length + 1)
  end.set(key)
  return { begin: key, end }
}

/**
 * adt.Interval.Compare, verbatim: -1 when `a` is left of `b` (a.begin < b.begin and a.end <= b.begin), 1 when
 * `a` is right of `b` (a.begin >= b.end), else 0 ("overlap"). Not symmetric for inverted intervals.
 */
export function compareIntervals(a: AffineInterval, b: AffineInterval): -1 | 0 | 1 {
  if (compareAffine(a.begin, b.begin) < 0 && compareAffine(a.end, b.begin) <= 0) return -1
  if (compareAffine(a.begin, b.end) >= 0) return 1
  return 0
}

/** A node of the tree; the sentinel is one shared node whose links point at itself. */
class Node {
  ivl: AffineInterval
  /** Greatest end in this subtree (adt's max). */
  max: Uint8Array
  left: Node
  right: Node
  parent: Node
  red: boolean

  constructor(ivl: AffineInterval, sentinel?: Node) {
    this.ivl = ivl
    this.max = ivl.end
    this.left = sentinel ?? this
    this.right = sentinel ?? this
    this.parent = sentinel ?? this
    this.red = sentinel !== undefined
  }
}

/**
 * adt.intervalTree restricted to Insert, Visit, Intersects and Contains, ported line for line (CLRS red-black
 * insert with adt's max maintenance, including its early stop in updateMax). Values are not kept: the
 * permission trees only ask whether intervals are there.
 */
export class AffineIntervalTree {
  private readonly nil = new Node({ begin: EMPTY, end: EMPTY })
  private root: Node = this.nil
  private count = 0

  /** How many intervals were inserted (equal ones count each time). */
  get size(): number {
    return this.count
  }

  /** Add an interval (duplicates are kept, as adt keeps them); equal begins go after the earlier ones. */
  insert(ivl: AffineInterval): void {
    const nil = this.nil
    let y = nil
    const z = new Node(ivl, nil)
    let x = this.root
    while (x !== nil) {
      y = x
      x = compareAffine(z.ivl.begin, x.ivl.begin) < 0 ? x.left : x.right
    }
    z.parent = y
    if (y === nil) {
      this.root = z
    } else {
      if (compareAffine(z.ivl.begin, y.ivl.begin) < 0) y.left = z
      else y.right = z
      this.updateMax(y)
    }
    z.red = true
    this.insertFixup(z)
    this.count++
  }

  /** adt's Intersects: some interval "overlaps" `iv` (CLRS interval search, adt's Compare). */
  intersects(iv: AffineInterval): boolean {
    const nil = this.nil
    let x = this.root
    while (x !== nil && compareIntervals(iv, x.ivl) !== 0) {
      x = x.left !== nil && compareAffine(x.left.max, iv.begin) > 0 ? x.left : x.right
    }
    return x !== nil
  }

  /**
   * adt's Contains: the intervals Visit reaches for `ivl`, taken in begin order, leave no gap (each begins at
   * or before the greatest end so far) and together reach from ivl.begin or before to ivl.end or after.
   */
  contains(ivl: AffineInterval): boolean {
    let minBegin: Uint8Array | undefined
    let maxEnd: Uint8Array = EMPTY
    let contiguous = true
    this.visit(ivl, (n) => {
      if (minBegin === undefined) {
        minBegin = n.begin
        maxEnd = n.end
        return true
      }
      if (compareAffine(maxEnd, n.begin) < 0) {
        contiguous = false
        return false
      }
      if (compareAffine(n.end, maxEnd) > 0) maxEnd = n.end
      return true
    })
    return contiguous && minBegin !== undefined && compareAffine(maxEnd, ivl.end) >= 0 && compareAffine(minBegin, ivl.begin) <= 0
  }

  /** adt's Visit: call `fn` on the intervals "overlapping" `ivl`, in begin order, until it returns false. */
  visit(ivl: AffineInterval, fn: (ivl: AffineInterval) => boolean): void {
    this.visitNode(this.root, ivl, fn)
  }

  private visitNode(x: Node, iv: AffineInterval, fn: (ivl: AffineInterval) => boolean): boolean {
    const nil = this.nil
    if (x === nil) return true
    const v = compareIntervals(iv, x.ivl)
    if (v < 0) {
      if (!this.visitNode(x.left, iv, fn)) return false
    } else if (v > 0) {
      // Descend only when [x.begin, x.max) "overlaps" the query (adt compares it as the receiver).
      if (compareIntervals({ begin: x.ivl.begin, end: x.max }, iv) === 0) {
        if (!this.visitNode(x.left, iv, fn) || !this.visitNode(x.right, iv, fn)) return false
      }
    } else if (!this.visitNode(x.left, iv, fn) || !fn(x.ivl) || !this.visitNode(x.right, iv, fn)) {
      return false
    }
    return true
  }

  /** adt's updateMax: recompute max upwards, stopping at the first node whose max does not change. */
  private updateMax(x: Node): void {
    const nil = this.nil
    while (x !== nil) {
      const oldMax = x.max
      let max = x.ivl.end
      if (x.left !== nil && compareAffine(x.left.max, max) > 0) max = x.left.max
      if (x.right !== nil && compareAffine(x.right.max, max) > 0) max = x.right.max
      if (compareAffine(oldMax, max) === 0) break
      x.max = max
      x = x.parent
    }
  }

  private insertFixup(z: Node): void {
    while (z.parent.red) {
      if (z.parent === z.parent.parent.left) {
        const y = z.parent.parent.right
        if (y.red) {
          y.red = false
          z.parent.red = false
          z.parent.parent.red = true
          z = z.parent.parent
        } else {
          if (z === z.parent.right) {
            z = z.parent
            this.rotateLeft(z)
          }
          z.parent.red = false
          z.parent.parent.red = true
          this.rotateRight(z.parent.parent)
        }
      } else {
        const y = z.parent.parent.left
        if (y.red) {
          y.red = false
          z.parent.red = false
          z.parent.parent.red = true
          z = z.parent.parent
        } else {
          if (z === z.parent.left) {
            z = z.parent
            this.rotateRight(z)
          }
          z.parent.red = false
          z.parent.parent.red = true
          this.rotateLeft(z.parent.parent)
        }
      }
    }
    this.root.red = false
  }

  private rotateLeft(x: Node): void {
    const nil = this.nil
    if (x.right === nil) return
    const y = x.right
    x.right = y.left
    if (y.left !== nil) y.left.parent = x
    this.updateMax(x)
    this.replaceParent(x, y)
    y.left = x
    this.updateMax(y)
  }

  private rotateRight(x: Node): void {
    const nil = this.nil
    if (x.left === nil) return
    const y = x.left
    x.left = y.right
    if (y.right !== nil) y.right.parent = x
    this.updateMax(x)
    this.replaceParent(x, y)
    y.right = x
    this.updateMax(y)
  }

  private replaceParent(x: Node, y: Node): void {
    const nil = this.nil
    y.parent = x.parent
    if (x.parent === nil) {
      this.root = y
    } else {
      if (x === x.parent.left) x.parent.left = y
      else x.parent.right = y
      this.updateMax(x.parent)
    }
    x.parent = y
  }
}

/** One user's permissions merged over all their roles (etcd's unifiedRangePermissions). */
export interface UnifiedRangePermissions {
  readonly readPerms: AffineIntervalTree
  readonly writePerms: AffineIntervalTree
}

/** The kind of access a request needs: READWRITE permissions feed both. */
export type AccessType = 'READ' | 'WRITE'

/**
 * etcd's getMergedPerms: for each of the user's roles in order (a missing role, such as an unstored `root`,
 * is skipped), each permission in stored order becomes an interval: rangeEnd empty -> the point
 * [key, key+"\0"); rangeEnd "\0" -> [key, +infinity); else [key, rangeEnd).
 */
export function mergedPerms(user: User, getRole: (name: string) => Role | undefined): UnifiedRangePermissions {
  const readPerms = new AffineIntervalTree()
  const writePerms = new AffineIntervalTree()
  for (const roleName of user.roles) {
    const role = getRole(roleName)
    if (role === undefined) continue
    for (const perm of role.keyPermission) {
      const fromKey = perm.rangeEnd.length === 1 && perm.rangeEnd[0] === 0
      const ivl: AffineInterval =
        perm.rangeEnd.length === 0 ? affinePoint(perm.key) : { begin: perm.key, end: fromKey ? EMPTY : perm.rangeEnd }
      switch (perm.permType) {
        case 'READWRITE':
          readPerms.insert(ivl)
          writePerms.insert(ivl)
          break
        case 'READ':
          readPerms.insert(ivl)
          break
        case 'WRITE':
          writePerms.insert(ivl)
          break
      }
    }
  }
  return { readPerms, writePerms }
}

/**
 * etcd's checkKeyInterval: the permissions cover [key, rangeEnd) by adt's Contains; a rangeEnd of "\0" is
 * +infinity. An inverted range (rangeEnd < key) passes when a permission Visit reaches contains `key`.
 */
export function checkKeyInterval(p: UnifiedRangePermissions, key: Uint8Array, rangeEnd: Uint8Array, access: AccessType): boolean {
  const end = rangeEnd.length === 1 && rangeEnd[0] === 0 ? EMPTY : rangeEnd
  return (access === 'READ' ? p.readPerms : p.writePerms).contains({ begin: key, end })
}

/** etcd's checkKeyPoint: some permission holds the single key (adt's Intersects with [key, key+"\0")). */
export function checkKeyPoint(p: UnifiedRangePermissions, key: Uint8Array, access: AccessType): boolean {
  return (access === 'READ' ? p.readPerms : p.writePerms).intersects(affinePoint(key))
}

/**
 * Every user's merged permissions, rebuilt wholesale by {@link RangePermCache.refresh} after a change (etcd's
 * refreshRangePermCache: cheap at the sizes auth configurations have).
 */
export class RangePermCache {
  private perms = new Map<string, UnifiedRangePermissions>()

  /** Rebuild the cache for exactly these users. */
  refresh(users: Iterable<User>, getRole: (name: string) => Role | undefined): void {
    const next = new Map<string, UnifiedRangePermissions>()
    for (const u of users) next.set(u.name, mergedPerms(u, getRole))
    this.perms = next
  }

  /**
   * etcd's isRangeOpPermitted: an empty `rangeEnd` checks the single key `key`, anything else the range
   * [key, rangeEnd) ("\0": to +infinity). False for a user the cache does not know.
   */
  isRangeOpPermitted(userName: string, key: Uint8Array, rangeEnd: Uint8Array, access: AccessType): boolean {
    const p = this.perms.get(userName)
    if (p === undefined) return false
    return rangeEnd.length === 0 ? checkKeyPoint(p, key, access) : checkKeyInterval(p, key, rangeEnd, access)
  }
}
