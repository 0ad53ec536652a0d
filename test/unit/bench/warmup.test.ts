import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_SERVER_WARMUP_SECONDS, freshServerWarmupSeconds, kvWarmupPassSeconds } from '../../../bench/lib/warmup.js'

describe('bench server warm-up', () => {
  it('spreads the KV warm-up over the workloads, at least 1 s each', () => {
    assert.equal(kvWarmupPassSeconds(5, 1), 5)
    assert.equal(kvWarmupPassSeconds(5, 4), 1.25)
    assert.equal(kvWarmupPassSeconds(5, 13), 1, 'every workload gets a second of load however many there are')
    assert.equal(kvWarmupPassSeconds(0, 13), 0, '--server-warmup 0: no pass')
    assert.equal(kvWarmupPassSeconds(5, 0), 0, 'no KV workloads: no pass')
  })

  it('warms a fresh server up for the longer of --warmup and --server-warmup', () => {
    assert.equal(freshServerWarmupSeconds(1, DEFAULT_SERVER_WARMUP_SECONDS), DEFAULT_SERVER_WARMUP_SECONDS)
    assert.equal(freshServerWarmupSeconds(8, 5), 8)
    assert.equal(freshServerWarmupSeconds(1, 0), 1, '--server-warmup 0 leaves --warmup as it was')
  })
})
