import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { TreeIndex } from '../../../src/mvcc/tree-index.js'
import { FROM_KEY, type RangeEnd } from '../../../src/pkg/bytes.js'

const b = (s: string): Uint8Array => Buffer.from(s, 'latin1')
const s = (u: Uint8Array): string => Buffer.from(u).toString('latin1')

function index(): TreeIndex {
  const ti = new TreeIndex()
  ti.put(b('foo'), { main: 2, sub: 0 })
  ti.put(b('foo1'), { main: 3, sub: 0 })
  ti.put(b('foo2'), { main: 4, sub: 0 })
  ti.put(b('foo2'), { main: 5, sub: 0 })
  ti.tombstone(b('foo1'), { main: 6, sub: 0 })
  ti.put(b('\x00'), { main: 7, sub: 0 })
  ti.put(b('\xff'), { main: 7, sub: 1 })
  return ti
}

describe('TreeIndex.range', () => {
  const cases: { name: string; key: string; end: RangeEnd | string; rev: number; keys: string[]; mods: number[] }[] = [
    { name: 'single key', key: 'foo', end: undefined, rev: 7, keys: ['foo'], mods: [2] },
    { name: 'single missing key', key: 'fo', end: undefined, rev: 7, keys: [], mods: [] },
    { name: 'half-open range', key: 'foo', end: 'foo2', rev: 5, keys: ['foo', 'foo1'], mods: [2, 3] },
    { name: 'deleted key disappears after its tombstone', key: 'foo', end: 'fop', rev: 6, keys: ['foo', 'foo2'], mods: [2, 5] },
    { name: 'historical revision', key: 'foo', end: 'fop', rev: 4, keys: ['foo', 'foo1', 'foo2'], mods: [2, 3, 4] },
    { name: 'from key to the end', key: 'foo1', end: FROM_KEY, rev: 7, keys: ['foo2', '\xff'], mods: [5, 7] },
    { name: 'everything', key: '\x00', end: FROM_KEY, rev: 7, keys: ['\x00', 'foo', 'foo2', '\xff'], mods: [7, 2, 5, 7] },
    { name: 'inverted range is empty', key: 'z', end: 'a', rev: 7, keys: [], mods: [] },
    { name: 'before anything existed', key: '\x00', end: FROM_KEY, rev: 1, keys: [], mods: [] },
  ]
  const ti = index()
  for (const c of cases) {
    it(c.name, () => {
      const end = typeof c.end === 'string' ? b(c.end) : c.end
      const got = ti.range(b(c.key), end, c.rev)
      assert.deepEqual(got.map((k) => s(k.key)), c.keys)
      assert.deepEqual(got.map((k) => k.modified.main), c.mods)
      assert.equal(ti.count(b(c.key), end, c.rev), c.keys.length)
    })
  }

  it('stops at the limit', () => {
    assert.deepEqual(index().range(b('\x00'), FROM_KEY, 7, 2).map((k) => s(k.key)), ['\x00', 'foo'])
  })
})

describe('TreeIndex.compact', () => {
  it('drops dead keys and keeps the newest revision at or below the compact revision', () => {
    const ti = index()
    const available = ti.compact(6)
    // foo1's tombstone at exactly 6 survives this compaction (etcd-io/etcd#18274) and goes at the next.
    assert.deepEqual([...available].sort(), ['2_0', '5_0', '6_0'])
    assert.notEqual(ti.keyIndex(b('foo1')), undefined)
    assert.equal(ti.compact(7).has('6_0'), false)
    assert.equal(ti.keyIndex(b('foo1')), undefined, 'foo1 was deleted at 6, so after compacting past 6 nothing of it survives')
    assert.deepEqual(ti.range(b('foo'), b('fop'), 7).map((k) => s(k.key)), ['foo', 'foo2'])
  })

  it('rangeSince lists revisions of every key in revision order', () => {
    const ti = index()
    assert.deepEqual(ti.rangeSince(b('foo'), b('fop'), 3).map((r) => `${r.main}.${r.sub}`), ['3.0', '4.0', '5.0', '6.0'])
  })
})

describe('TreeIndex against a brute-force scan', () => {
  it('agrees on random keys, puts, deletes and ranges', () => {
    let seed = 42
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const alphabet = ['\x00', 'a', 'b', '\xff']
    const key = (): string => Array.from({ length: 1 + rnd(3) }, () => alphabet[rnd(4)]).join('')
    const ti = new TreeIndex()
    const history: { rev: number; key: string; live: boolean }[] = []
    const live = new Set<string>()
    for (let rev = 2; rev < 400; rev++) {
      const k = key()
      if (live.has(k) && rnd(3) === 0) {
        ti.tombstone(b(k), { main: rev, sub: 0 })
        live.delete(k)
        history.push({ rev, key: k, live: false })
      } else {
        ti.put(b(k), { main: rev, sub: 0 })
        live.add(k)
        history.push({ rev, key: k, live: true })
      }
    }
    for (let i = 0; i < 500; i++) {
      const at = 1 + rnd(400)
      const start = key()
      const end = rnd(4) === 0 ? FROM_KEY : b(key())
      const state = new Map<string, number>()
      for (const h of history) {
        if (h.rev > at) break
        if (h.live) state.set(h.key, h.rev)
        else state.delete(h.key)
      }
      const want = [...state.entries()]
        .filter(([k]) => k >= start && (end === FROM_KEY || k < s(end)))
        .sort(([x], [y]) => (x < y ? -1 : 1))
      assert.deepEqual(ti.range(b(start), end, at).map((k) => [s(k.key), k.modified.main]), want)
    }
  })
})

describe('TreeIndex.liveKeys', () => {
  it('follows puts, deletes, re-creations and undone changes, without walking the keys', () => {
    const ti = index()
    assert.equal(ti.liveKeys, ti.count(b('\x00'), FROM_KEY, 7))
    ti.put(b('foo1'), { main: 8, sub: 0 })
    assert.equal(ti.liveKeys, 5, 'a deleted key put again')
    ti.put(b('foo1'), { main: 9, sub: 0 })
    assert.equal(ti.liveKeys, 5, 'a live key put again')
    ti.tombstone(b('foo'), { main: 10, sub: 0 })
    assert.equal(ti.liveKeys, 4)
    ti.unwind(b('foo'), { main: 10, sub: 0 })
    assert.equal(ti.liveKeys, 5, 'the delete undone')
    ti.put(b('new'), { main: 11, sub: 0 })
    ti.unwind(b('new'), { main: 11, sub: 0 })
    assert.equal(ti.liveKeys, 5, 'the creation undone')
    assert.equal(ti.liveKeys, ti.count(b('\x00'), FROM_KEY, 11))
  })
})
