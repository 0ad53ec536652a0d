// goSort (src/auth/go-sort.ts), the port of Go 1.19's sort.Sort: it sorts (every size and shape, many
// duplicates included) and only permutes; short slices keep equal elements in order (Go's insertion sort).
// That equal elements land exactly where Go puts them is checked against the real etcd in reference.test.ts.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { goSort } from '../../../src/auth/go-sort.js'

interface Item {
  readonly k: number
  readonly id: number
}
const byKey = (a: Item, b: Item): boolean => a.k < b.k
const items = (keys: readonly number[]): Item[] => keys.map((k, id) => ({ k, id }))

describe('goSort', () => {
  it('sorts by the key and keeps every element (random sizes, few distinct keys)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 300 }), (keys) => {
        const xs = items(keys)
        goSort(xs, byKey)
        for (let i = 1; i < xs.length; i++) assert.ok((xs[i - 1] as Item).k <= (xs[i] as Item).k, `out of order at ${i}`)
        assert.deepEqual(xs.map((x) => x.id).sort((a, b) => a - b), keys.map((_, i) => i))
      }),
      { numRuns: 300 },
    )
  })

  const shapes: Array<[string, (n: number) => number[]]> = [
    ['ascending', (n) => Array.from({ length: n }, (_, i) => i)],
    ['descending', (n) => Array.from({ length: n }, (_, i) => n - i)],
    ['all equal', (n) => Array.from({ length: n }, () => 1)],
    ['organ pipe', (n) => Array.from({ length: n }, (_, i) => Math.min(i, n - i))],
    ['sawtooth', (n) => Array.from({ length: n }, (_, i) => i % 7)],
    ['sorted with a small key appended (how etcd calls it)', (n) => [...Array.from({ length: n - 1 }, (_, i) => i + 1), 0]],
  ]
  for (const [name, shape] of shapes) {
    for (const n of [0, 1, 2, 12, 13, 49, 50, 51, 200, 1000]) {
      it(`${name}, n = ${n}`, () => {
        const keys = shape(n)
        const xs = items(keys)
        goSort(xs, byKey)
        assert.deepEqual(xs.map((x) => x.k), [...keys].sort((a, b) => a - b))
      })
    }
  }

  it('up to 12 elements it is insertion sort: stable', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 12 }), (keys) => {
        const xs = items(keys)
        goSort(xs, byKey)
        const want = items(keys).sort((a, b) => a.k - b.k || a.id - b.id)
        assert.deepEqual(xs, want)
      }),
    )
  })

  it('is not stable beyond 12 (as Go: the order of equal elements is its own)', () => {
    // 13 equal keys after a distinct prefix: pdqsort partitions and moves equal elements around.
    const keys = [...Array.from({ length: 40 }, () => 5), 1, 9, 0]
    const xs = items(keys)
    goSort(xs, byKey)
    const stable = items(keys).sort((a, b) => a.k - b.k || a.id - b.id)
    assert.deepEqual(xs.map((x) => x.k), stable.map((x) => x.k))
    assert.notDeepEqual(xs.map((x) => x.id), stable.map((x) => x.id))
  })
})
