// exponentialBuckets gives prom-client's bounds (client_golang's, by the same repeated multiplication) for the
// arguments etcd's histograms use and more, and refuses what prom-client refuses, with its messages.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { exponentialBuckets as promBuckets } from 'prom-client'
import { exponentialBuckets } from '../../../src/pkg/histogram.js'

const cases: readonly (readonly [number, number, number])[] = [
  [1, 2, 24], [0.0001, 2, 20], [0.1, 2, 13], [0.01, 2, 17], [0.1, 2, 10], [0.5, 2, 14], [0.001, 1.5, 40], [3, 10, 1],
  [0, 2, 3], [-1, 2, 3], [1, 1, 3], [1, 0.5, 3], [1, 2, 0], [1, 2, -1],
]

/** The bounds, or the message thrown. */
function outcome(fn: () => number[]): unknown {
  try {
    return fn()
  } catch (err) {
    return err instanceof Error ? err.message : String(err)
  }
}

describe('exponentialBuckets', () => {
  for (const [start, factor, count] of cases) {
    it(`(${start}, ${factor}, ${count}) as prom-client`, () => {
      assert.deepStrictEqual(outcome(() => exponentialBuckets(start, factor, count)), outcome(() => promBuckets(start, factor, count)))
    })
  }
})
