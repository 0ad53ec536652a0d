// RecentEvents (src/mvcc/watchable-store-recent.ts): what it covers, whole-revision trimming, restart on a gap.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Event } from '../../../src/mvcc/kv.js'
import { RecentEvents } from '../../../src/mvcc/watchable-store-recent.js'

/** A PUT of `key` at `rev` with a 2-byte value: 1 + 2 + 128 bytes of the budget per one-letter key. */
const put = (key: string, rev: number): Event => ({
  type: 'PUT',
  kv: { key: Buffer.from(key), value: Buffer.from('vv'), createRevision: rev, modRevision: rev, version: 1, lease: 0n },
})
const PER_EVENT = 131

/** Append revisions from..to, `perRev` events each (keys a, b, c, …). */
function fill(r: RecentEvents, from: number, to: number, perRev = 1): void {
  for (let rev = from; rev <= to; rev++) {
    const evs = Array.from({ length: perRev }, (_, i) => put(String.fromCharCode(97 + i), rev))
    r.append(rev, evs, evs.map((e) => Buffer.from(e.kv.key).toString('latin1')))
  }
}

const held = (r: RecentEvents, minRev: number): string[] => {
  const out: string[] = []
  r.forEachFrom(minRev, (e, ks) => out.push(`${ks}@${e.kv.modRevision}`))
  return out
}

describe('RecentEvents', () => {
  const cases: Array<{ name: string; run: () => void }> = [
    {
      name: 'starts empty after its revision and covers nothing below the next',
      run: () => {
        const r = new RecentEvents(5, 1 << 20)
        assert.deepEqual([r.from, r.upTo], [6, 5])
        assert.equal(r.covers(6, 5), true, 'an empty span at the current revision')
        assert.equal(r.covers(5, 5), false)
      },
    },
    {
      name: 'holds every appended revision in order; covers only up to the current revision',
      run: () => {
        const r = new RecentEvents(1, 1 << 20)
        fill(r, 2, 6, 2)
        assert.deepEqual([r.from, r.upTo], [2, 6])
        assert.deepEqual(held(r, 5), ['a@5', 'b@5', 'a@6', 'b@6'])
        assert.equal(r.covers(2, 6), true)
        assert.equal(r.covers(1, 6), false, 'below from')
        assert.equal(r.covers(3, 7), false, 'the store is past upTo')
      },
    },
    {
      name: 'trims the oldest revisions whole, down to 3/4 of the budget',
      run: () => {
        const r = new RecentEvents(1, 10 * PER_EVENT)
        fill(r, 2, 5, 3) // 12 events > 10: drop whole revisions until <= 7.5 events are held
        assert.deepEqual([r.from, r.upTo], [4, 5])
        assert.deepEqual(held(r, 0), ['a@4', 'b@4', 'c@4', 'a@5', 'b@5', 'c@5'])
        fill(r, 6, 20, 1)
        assert.equal(r.upTo, 20)
        assert.ok(held(r, 0).length <= 10)
        assert.equal(held(r, 0)[0], `a@${r.from}`, 'from is the first revision held')
      },
    },
    {
      name: 'a revision out of sequence forgets everything and starts again there',
      run: () => {
        const r = new RecentEvents(1, 1 << 20)
        fill(r, 2, 4)
        fill(r, 7, 8)
        assert.deepEqual([r.from, r.upTo], [7, 8])
        assert.deepEqual(held(r, 0), ['a@7', 'a@8'])
      },
    },
    {
      name: 'reset forgets everything',
      run: () => {
        const r = new RecentEvents(1, 1 << 20)
        fill(r, 2, 4)
        r.reset(4)
        assert.deepEqual([r.from, r.upTo, held(r, 0).length], [5, 4, 0])
        fill(r, 5, 5)
        assert.deepEqual(held(r, 0), ['a@5'])
      },
    },
    {
      name: 'a budget of 0 holds nothing and covers nothing already written',
      run: () => {
        const r = new RecentEvents(1, 0)
        fill(r, 2, 4)
        assert.deepEqual([r.from, r.upTo, held(r, 0).length], [5, 4, 0])
        assert.equal(r.covers(4, 4), false)
      },
    },
  ]
  for (const c of cases) it(c.name, c.run)
})
