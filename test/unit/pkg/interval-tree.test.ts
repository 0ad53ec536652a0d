// IntervalTree (src/pkg/interval-tree.ts) against a brute-force list scan, the obvious reference for an adapted
// library structure: table cases for
// the edges, a fast-check property over random op sequences, and a seeded bulk run with realistic keys.
//
// Replay a property failure with the seed and path fast-check prints: IT_SEED=<seed> IT_PATH=<path>.
// Bulk seeds: IT_BULK_SEEDS=1,2,3.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { compareBytes, equalBytes, FROM_KEY, prefixEnd } from '../../../src/pkg/bytes.js'
import { IntervalTree, ORDINAL_WIDTH, ordinal } from '../../../src/pkg/interval-tree.js'
import { Prng, seedsFromEnv } from '../../helpers/prng.js'

type End = Uint8Array | typeof FROM_KEY

const enc = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))
const cat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts))
/** A shared prefix longer than the ordinal width: keys under it differ only past the mapped bytes. */
const LONG = new Uint8Array(ORDINAL_WIDTH + 8).fill(0x70)
/** A prefix one byte short of the width: the next byte is the last one the ordinal sees. */
const EDGE = new Uint8Array(ORDINAL_WIDTH - 1).fill(0x70)

const show = (v: Uint8Array): string => {
  let s = ''
  for (const c of v) s += c >= 0x20 && c < 0x7f && c !== 0x5c ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`
  return s
}
const showEnd = (e: End | undefined): string => (e === undefined ? 'undefined' : e === FROM_KEY ? 'FROM_KEY' : show(e))

// The oracle: a list of (key, end, value) triples, scanned in full.

interface Entry {
  key: Uint8Array
  end: End
  value: number
}

const sameEnd = (a: End, b: End): boolean => (a === FROM_KEY || b === FROM_KEY ? a === b : equalBytes(a, b))
const isEmpty = (key: Uint8Array, end: End): boolean => end !== FROM_KEY && compareBytes(end, key) <= 0
const contains = (e: Entry, p: Uint8Array): boolean =>
  compareBytes(e.key, p) <= 0 && (e.end === FROM_KEY || compareBytes(p, e.end) < 0)
const overlaps = (e: Entry, key: Uint8Array, end: End): boolean =>
  !isEmpty(e.key, e.end) && !isEmpty(key, end) &&
  (end === FROM_KEY || compareBytes(e.key, end) < 0) && (e.end === FROM_KEY || compareBytes(key, e.end) < 0)

class ListModel {
  readonly entries: Entry[] = []

  insert(key: Uint8Array, end: End, value: number): void {
    if (this.indexOf(key, end, value) < 0) this.entries.push({ key, end, value })
  }

  delete(key: Uint8Array, end: End, value: number): boolean {
    const i = this.indexOf(key, end, value)
    if (i < 0) return false
    this.entries.splice(i, 1)
    return true
  }

  stab(p: Uint8Array): number[] {
    return this.entries.filter((e) => contains(e, p)).map((e) => e.value).sort((a, b) => a - b)
  }

  intersects(key: Uint8Array, end?: End): boolean {
    return end === undefined ? this.entries.some((e) => contains(e, key)) : this.entries.some((e) => overlaps(e, key, end))
  }

  private indexOf(key: Uint8Array, end: End, value: number): number {
    return this.entries.findIndex((e) => e.value === value && equalBytes(e.key, key) && sameEnd(e.end, end))
  }
}

function stabAll(t: IntervalTree<number>, p: Uint8Array): number[] {
  const got: number[] = []
  t.stab(p, (v) => got.push(v))
  return got.sort((a, b) => a - b)
}


describe('ordinal', () => {
  const ordered: Uint8Array[] = [
    enc(''), enc('\x00'), enc('\x00\x00'), enc('\x00\xff'), enc('\x01'), enc('a'), enc('a\x00'), enc('ab'),
    enc('b'), enc('\xff'), enc('\xff\x00'), enc('\xff\xff\xff'),
    EDGE, cat(EDGE, enc('\x00')), cat(EDGE, enc('a')), LONG, cat(LONG, enc('\x00')), cat(LONG, enc('\xff')),
  ]
  it('never decreases along byte order, and a smaller ordinal means a smaller key', () => {
    for (const a of ordered) {
      for (const b of ordered) {
        const c = compareBytes(a, b)
        if (c < 0) assert.ok(ordinal(a) <= ordinal(b), `${show(a)} < ${show(b)}`)
        if (ordinal(a) < ordinal(b)) assert.ok(c < 0, `ordinal(${show(a)}) < ordinal(${show(b)})`)
      }
    }
  })
  it('separates keys within the width; ties keys that differ past it or by trailing zero bytes', () => {
    assert.ok(ordinal(EDGE) < ordinal(cat(EDGE, enc('\x01'))))
    assert.equal(ordinal(EDGE), ordinal(cat(EDGE, enc('\x00'))))
    assert.equal(ordinal(enc('a')), ordinal(enc('a\x00\x00')))
    assert.equal(ordinal(LONG), ordinal(cat(LONG, enc('\xff'))))
    assert.ok(ordinal(cat(EDGE, enc('a'))) < ordinal(cat(EDGE, enc('b'))))
    assert.equal(ordinal(cat(LONG, enc('a'))), ordinal(cat(LONG, enc('b'))))
    assert.equal(ordinal(enc('')), 0n)
  })
})

describe('IntervalTree', () => {
  // Each case loads `ranges` (values are their indices), applies `deletes`, then checks stabs and
  // intersects against the stated answers.
  interface Case {
    name: string
    ranges: readonly (readonly [Uint8Array, End])[]
    deletes?: readonly (readonly [Uint8Array, End, number])[]
    stabs: readonly (readonly [Uint8Array, readonly number[]])[]
    intersects?: readonly (readonly [Uint8Array, End | undefined, boolean])[]
    size?: number
  }
  const cases: Case[] = [
    {
      name: 'half-open: the start is in, the end is out',
      ranges: [[enc('b'), enc('d')]],
      stabs: [[enc('a'), []], [enc('b'), [0]], [enc('c\xff\xff'), [0]], [enc('d'), []], [enc('b\x00'), [0]]],
      intersects: [[enc('a'), enc('b'), false], [enc('a'), enc('b\x00'), true], [enc('d'), FROM_KEY, false],
        [enc('c'), FROM_KEY, true], [enc('d'), undefined, false], [enc('b'), undefined, true]],
    },
    {
      name: 'FROM_KEY reaches past every key, 0xff runs included',
      ranges: [[enc('x'), FROM_KEY]],
      stabs: [[enc('w\xff'), []], [enc('x'), [0]], [enc('\xff\xff\xff\xff'), [0]], [cat(enc('x'), LONG), [0]]],
      intersects: [[enc('a'), enc('x'), false], [enc('a'), enc('x\x00'), true], [enc('\xff'), FROM_KEY, true]],
    },
    {
      name: 'the empty key is the smallest key; ["", FROM_KEY) holds all',
      ranges: [[enc(''), FROM_KEY], [enc(''), enc('\x00')]],
      stabs: [[enc(''), [0, 1]], [enc('\x00'), [0]], [enc('\xff'), [0]]],
      intersects: [[enc(''), undefined, true], [enc(''), enc('\x00'), true]],
    },
    {
      name: 'a one-zero-byte end array is a plain bound, not FROM_KEY',
      ranges: [[enc('\x00'), enc('\x00\x00')], [enc('a'), enc('\x00')]],
      stabs: [[enc('\x00'), [0]], [enc('\x00\x00'), []], [enc('a'), []], [enc('b'), []]],
      intersects: [[enc('a'), FROM_KEY, false]],
    },
    {
      name: 'empty and inverted ranges are stored and counted but never match',
      ranges: [[enc('m'), enc('m')], [enc('m'), enc('c')], [enc('m'), enc('')], [cat(LONG, enc('b')), cat(LONG, enc('a'))]],
      stabs: [[enc('c'), []], [enc('m'), []], [enc(''), []], [cat(LONG, enc('a')), []], [cat(LONG, enc('b')), []]],
      intersects: [[enc(''), FROM_KEY, false], [enc('m'), undefined, false], [cat(LONG, enc('a')), undefined, false]],
      size: 4,
    },
    {
      name: 'an empty or inverted query range intersects nothing',
      ranges: [[enc(''), FROM_KEY]],
      stabs: [],
      intersects: [[enc('k'), enc('k'), false], [enc('k'), enc('a'), false], [enc('k'), enc(''), false], [enc('k'), undefined, true]],
    },
    {
      name: 'keys sharing a prefix longer than the ordinal width are still told apart',
      ranges: [[cat(LONG, enc('b')), cat(LONG, enc('d'))], [cat(LONG, enc('d')), FROM_KEY], [LONG, cat(LONG, enc('\x00'))]],
      stabs: [[LONG, [2]], [cat(LONG, enc('\x00')), []], [cat(LONG, enc('a')), []], [cat(LONG, enc('b')), [0]],
        [cat(LONG, enc('c\xff')), [0]], [cat(LONG, enc('d')), [1]], [cat(LONG, enc('\xff')), [1]]],
      intersects: [[cat(LONG, enc('\x00')), cat(LONG, enc('b')), false], [cat(LONG, enc('\x00')), cat(LONG, enc('b\x00')), true],
        [cat(LONG, enc('\x00')), undefined, false], [cat(LONG, enc('\x00')), FROM_KEY, true]],
    },
    {
      name: 'bounds on the last byte the ordinal sees',
      ranges: [[cat(EDGE, enc('b')), cat(EDGE, enc('c'))], [EDGE, cat(EDGE, enc('\x00'))]],
      stabs: [[EDGE, [1]], [cat(EDGE, enc('\x00')), []], [cat(EDGE, enc('b')), [0]], [cat(EDGE, enc('b\xff\xff')), [0]],
        [cat(EDGE, enc('c')), []], [cat(EDGE, enc('a\xff')), []]],
    },
    {
      name: 'identical ranges share values; deleting one value keeps the others',
      ranges: [[enc('a'), enc('c')], [enc('a'), enc('c')], [enc('a'), enc('c')], [enc('a'), FROM_KEY]],
      deletes: [[enc('a'), enc('c'), 1], [enc('a'), enc('c'), 1], [enc('a'), enc('d'), 0], [enc('a'), FROM_KEY, 0]],
      stabs: [[enc('b'), [0, 2, 3]], [enc('c'), [3]]],
      size: 3,
    },
    {
      name: 'deleting every value of a range removes it',
      ranges: [[enc('a'), enc('c')], [enc('a'), enc('c')], [enc('b'), FROM_KEY]],
      deletes: [[enc('a'), enc('c'), 0], [enc('a'), enc('c'), 1], [enc('b'), FROM_KEY, 2]],
      stabs: [[enc('b'), []]],
      intersects: [[enc(''), FROM_KEY, false]],
      size: 0,
    },
  ]

  for (const c of cases) {
    it(c.name, () => {
      const t = new IntervalTree<number>()
      const model = new ListModel()
      c.ranges.forEach(([k, e], i) => {
        t.insert(k, e, i)
        model.insert(k, e, i)
      })
      for (const [k, e, v] of c.deletes ?? []) assert.equal(t.delete(k, e, v), model.delete(k, e, v), `delete ${show(k)} ${showEnd(e)} ${v}`)
      for (const [p, want] of c.stabs) {
        assert.deepEqual(stabAll(t, p), [...want].sort((a, b) => a - b), `stab ${show(p)}`)
        assert.deepEqual(model.stab(p), [...want].sort((a, b) => a - b), `oracle stab ${show(p)}`)
        assert.equal(t.intersects(p), want.length > 0, `intersects point ${show(p)}`)
      }
      for (const [k, e, want] of c.intersects ?? []) {
        assert.equal(t.intersects(k, e), want, `intersects ${show(k)} ${showEnd(e)}`)
        assert.equal(model.intersects(k, e), want, `oracle intersects ${show(k)} ${showEnd(e)}`)
      }
      assert.equal(t.size, c.size ?? model.entries.length)
    })
  }

  it('inserting a pair it already holds changes nothing', () => {
    const t = new IntervalTree<string>()
    t.insert(enc('a'), enc('b'), 'w')
    t.insert(enc('a'), enc('b'), 'w')
    assert.equal(t.size, 1)
    assert.equal(t.delete(enc('a'), enc('b'), 'w'), true)
    assert.equal(t.delete(enc('a'), enc('b'), 'w'), false)
    assert.equal(t.size, 0)
  })

  it('keeps its own copy of the key and end bytes', () => {
    const t = new IntervalTree<number>()
    const key = enc('b')
    const end = Buffer.from('d', 'latin1') // a Buffer, whose slice() would not copy
    t.insert(key, end, 1)
    key[0] = 0x78
    end[0] = 0x7a
    assert.deepEqual(stabAll(t, enc('c')), [1])
    assert.deepEqual(stabAll(t, enc('y')), [])
    assert.equal(t.delete(enc('b'), enc('d'), 1), true)
  })

  it('allows nested stabs but refuses insert and delete from a stab callback', () => {
    const t = new IntervalTree<number>()
    t.insert(enc('a'), FROM_KEY, 1)
    let inner: number[] = []
    t.stab(enc('b'), () => {
      inner = stabAll(t, enc('c'))
      assert.throws(() => t.insert(enc('x'), FROM_KEY, 2), /inside a stab/)
      assert.throws(() => t.delete(enc('a'), FROM_KEY, 1), /inside a stab/)
    })
    assert.deepEqual(inner, [1])
    // After the stab (and after a throwing callback) mutation works again.
    assert.throws(() => t.stab(enc('b'), () => { throw new Error('boom') }), /boom/)
    t.insert(enc('x'), FROM_KEY, 2)
    assert.equal(t.delete(enc('a'), FROM_KEY, 1), true)
    assert.deepEqual(stabAll(t, enc('y')), [2])
  })

  // Property: any op sequence gives the list model's answers.

  const byte = fc.constantFrom(0x00, 0x01, 0x61, 0x62, 0xfe, 0xff)
  const keyArb: fc.Arbitrary<Uint8Array> = fc
    .tuple(fc.constantFrom(0, 0, 1, 2), fc.array(byte, { maxLength: 3 }))
    .map(([p, tail]) => cat(p === 0 ? new Uint8Array(0) : p === 1 ? EDGE : LONG, Uint8Array.from(tail)))
  const endArb: fc.Arbitrary<End> = fc.oneof({ arbitrary: fc.constant<End>(FROM_KEY), weight: 1 }, { arbitrary: keyArb, weight: 4 })
  // Mostly well-formed ranges: an inverted pair is swapped nine times in ten.
  const rangeArb = fc.tuple(keyArb, endArb, fc.integer({ min: 0, max: 9 })).map(([a, b, r]): [Uint8Array, End] =>
    b !== FROM_KEY && r > 0 && compareBytes(b, a) < 0 ? [b, a] : [a, b])
  type Op =
    | { kind: 'insert'; range: [Uint8Array, End]; value: number }
    | { kind: 'insertSame'; pick: number; value: number }
    | { kind: 'delete'; pick: number }
    | { kind: 'deleteAny'; range: [Uint8Array, End]; value: number }
    | { kind: 'stab'; point: Uint8Array }
    | { kind: 'intersects'; key: Uint8Array; end: End | undefined }
  const value = fc.integer({ min: 0, max: 5 })
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('insert' as const), range: rangeArb, value }), weight: 4 },
    { arbitrary: fc.record({ kind: fc.constant('insertSame' as const), pick: fc.nat(), value }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('deleteAny' as const), range: rangeArb, value }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant('stab' as const), point: keyArb }), weight: 4 },
    { arbitrary: fc.record({ kind: fc.constant('intersects' as const), key: keyArb, end: fc.option(endArb, { nil: undefined }) }), weight: 3 },
  )

  function fcParams<Ts>(numRuns: number): fc.Parameters<Ts> {
    const seed = process.env['IT_SEED']
    const path = process.env['IT_PATH']
    return { numRuns, seed: seed !== undefined ? Number(seed) : 20240603, ...(path !== undefined ? { path } : {}) }
  }

  it('matches a brute-force list scan for random op sequences (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
        const t = new IntervalTree<number>()
        const model = new ListModel()
        for (const op of ops) {
          switch (op.kind) {
            case 'insert':
              t.insert(op.range[0], op.range[1], op.value)
              model.insert(op.range[0], op.range[1], op.value)
              break
            case 'insertSame': {
              const e = model.entries[op.pick % Math.max(1, model.entries.length)]
              if (e === undefined) break
              t.insert(e.key, e.end, op.value)
              model.insert(e.key, e.end, op.value)
              break
            }
            case 'delete': {
              const e = model.entries[op.pick % Math.max(1, model.entries.length)]
              if (e === undefined) break
              assert.equal(t.delete(e.key, e.end, e.value), model.delete(e.key, e.end, e.value))
              break
            }
            case 'deleteAny':
              assert.equal(t.delete(op.range[0], op.range[1], op.value), model.delete(op.range[0], op.range[1], op.value))
              break
            case 'stab':
              assert.deepEqual(stabAll(t, op.point), model.stab(op.point), `stab ${show(op.point)}`)
              assert.equal(t.intersects(op.point), model.intersects(op.point), `intersects ${show(op.point)}`)
              break
            case 'intersects':
              assert.equal(t.intersects(op.key, op.end), model.intersects(op.key, op.end), `intersects ${show(op.key)} ${showEnd(op.end)}`)
              break
          }
          assert.equal(t.size, model.entries.length)
        }
      }),
      fcParams(300),
    )
  })

  // Bulk: a few thousand etcd-like ranges (prefixes, from-key, single keys), a third deleted again.

  for (const seed of seedsFromEnv('IT_BULK_SEEDS', [1, 2])) {
    it(`matches a brute-force scan on ~1500 etcd-like ranges (seed ${seed})`, () => {
      const rng = new Prng(seed)
      const randKey = (): Uint8Array => {
        const ns = `ns-${rng.int(8)}`
        switch (rng.int(4)) {
          case 0: return enc(`/registry/pods/${ns}/pod-${rng.int(300)}`)
          case 1: return enc(`/registry/configmaps/${ns}/cm-${rng.int(50)}`)
          case 2: return cat(LONG, Uint8Array.of(rng.int(256), rng.int(256)))
          default: return Uint8Array.from({ length: rng.int(4) }, () => rng.pick([0x00, 0x2f, 0x72, 0xff]))
        }
      }
      const randRange = (): [Uint8Array, End] => {
        const k = randKey()
        switch (rng.int(4)) {
          case 0: return [k, prefixEnd(k)]
          case 1: return [k, FROM_KEY]
          case 2: return [k, cat(k, Uint8Array.of(0))] // a single key as a range
          default: { const e = randKey(); return compareBytes(k, e) < 0 ? [k, e] : [e, k] }
        }
      }
      const t = new IntervalTree<number>()
      const model = new ListModel()
      for (let i = 0; i < 1500; i++) {
        const [k, e] = rng.chance(0.2) && model.entries.length > 0 ? (({ key, end }) => [key, end] as const)(rng.pick(model.entries)) : randRange()
        t.insert(k, e, i)
        model.insert(k, e, i)
      }
      for (let i = 0; i < 500; i++) {
        const e = rng.pick(model.entries)
        const v = rng.chance(0.9) ? e.value : -1
        assert.equal(t.delete(e.key, e.end, v), model.delete(e.key, e.end, v))
      }
      assert.equal(t.size, model.entries.length)
      for (let i = 0; i < 300; i++) {
        const p = randKey()
        assert.deepEqual(stabAll(t, p), model.stab(p), `stab ${show(p)}`)
        assert.equal(t.intersects(p), model.intersects(p), `intersects ${show(p)}`)
        const [k, e] = randRange()
        assert.equal(t.intersects(k, e), model.intersects(k, e), `intersects ${show(k)} ${showEnd(e)}`)
      }
    })
  }
})
