// WatcherGroup (src/mvcc/watcher-group.ts) against a brute-force scan of its members with watches(), and
// the catch-up batching (newWatcherBatch, addToBatch) against a naive per-watcher filter-and-cap.
//
// Replay a random run with its seed: WG_SEEDS=1,2,3.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { FROM_KEY, bytesToLatin1, prefixEnd, toRangeEnd, type RangeEnd } from '../../../src/pkg/bytes.js'
import { ORDINAL_WIDTH } from '../../../src/pkg/interval-tree.js'
import type { Event } from '../../../src/mvcc/kv.js'
import { Watcher, NO_FILTERS, watches, type WatchStream } from '../../../src/mvcc/watcher.js'
import { WatcherGroup, addToBatch, newWatcherBatch, type EventBatch } from '../../../src/mvcc/watcher-group.js'
import { Prng, seedsFromEnv } from '../../helpers/prng.js'

/** The group never touches a watcher's stream. */
const NO_STREAM = {} as WatchStream

const b = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))
const cat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))
const show = (k: Uint8Array): string => Buffer.from(k).toString('hex')
const showEnd = (e: RangeEnd): string => (e === undefined ? 'single' : e === FROM_KEY ? 'FROM_KEY' : show(e))

let nextId = 1
function watcher(key: Uint8Array, end: RangeEnd, minRev = 1): Watcher {
  const w = new Watcher(nextId++, key, end, minRev, NO_FILTERS, NO_STREAM)
  w.minRev = minRev
  return w
}

const ids = (ws: Iterable<Watcher>): number[] => [...ws].map((w) => Number(w.id)).sort((x, y) => x - y)

/** Every call of forEachMatch, duplicates kept (the contract says each watcher at most once per call). */
function matched(g: WatcherGroup, key: Uint8Array): number[] {
  const out: Watcher[] = []
  g.forEachMatch(bytesToLatin1(key), key, (w) => out.push(w))
  return ids(out)
}

const bruteMatched = (members: Iterable<Watcher>, key: Uint8Array): number[] => ids([...members].filter((w) => watches(w, key)))

// Keys: a small alphabet with the extreme bytes, short keys and keys under a shared prefix longer than
// the interval tree's ordinal, so many distinct keys collide numerically and only the exact compare splits them.

const LONG = new Uint8Array(ORDINAL_WIDTH + 3).fill(0x61)
const ALPHABET = [0x00, 0x01, 0x61, 0x62, 0x7f, 0xfe, 0xff]

function randomKey(r: Prng): Uint8Array {
  const tail = Uint8Array.from({ length: r.int(4) }, () => r.pick(ALPHABET))
  if (r.chance(0.4)) return cat(LONG.subarray(0, r.between(ORDINAL_WIDTH - 2, LONG.length)), tail)
  return tail.length === 0 ? Uint8Array.of(r.pick(ALPHABET)) : tail
}

/** A watcher's range as ServerWatchStream builds it: single key, [key, end), prefix, or from key. */
function randomRange(r: Prng): { key: Uint8Array; end: RangeEnd } {
  const key = randomKey(r)
  switch (r.int(4)) {
    case 0:
      return { key, end: undefined }
    case 1: {
      // A non-empty [key, end): end > key (the stream refuses an empty range before the group sees it).
      let end = randomKey(r)
      if (Buffer.compare(end, key) <= 0) end = cat(key, end.length === 0 ? Uint8Array.of(0) : end)
      return { key, end }
    }
    case 2:
      return { key, end: toRangeEnd(prefixEnd(key)) }
    default:
      return { key, end: FROM_KEY }
  }
}

describe('WatcherGroup', () => {
  const edgeCases: Array<{ name: string; ranges: Array<[string, RangeEnd]>; key: string; want: number[] }> = [
    { name: 'a single-key watcher matches only its key', ranges: [['ab', undefined]], key: 'ab', want: [0] },
    { name: 'a single-key watcher does not match an extension of its key', ranges: [['ab', undefined]], key: 'abc', want: [] },
    { name: 'a range includes its start', ranges: [['b', b('d')]], key: 'b', want: [0] },
    { name: 'a range excludes its end', ranges: [['b', b('d')]], key: 'd', want: [] },
    { name: 'a range includes keys just below its end', ranges: [['b', b('d')]], key: 'c\xff\xff', want: [0] },
    { name: 'FROM_KEY from \\0 matches every key', ranges: [['\x00', FROM_KEY]], key: '\xff\xff\xff', want: [0] },
    { name: 'FROM_KEY excludes keys below its start', ranges: [['b', FROM_KEY]], key: 'a\xff', want: [] },
    { name: 'the prefix of \\xff runs to the end of the keyspace', ranges: [['\xff', toRangeEnd(prefixEnd(b('\xff')))]], key: '\xff\xff\x00', want: [0] },
    { name: 'a prefix with a trailing \\xff ends at the next byte', ranges: [['a\xff', toRangeEnd(prefixEnd(b('a\xff')))]], key: 'b', want: [] },
    {
      name: 'identical ranges each match once',
      ranges: [['a', b('c')], ['a', b('c')], ['b', undefined], ['b', undefined]],
      key: 'b',
      want: [0, 1, 2, 3],
    },
    { name: 'the empty key is matched by a range from \\0', ranges: [['\x00', b('\x01')]], key: '\x00', want: [0] },
  ]
  for (const c of edgeCases) {
    it(c.name, () => {
      const g = new WatcherGroup()
      const ws = c.ranges.map(([k, e]) => watcher(b(k), e))
      for (const w of ws) g.add(w)
      const want = ids(c.want.map((i) => ws[i] as Watcher))
      assert.deepEqual(matched(g, b(c.key)), want)
      assert.equal(g.contains(c.key, b(c.key)), want.length !== 0)
    })
  }

  it('deleting one of several identical watchers keeps the others matching', () => {
    const g = new WatcherGroup()
    const [x, y, s1, s2] = [watcher(b('a'), b('c')), watcher(b('a'), b('c')), watcher(b('k'), undefined), watcher(b('k'), undefined)]
    for (const w of [x, y, s1, s2]) g.add(w)
    assert.equal(g.delete(x), true)
    assert.equal(g.delete(x), false, 'a second delete finds nothing')
    assert.equal(g.delete(s1), true)
    assert.deepEqual(matched(g, b('b')), [y.id])
    assert.deepEqual(matched(g, b('k')), [s2.id])
    assert.equal(g.delete(y), true)
    assert.equal(g.delete(s2), true)
    assert.deepEqual([matched(g, b('b')), matched(g, b('k')), g.size], [[], [], 0])
    assert.equal(g.contains('k', b('k')), false)
    assert.equal(g.contains('b', b('b')), false)
  })

  for (const seed of seedsFromEnv('WG_SEEDS', [1, 2, 3])) {
    it(`forEachMatch and contains agree with a brute-force scan over random adds and deletes (seed ${seed})`, () => {
      const r = new Prng(seed)
      const g = new WatcherGroup()
      const members = new Set<Watcher>()
      const removed: Watcher[] = []
      let hits = 0
      let queries = 0
      for (let step = 0; step < 500; step++) {
        const op = r.int(10)
        if (op < 4 || members.size === 0) {
          // Sometimes a copy of an existing range, so identical intervals share a tree record.
          const existing = members.size !== 0 && r.chance(0.2) ? r.pick([...members]) : undefined
          const { key, end } = existing ?? randomRange(r)
          const w = watcher(key, end)
          g.add(w)
          members.add(w)
        } else if (op < 6) {
          const w = r.chance(0.15) && removed.length !== 0 ? r.pick(removed) : r.pick([...members])
          assert.equal(g.delete(w), members.delete(w), `seed ${seed} step ${step}: delete result`)
          removed.push(w)
        } else {
          // Query at a random key, at an existing watcher's bounds, and just around them.
          const w = members.size !== 0 ? r.pick([...members]) : undefined
          const probes = [randomKey(r)]
          if (w !== undefined) {
            probes.push(w.key, cat(w.key, Uint8Array.of(0)), cat(w.key, Uint8Array.of(0xff)))
            if (w.end instanceof Uint8Array) probes.push(w.end, w.end.subarray(0, w.end.length - 1))
          }
          for (const k of probes) {
            const want = bruteMatched(members, k)
            const why = `seed ${seed} step ${step} key ${show(k)}`
            assert.deepEqual(matched(g, k), want, `${why}: forEachMatch`)
            assert.equal(g.contains(bytesToLatin1(k), k), want.length !== 0, `${why}: contains`)
            queries++
            if (want.length !== 0) hits++
          }
        }
        assert.equal(g.size, members.size)
      }
      // The run is only worth something if queries both hit and miss.
      assert.ok(hits > queries / 5 && hits < queries, `seed ${seed}: ${hits} of ${queries} queries matched`)
      for (const w of [...members]) {
        assert.equal(g.has(w), true)
        g.delete(w)
        assert.equal(g.has(w), false, `${showEnd(w.end)}`)
      }
      assert.equal(g.size, 0)
      assert.equal(g.contains('\x00', Uint8Array.of(0)), false)
    })
  }
})

// Batching

const put = (key: string, rev: number): Event => ({
  type: 'PUT',
  kv: { key: b(key), value: b('v'), createRevision: rev, modRevision: rev, version: 1, lease: 0n },
})

/** The oracle: a watcher's events in order, from its minRev on, cut after maxRevs distinct revisions. */
function naiveBatch(w: Watcher, events: readonly Event[], maxRevs: number): EventBatch | undefined {
  const mine = events.filter((e) => watches(w, e.kv.key) && e.kv.modRevision >= w.minRev)
  if (mine.length === 0) return undefined
  const revs = [...new Set(mine.map((e) => e.kv.modRevision))]
  const kept = revs.slice(0, maxRevs)
  const last = kept[kept.length - 1] as number
  return { events: mine.filter((e) => e.kv.modRevision <= last), revs: kept.length, moreRev: revs[maxRevs] ?? 0 }
}

describe('addToBatch', () => {
  const cases: Array<{ name: string; revs: number[]; maxRevs: number; want: { revs: number[]; distinct: number; moreRev: number } }> = [
    { name: 'keeps everything under the cap', revs: [2, 3, 3, 4], maxRevs: 3, want: { revs: [2, 3, 3, 4], distinct: 3, moreRev: 0 } },
    { name: 'stops at the first revision over the cap and remembers it', revs: [2, 2, 3, 4, 4, 5], maxRevs: 2, want: { revs: [2, 2, 3], distinct: 2, moreRev: 4 } },
    { name: 'a cap of one still takes every event of that revision', revs: [7, 7, 7, 8], maxRevs: 1, want: { revs: [7, 7, 7], distinct: 1, moreRev: 8 } },
    { name: 'ignores everything once full', revs: [1, 2, 3, 4, 5], maxRevs: 1, want: { revs: [1], distinct: 1, moreRev: 2 } },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const eb: EventBatch = { events: [], revs: 0, moreRev: 0 }
      for (const rev of c.revs) addToBatch(eb, put('k', rev), c.maxRevs)
      assert.deepEqual({ revs: eb.events.map((e) => e.kv.modRevision), distinct: eb.revs, moreRev: eb.moreRev }, c.want)
    })
  }

  it('caps at etcd\'s 1000 revisions', () => {
    const eb: EventBatch = { events: [], revs: 0, moreRev: 0 }
    for (let rev = 10; rev < 1510; rev++) addToBatch(eb, put('k', rev), 1000)
    assert.deepEqual([eb.events.length, eb.revs, eb.moreRev, eb.events[999]?.kv.modRevision], [1000, 1000, 1010, 1009])
  })
})

describe('newWatcherBatch', () => {
  it('gives each matching watcher its events from its minRev on, and nothing to the others', () => {
    const g = new WatcherGroup()
    const all = watcher(b('\x00'), FROM_KEY, 1)
    const late = watcher(b('a'), b('b'), 4)
    const single = watcher(b('z'), undefined, 1)
    const none = watcher(b('q'), undefined, 1)
    for (const w of [all, late, single, none]) g.add(w)
    const events = [put('a1', 2), put('z', 2), put('a2', 3), put('a3', 4), put('c', 4), put('a4', 5)]
    const wb = newWatcherBatch(g, events, events.map((e) => bytesToLatin1(e.kv.key)), 1000)
    const got = new Map([...wb].map(([w, eb]) => [w.id, eb.events.map((e) => `${Buffer.from(e.kv.key).toString()}@${e.kv.modRevision}`)]))
    assert.deepEqual(got, new Map([
      [all.id, ['a1@2', 'z@2', 'a2@3', 'a3@4', 'c@4', 'a4@5']],
      [late.id, ['a3@4', 'a4@5']],
      [single.id, ['z@2']],
    ]))
  })

  it('single-key watchers of a key with the same minRev share one batch; another minRev gets its own', () => {
    const g = new WatcherGroup()
    const [w1, w2, w3] = [watcher(b('k'), undefined, 3), watcher(b('k'), undefined, 3), watcher(b('k'), undefined, 4)]
    for (const w of [w1, w2, w3]) g.add(w)
    const events = [put('k', 2), put('k', 3), put('j', 3), put('k', 4)]
    const wb = newWatcherBatch(g, events, events.map((e) => bytesToLatin1(e.kv.key)), 1000)
    assert.equal(wb.get(w1), wb.get(w2))
    assert.deepEqual(wb.get(w1)?.events, [events[1], events[3]])
    assert.deepEqual(wb.get(w3)?.events, [events[3]])
  })

  it('an empty group gives an empty batch', () => {
    assert.equal(newWatcherBatch(new WatcherGroup(), [put('a', 2)], ['a'], 1000).size, 0)
  })

  for (const seed of seedsFromEnv('WG_SEEDS', [11, 12, 13])) {
    it(`agrees with a naive filter-and-cap per watcher (seed ${seed})`, () => {
      const r = new Prng(seed)
      for (let round = 0; round < 30; round++) {
        const g = new WatcherGroup()
        const ws: Watcher[] = []
        for (let i = r.between(1, 12); i > 0; i--) {
          const { key, end } = randomRange(r)
          const w = watcher(key, end, r.between(1, 40))
          ws.push(w)
          g.add(w)
        }
        const events: Event[] = []
        for (let rev = 2; rev < 40; rev++) for (let n = r.int(4); n > 0; n--) events.push(put(Buffer.from(randomKey(r)).toString('latin1'), rev))
        const maxRevs = r.between(1, 6)
        const wb = newWatcherBatch(g, events, events.map((e) => bytesToLatin1(e.kv.key)), maxRevs)
        for (const w of ws) {
          const want = naiveBatch(w, events, maxRevs)
          const got = wb.get(w)
          assert.deepEqual(
            got === undefined ? undefined : { events: got.events, revs: got.revs, moreRev: got.moreRev },
            want,
            `seed ${seed} round ${round} watcher ${show(w.key)}..${showEnd(w.end)} minRev ${w.minRev} maxRevs ${maxRevs}`,
          )
        }
      }
    })
  }
})
