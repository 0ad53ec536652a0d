import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { OrderedMap } from '../../../src/pkg/ordered-map.js'

describe('OrderedMap', () => {
  it('keeps keys ordered across block splits and deletes (against a sorted array)', () => {
    const m = new OrderedMap<number>()
    const ref = new Map<string, number>()
    let seed = 7
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let i = 0; i < 20000; i++) {
      const k = String.fromCharCode(rnd(256), rnd(256), rnd(4))
      if (rnd(4) === 0) assert.equal(m.delete(k), ref.delete(k))
      else {
        m.set(k, i)
        ref.set(k, i)
      }
    }
    const sorted = [...ref.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    assert.equal(m.size, ref.size)
    assert.deepEqual([...m.entries()], sorted)
    for (let i = 0; i < 200; i++) {
      const lo = String.fromCharCode(rnd(256))
      const hi = rnd(5) === 0 ? undefined : String.fromCharCode(rnd(256), rnd(256))
      const got: string[] = []
      m.forEachRange(lo, hi, (k) => {
        got.push(k)
      })
      assert.deepEqual(got, sorted.map(([k]) => k).filter((k) => k >= lo && (hi === undefined || k < hi)))
    }
  })

  it('stops a visit when the callback returns false', () => {
    const m = new OrderedMap<number>()
    for (const k of ['a', 'b', 'c']) m.set(k, 1)
    const seen: string[] = []
    m.forEachRange('', undefined, (k) => {
      seen.push(k)
      return k !== 'b'
    })
    assert.deepEqual(seen, ['a', 'b'])
  })

  it('load() takes over an unordered map in one sort; later inserts, deletes and scans stay ordered', () => {
    const m = new OrderedMap<number>()
    m.set('stale', 1)
    const src = new Map<string, number>()
    for (let i = 0; i < 5000; i++) src.set(String.fromCharCode((i * 7919) % 251, (i * 31) % 256, 0xff), i)
    m.load(src)
    assert.equal(m.size, src.size)
    assert.equal(m.get('stale'), undefined, 'load replaces the contents')
    const ref = new Map(src)
    for (let i = 0; i < 3000; i++) {
      const k = String.fromCharCode((i * 13) % 256, (i * 101) % 256)
      if (i % 3 === 0) assert.equal(m.delete(k), ref.delete(k))
      else {
        m.set(k, -i)
        ref.set(k, -i)
      }
    }
    const sorted = [...ref.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    assert.deepEqual([...m.entries()], sorted)
    const got: string[] = []
    m.forEachRange('\x10', '\x20', (k) => {
      got.push(k)
    })
    assert.deepEqual(got, sorted.map(([k]) => k).filter((k) => k >= '\x10' && k < '\x20'))
  })

  it('load() of an empty map leaves an empty, usable map', () => {
    const m = new OrderedMap<number>()
    m.load(new Map())
    assert.equal(m.size, 0)
    assert.deepEqual([...m.entries()], [])
    m.set('a', 1)
    assert.deepEqual([...m.entries()], [['a', 1]])
  })
})
