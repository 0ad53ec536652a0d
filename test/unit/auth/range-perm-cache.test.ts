// The permission cache (src/auth/range-perm-cache.ts): etcd's own tables (range_perm_cache_test.go), the
// affine order and adt's Compare at their edges, the permission -> interval conversion, and fast-check
// properties against two oracles: a list scan with adt's overlap rule (the tree must visit exactly those
// intervals, in begin order) and plain interval coverage (what a well-formed check means). Inverted
// queries, where etcd's answer depends on the tree's shape, are pinned by table cases here and compared
// with the real etcd in range-perm-cache-reference.test.ts.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import type { Permission, PermissionType, Role, User } from '../../../src/auth/permission.js'
import {
  AffineIntervalTree,
  RangePermCache,
  affinePoint,
  compareAffine,
  compareIntervals,
  type AccessType,
  type AffineInterval,
} from '../../../src/auth/range-perm-cache.js'

const enc = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))
const INF: Uint8Array = new Uint8Array(0)
const ivl = (begin: string, end: string): AffineInterval => ({ begin: enc(begin), end: enc(end) })
const show = (i: AffineInterval): string => `[${JSON.stringify(Buffer.from(i.begin).toString('latin1'))}, ${JSON.stringify(Buffer.from(i.end).toString('latin1'))})`
const tree = (ivls: readonly AffineInterval[]): AffineIntervalTree => {
  const t = new AffineIntervalTree()
  for (const i of ivls) t.insert(i)
  return t
}

describe('etcd range_perm_cache_test.go', () => {
  const ranges = [
    { perms: [ivl('a', 'c'), ivl('x', 'z')], begin: 'a', end: 'z', want: false },
    { perms: [ivl('a', 'f'), ivl('c', 'd'), ivl('f', 'z')], begin: 'a', end: 'z', want: true },
    { perms: [ivl('a', 'd'), ivl('a', 'b'), ivl('c', 'f')], begin: 'a', end: 'f', want: true },
  ]
  for (const [i, c] of ranges.entries()) {
    it(`TestRangePermission #${i}`, () => assert.equal(tree(c.perms).contains(ivl(c.begin, c.end)), c.want))
  }

  const keys = [
    { perms: [ivl('a', 'c'), ivl('x', 'z')], key: 'f', want: false },
    { perms: [ivl('a', 'f'), ivl('c', 'd'), ivl('f', 'z')], key: 'b', want: true },
    { perms: [ivl('a', 'd'), ivl('a', 'b'), ivl('c', 'f')], key: 'd', want: true },
    { perms: [ivl('a', 'd'), ivl('a', 'b'), ivl('c', 'f')], key: 'f', want: false },
  ]
  for (const [i, c] of keys.entries()) {
    it(`TestKeyPermission #${i}`, () => assert.equal(tree(c.perms).intersects(affinePoint(enc(c.key))), c.want))
  }
})

describe('the affine order and adt.Interval.Compare', () => {
  const affine: Array<[string, Uint8Array, Uint8Array, number]> = [
    ['empty equals empty', INF, INF, 0],
    ['empty is above every key', INF, enc('\xff\xff'), 1],
    ['every key is below empty', enc('a'), INF, -1],
    ['bytes order otherwise', enc('a'), enc('a\0'), -1],
    ['equal keys', enc('ab'), enc('ab'), 0],
  ]
  for (const [name, a, b, want] of affine) it(`compareAffine: ${name}`, () => assert.equal(compareAffine(a, b), want))

  const cmp: Array<[string, AffineInterval, AffineInterval, number]> = [
    ['left: ends at the other begin', ivl('a', 'b'), ivl('b', 'c'), -1],
    ['right: begins at the other end', ivl('b', 'c'), ivl('a', 'b'), 1],
    ['overlap', ivl('a', 'c'), ivl('b', 'd'), 0],
    ['an end of +inf overlaps everything to its right', { begin: enc('a'), end: INF }, ivl('x', 'y'), 0],
    ['a begin of +inf is right of everything with a finite end', { begin: INF, end: enc('\0') }, ivl('a', 'z'), 1],
    ['an inverted query overlaps an interval holding its begin', ivl('d', 'b'), ivl('c', 'e'), 0],
    ['an inverted query is right of an interval ending at or before its begin', ivl('d', 'b'), ivl('a', 'c'), 1],
    ['an inverted query is left of an interval beginning after its begin', ivl('d', 'b'), ivl('e', 'f'), -1],
    ['an empty query [k, k) overlaps an interval holding k', ivl('b', 'b'), ivl('a', 'c'), 0],
  ]
  for (const [name, a, b, want] of cmp) it(`compareIntervals: ${name}`, () => assert.equal(compareIntervals(a, b), want))

  it('affinePoint appends a zero byte and does not alias the key', () => {
    const k = enc('ab')
    const p = affinePoint(k)
    assert.deepEqual(p.end, enc('ab\0'))
    k[0] = 0x7a
    assert.deepEqual(p.end, enc('ab\0'))
  })
})

// Permissions -> intervals (etcd's getMergedPerms) and the two kinds of check.

const none = new Uint8Array(0)
const perm = (permType: PermissionType, key: string, rangeEnd = ''): Permission => ({ permType, key: enc(key), rangeEnd: enc(rangeEnd) })
const user = (name: string, roles: string[]): User => ({ name, password: '', roles, noPassword: false })

describe('RangePermCache', () => {
  const roles = new Map<string, Role>([
    ['point', { name: 'point', keyPermission: [perm('READ', 'a')] }],
    ['fromkey', { name: 'fromkey', keyPermission: [perm('READ', 'm', '\0')] }],
    ['range', { name: 'range', keyPermission: [perm('WRITE', 'c', 'e')] }],
    ['rw', { name: 'rw', keyPermission: [perm('READWRITE', 'x', 'y')] }],
    // Two roles whose permissions meet: [b, e) from one, [a, g) from the other, inserted in that order.
    ['r1', { name: 'r1', keyPermission: [perm('READ', 'b', 'e')] }],
    ['r2', { name: 'r2', keyPermission: [perm('READ', 'a', 'g')] }],
    ['both', { name: 'both', keyPermission: [perm('READ', 'a', 'g'), perm('READ', 'b', 'e')] }],
    ['emptykey', { name: 'emptykey', keyPermission: [perm('READ', '', '\0')] }],
  ])
  const cache = new RangePermCache()
  cache.refresh(
    [
      user('p', ['point']),
      user('f', ['fromkey']),
      user('w', ['range', 'rw']),
      user('split', ['r1', 'r2']),
      user('joined', ['both']),
      user('ghost', ['root', 'nosuchrole', 'point']),
      user('e', ['emptykey']),
    ],
    (n) => roles.get(n),
  )
  const cases: Array<{ name: string; user: string; key: string; end?: string; access: AccessType; want: boolean }> = [
    { name: 'a point permission holds its key', user: 'p', key: 'a', access: 'READ', want: true },
    { name: 'a point permission holds only its key', user: 'p', key: 'a\0', access: 'READ', want: false },
    { name: 'a point permission covers the range [key, key+"\\0")', user: 'p', key: 'a', end: 'a\0', access: 'READ', want: true },
    { name: 'a point permission does not cover a longer range', user: 'p', key: 'a', end: 'b', access: 'READ', want: false },
    { name: 'READ does not give WRITE', user: 'p', key: 'a', access: 'WRITE', want: false },
    { name: 'rangeEnd "\\0" reaches to +inf: a key far above', user: 'f', key: 'zzz', access: 'READ', want: true },
    { name: 'rangeEnd "\\0" reaches to +inf: the range from the key on', user: 'f', key: 'm', end: '\0', access: 'READ', want: true },
    { name: 'rangeEnd "\\0" reaches to +inf: a range from below is not covered', user: 'f', key: 'l', end: '\0', access: 'READ', want: false },
    { name: 'WRITE on a range', user: 'w', key: 'c', end: 'e', access: 'WRITE', want: true },
    { name: 'WRITE does not give READ', user: 'w', key: 'c', access: 'READ', want: false },
    { name: 'the range end is exclusive', user: 'w', key: 'e', access: 'WRITE', want: false },
    { name: 'READWRITE gives READ', user: 'w', key: 'x', access: 'READ', want: true },
    { name: 'READWRITE gives WRITE', user: 'w', key: 'x', end: 'y', access: 'WRITE', want: true },
    { name: 'a gap between two roles is not covered', user: 'w', key: 'c', end: 'y', access: 'WRITE', want: false },
    { name: 'missing roles (root, unknown) are skipped', user: 'ghost', key: 'a', access: 'READ', want: true },
    { name: 'an unknown user has nothing', user: 'nobody', key: 'a', access: 'READ', want: false },
    { name: 'a permission on "" from "\\0" begins at +inf: covers nothing', user: 'e', key: 'a', access: 'READ', want: false },
    { name: 'inverted range: a permission holding the begin passes', user: 'joined', key: 'f', end: 'a', access: 'READ', want: true },
    { name: 'inverted range: no permission holds the begin', user: 'joined', key: 'h', end: 'a', access: 'READ', want: false },
    // [b, e) inserted first becomes the root, [a, g) its left child; Visit for [f, a) finds f right of the
    // root and prunes both subtrees because [b, max g) begins at or after the query's end a. etcd says no.
    { name: 'inverted range: the tree shape decides, as in etcd (pruned)', user: 'split', key: 'f', end: 'a', access: 'READ', want: false },
    { name: 'an empty range [k, k) passes when k is held', user: 'w', key: 'd', end: 'd', access: 'WRITE', want: true },
    { name: 'an empty range [k, k) fails when k is not held', user: 'w', key: 'e', end: 'e', access: 'WRITE', want: false },
  ]
  for (const c of cases) {
    it(c.name, () => assert.equal(cache.isRangeOpPermitted(c.user, enc(c.key), c.end === undefined ? none : enc(c.end), c.access), c.want))
  }

  it('refresh replaces the cache: users not given are gone', () => {
    const c = new RangePermCache()
    c.refresh([user('p', ['point'])], (n) => roles.get(n))
    assert.equal(c.isRangeOpPermitted('p', enc('a'), none, 'READ'), true)
    c.refresh([], (n) => roles.get(n))
    assert.equal(c.isRangeOpPermitted('p', enc('a'), none, 'READ'), false)
  })
})

// Properties. Keys from a small alphabet so that intervals meet, nest and share ends often.

const keyArb = fc.array(fc.constantFrom(0x00, 0x61, 0x62, 0x63, 0xff), { minLength: 1, maxLength: 3 }).map((a) => new Uint8Array(a))
/** A well-formed interval: begin < end, end possibly +inf. */
const wellFormed = fc
  .tuple(keyArb, keyArb, fc.boolean())
  .filter(([a, b, inf]) => inf || compareAffine(a, b) < 0)
  .map(([a, b, inf]): AffineInterval => ({ begin: a, end: inf ? INF : b }))

/** adt's Contains over a given visit sequence. */
function containsOver(visited: readonly AffineInterval[], q: AffineInterval): boolean {
  let minBegin: Uint8Array | undefined
  let maxEnd: Uint8Array = INF
  for (const n of visited) {
    if (minBegin === undefined) {
      minBegin = n.begin
      maxEnd = n.end
      continue
    }
    if (compareAffine(maxEnd, n.begin) < 0) return false
    if (compareAffine(n.end, maxEnd) > 0) maxEnd = n.end
  }
  return minBegin !== undefined && compareAffine(maxEnd, q.end) >= 0 && compareAffine(minBegin, q.begin) <= 0
}

/** The list-scan oracle: every interval adt's Compare calls overlapping, stably sorted by begin. */
const listVisit = (ivls: readonly AffineInterval[], q: AffineInterval): AffineInterval[] =>
  ivls.filter((i) => compareIntervals(q, i) === 0).map((i, n) => ({ i, n }))
    .sort((x, y) => compareAffine(x.i.begin, y.i.begin) || x.n - y.n).map((x) => x.i)

/** Plain coverage: walk from q.begin, always jumping to the farthest end of an interval holding the cursor. */
function covers(ivls: readonly AffineInterval[], q: AffineInterval): boolean {
  let cur = q.begin
  for (;;) {
    if (compareAffine(cur, q.end) >= 0) return true
    let best: Uint8Array | undefined
    for (const i of ivls) {
      if (compareAffine(i.begin, cur) <= 0 && compareAffine(cur, i.end) < 0 && (best === undefined || compareAffine(i.end, best) > 0)) best = i.end
    }
    if (best === undefined) return false
    cur = best
  }
}

describe('AffineIntervalTree properties (well-formed intervals)', () => {
  const query = fc.tuple(keyArb, fc.oneof(keyArb, fc.constant(INF))).map(([a, b]): AffineInterval => ({ begin: a, end: b }))

  it('visit reaches exactly the intervals that overlap a non-inverted query, in begin order (list scan)', () => {
    fc.assert(
      fc.property(fc.array(wellFormed, { maxLength: 24 }), fc.array(query, { minLength: 1, maxLength: 8 }), (ivls, qs) => {
        const t = tree(ivls)
        assert.equal(t.size, ivls.length)
        for (const q of qs.filter((x) => compareAffine(x.begin, x.end) <= 0)) {
          const got: AffineInterval[] = []
          t.visit(q, (i) => (got.push(i), true))
          assert.deepEqual(got.map(show), listVisit(ivls, q).map(show), `query ${show(q)}`)
          assert.equal(t.contains(q), containsOver(listVisit(ivls, q), q), `contains ${show(q)}`)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('contains is coverage, and intersects(point) is membership, for well-formed queries', () => {
    fc.assert(
      fc.property(fc.array(wellFormed, { maxLength: 16 }), fc.array(query, { minLength: 1, maxLength: 8 }), (ivls, qs) => {
        const t = tree(ivls)
        for (const q of qs) {
          const holds = ivls.some((i) => compareAffine(i.begin, q.begin) <= 0 && compareAffine(q.begin, i.end) < 0)
          assert.equal(t.intersects(affinePoint(q.begin)), holds, `point ${show(affinePoint(q.begin))}`)
          if (compareAffine(q.begin, q.end) < 0) assert.equal(t.contains(q), covers(ivls, q), `range ${show(q)}`)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('visit stops when the visitor returns false', () => {
    const t = tree([ivl('a', 'c'), ivl('b', 'd'), ivl('c', 'e')])
    const got: string[] = []
    t.visit(ivl('a', 'z'), (i) => (got.push(show(i)), got.length < 2))
    assert.deepEqual(got, [show(ivl('a', 'c')), show(ivl('b', 'd'))])
  })
})

describe('RangePermCache property (well-formed permissions)', () => {
  const permArb = fc
    .tuple(fc.constantFrom<PermissionType>('READ', 'WRITE', 'READWRITE'), keyArb, fc.oneof(fc.constant('point'), fc.constant('fromkey'), keyArb))
    .filter(([, k, e]) => typeof e === 'string' || compareAffine(k, e) < 0)
    .map(([permType, key, e]): Permission => ({
      permType,
      key,
      rangeEnd: e === 'point' ? none : e === 'fromkey' ? new Uint8Array([0]) : e,
    }))
  /** What a permission means: the set of keys it holds, as a predicate. */
  const holds = (p: Permission, k: Uint8Array): boolean =>
    p.rangeEnd.length === 0
      ? compareAffine(p.key, k) === 0
      : compareAffine(p.key, k) <= 0 && (p.rangeEnd.length === 1 && p.rangeEnd[0] === 0 ? true : compareAffine(k, p.rangeEnd) < 0)

  it('a key check passes exactly when some permission of the right type holds the key', () => {
    fc.assert(
      fc.property(fc.array(fc.array(permArb, { maxLength: 5 }), { minLength: 1, maxLength: 3 }), keyArb, (rolePerms, key) => {
        const roles = new Map(rolePerms.map((keyPermission, i) => [`r${i}`, { name: `r${i}`, keyPermission }]))
        const c = new RangePermCache()
        c.refresh([user('u', [...roles.keys()])], (n) => roles.get(n))
        for (const access of ['READ', 'WRITE'] as const) {
          const want = rolePerms.flat().some((p) => (p.permType === 'READWRITE' || p.permType === access) && holds(p, key))
          assert.equal(c.isRangeOpPermitted('u', key, none, access), want)
        }
      }),
      { numRuns: 300 },
    )
  })
})
