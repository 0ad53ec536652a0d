// Cases follow etcd's mvcc/key_index_test.go.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { KeyIndex } from '../../../src/mvcc/key-index.js'
import type { Revision } from '../../../src/mvcc/revision.js'

const r = (main: number, sub = 0): Revision => ({ main, sub })

/** put@2, put@4, tombstone@6, put@8, put@10, tombstone@12, put@14, put@14.1, tombstone@16 */
function newTestKeyIndex(): KeyIndex {
  const ki = new KeyIndex('foo')
  ki.put(2, 0)
  ki.put(4, 0)
  ki.tombstone(6, 0)
  ki.put(8, 0)
  ki.put(10, 0)
  ki.tombstone(12, 0)
  ki.put(14, 0)
  ki.put(14, 1)
  ki.tombstone(16, 0)
  return ki
}

describe('KeyIndex.get', () => {
  const cases: { rev: number; want?: { mod: Revision; created: Revision; ver: number } }[] = [
    { rev: 17 }, { rev: 16 },
    { rev: 15, want: { mod: r(14, 1), created: r(14), ver: 2 } },
    { rev: 14, want: { mod: r(14, 1), created: r(14), ver: 2 } },
    { rev: 13 }, { rev: 12 },
    { rev: 11, want: { mod: r(10), created: r(8), ver: 2 } },
    { rev: 10, want: { mod: r(10), created: r(8), ver: 2 } },
    { rev: 9, want: { mod: r(8), created: r(8), ver: 1 } },
    { rev: 8, want: { mod: r(8), created: r(8), ver: 1 } },
    { rev: 7 }, { rev: 6 },
    { rev: 5, want: { mod: r(4), created: r(2), ver: 2 } },
    { rev: 4, want: { mod: r(4), created: r(2), ver: 2 } },
    { rev: 3, want: { mod: r(2), created: r(2), ver: 1 } },
    { rev: 2, want: { mod: r(2), created: r(2), ver: 1 } },
    { rev: 1 }, { rev: 0 },
  ]
  const ki = newTestKeyIndex()
  for (const c of cases) {
    it(`at ${c.rev} ${c.want ? `finds ${c.want.mod.main}.${c.want.mod.sub}` : 'finds nothing'}`, () => {
      const got = ki.get(c.rev)
      if (c.want === undefined) assert.equal(got, undefined)
      else assert.deepEqual(got, { modified: c.want.mod, created: c.want.created, version: c.want.ver })
    })
  }
})

describe('KeyIndex.since', () => {
  const ki = newTestKeyIndex()
  const all = [r(2), r(4), r(6), r(8), r(10), r(12), r(14, 1), r(16)]
  const cases = [
    { rev: 17, want: [] as Revision[] },
    { rev: 16, want: all.slice(7) },
    { rev: 15, want: all.slice(7) },
    { rev: 14, want: all.slice(6) },
    { rev: 13, want: all.slice(6) },
    { rev: 12, want: all.slice(5) },
    { rev: 9, want: all.slice(4) },
    { rev: 8, want: all.slice(3) },
    { rev: 3, want: all.slice(1) },
    { rev: 1, want: all },
    { rev: 0, want: all },
  ]
  for (const c of cases) it(`since ${c.rev}`, () => assert.deepEqual(ki.since(c.rev), c.want))
})

describe('KeyIndex.compact', () => {
  // etcd main's TestKeyIndexCompactAndKeep: a tombstone at exactly the compact revision survives compact()
  // (etcd-io/etcd#18274) but not keep(), which hashes as older versions did.
  const cases: { rev: number; gens: Revision[][]; available: string[]; kept?: string[] }[] = [
    { rev: 1, gens: [[r(2), r(4), r(6)], [r(8), r(10), r(12)], [r(14), r(14, 1), r(16)], []], available: [] },
    { rev: 2, gens: [[r(2), r(4), r(6)], [r(8), r(10), r(12)], [r(14), r(14, 1), r(16)], []], available: ['2_0'] },
    { rev: 3, gens: [[r(2), r(4), r(6)], [r(8), r(10), r(12)], [r(14), r(14, 1), r(16)], []], available: ['2_0'] },
    { rev: 4, gens: [[r(4), r(6)], [r(8), r(10), r(12)], [r(14), r(14, 1), r(16)], []], available: ['4_0'] },
    { rev: 5, gens: [[r(4), r(6)], [r(8), r(10), r(12)], [r(14), r(14, 1), r(16)], []], available: ['4_0'] },
    { rev: 6, gens: [[r(6)], [r(8), r(10), r(12)], [r(14), r(14, 1), r(16)], []], available: ['6_0'], kept: [] },
    { rev: 7, gens: [[r(8), r(10), r(12)], [r(14), r(14, 1), r(16)], []], available: [] },
    { rev: 8, gens: [[r(8), r(10), r(12)], [r(14), r(14, 1), r(16)], []], available: ['8_0'] },
    { rev: 10, gens: [[r(10), r(12)], [r(14), r(14, 1), r(16)], []], available: ['10_0'] },
    { rev: 11, gens: [[r(10), r(12)], [r(14), r(14, 1), r(16)], []], available: ['10_0'] },
    { rev: 12, gens: [[r(12)], [r(14), r(14, 1), r(16)], []], available: ['12_0'], kept: [] },
    { rev: 13, gens: [[r(14), r(14, 1), r(16)], []], available: [] },
    { rev: 14, gens: [[r(14, 1), r(16)], []], available: ['14_1'] },
    { rev: 15, gens: [[r(14, 1), r(16)], []], available: ['14_1'] },
    { rev: 16, gens: [[r(16)], []], available: ['16_0'], kept: [] },
    { rev: 17, gens: [[]], available: [] },
  ]
  for (const c of cases) {
    it(`at ${c.rev} keeps ${JSON.stringify(c.available)}`, () => {
      const ki = newTestKeyIndex()
      const available = new Set<string>()
      ki.compact(c.rev, available)
      assert.deepEqual(ki.generations.map((g) => g.revs), c.gens)
      assert.deepEqual([...available].sort(), [...c.available].sort())
      // keep() predicts what compact() keeps, without modifying anything.
      const kept = new Set<string>()
      newTestKeyIndex().keep(c.rev, kept)
      assert.deepEqual([...kept].sort(), [...(c.kept ?? c.available)].sort())
    })
  }

  it('a tombstone at the compact revision followed by a put in the same txn is not the state kept', () => {
    const ki = new KeyIndex('k')
    ki.put(2, 0)
    ki.tombstone(3, 0)
    ki.put(3, 1)
    const available = new Set<string>()
    ki.compact(3, available)
    assert.deepEqual(ki.generations.map((g) => g.revs), [[r(3, 1)]])
    assert.deepEqual([...available], ['3_1'])
  })

  it('compacting step by step equals compacting at once', () => {
    for (let rev = 1; rev <= 17; rev++) {
      const once = newTestKeyIndex()
      once.compact(rev, new Set())
      const steps = newTestKeyIndex()
      for (let i = 1; i <= rev; i++) if (!steps.isEmpty()) steps.compact(i, new Set())
      assert.deepEqual(steps.generations.map((g) => g.revs), once.generations.map((g) => g.revs), `rev ${rev}`)
    }
  })
})

describe('KeyIndex.tombstone', () => {
  it('refuses a tombstone on a deleted key', () => {
    const ki = new KeyIndex('k')
    ki.put(5, 0)
    ki.tombstone(7, 0)
    assert.throws(() => ki.tombstone(9, 0), /revision not found/)
  })
  it('refuses revisions that do not grow', () => {
    const ki = new KeyIndex('k')
    ki.put(5, 1)
    assert.throws(() => ki.put(5, 0), /not after/)
  })
  it('restoreTombstone keeps a lone tombstone: the key reads as absent, and a later put starts a generation', () => {
    const ki = new KeyIndex('k')
    ki.restoreTombstone(r(9))
    assert.equal(ki.get(9), undefined)
    assert.equal(ki.isEmpty(), false)
    ki.put(11, 0)
    assert.deepEqual(ki.get(11), { modified: r(11), created: r(11), version: 1 })
    const available = new Set<string>()
    ki.compact(10, available)
    assert.deepEqual(ki.generations.map((g) => g.revs), [[r(11)]])
  })
  it('restore starts a generation at the stored revision', () => {
    const ki = new KeyIndex('k')
    ki.restore(r(3), r(9, 2), 4)
    assert.deepEqual(ki.get(9), { modified: r(9, 2), created: r(3), version: 4 })
    ki.put(11, 0)
    assert.deepEqual(ki.get(11), { modified: r(11), created: r(3), version: 5 })
  })
})

describe('KeyIndex.unwind', () => {
  it('undoes puts and tombstones newest first, back to the same state as before them', () => {
    const ki = newTestKeyIndex()
    const before = structuredClone({ modified: ki.modified, generations: ki.generations })
    // A later txn: put@18 (a new generation after the tombstone@16), put@18.1, tombstone@18.2, put@18.3.
    ki.put(18, 0)
    ki.put(18, 1)
    ki.tombstone(18, 2)
    ki.put(18, 3)
    for (const sub of [3, 2, 1, 0]) ki.unwind(r(18, sub))
    assert.deepEqual({ modified: ki.modified, generations: ki.generations }, before)
    assert.equal(ki.get(17), undefined)
    assert.deepEqual(ki.get(15), { modified: r(14, 1), created: r(14), version: 2 })
  })
  it('leaves a key created by the undone put empty, and a tombstone undone makes the key live again', () => {
    const ki = new KeyIndex('k')
    ki.put(3, 0)
    ki.unwind(r(3))
    assert.equal(ki.isEmpty(), true)
    assert.deepEqual(ki.modified, r(0))
    ki.put(4, 0)
    ki.put(5, 0)
    ki.tombstone(6, 0)
    ki.unwind(r(6))
    assert.deepEqual(ki.get(6), { modified: r(5), created: r(4), version: 2 })
    ki.put(7, 0)
    assert.deepEqual(ki.get(7), { modified: r(7), created: r(4), version: 3 })
  })
  it('refuses to undo a revision that is not the newest', () => {
    const ki = newTestKeyIndex()
    assert.throws(() => ki.unwind(r(14, 1)), /not the newest revision/)
  })
})
