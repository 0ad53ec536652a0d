import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { commitOutOfReach, commitShareOutOfReach, fanoutCommitOutOfReach, fanoutOutOfReach, kvOutOfReach, type FanoutBudget } from '../../../bench/lib/report-reach.js'

describe('bench report: targets out of reach', () => {
  it('a KV target is out of reach only when the RPC ceiling is below it', () => {
    const why = kvOutOfReach(1.5, 2000, 2400)
    assert.ok(why?.includes('2,400 ops/s, 1.20× etcd, below the 3,000 ops/s'), why)
    assert.equal(kvOutOfReach(1.5, 2000, 3000), undefined) // exactly reachable
    assert.equal(kvOutOfReach(1.5, 2000, 5000), undefined)
    assert.equal(kvOutOfReach(1.5, null, 2400), undefined)
    assert.equal(kvOutOfReach(1.5, 2000, null), undefined)
  })

  it('a put target is out of reach only when the commit ceiling is below it', () => {
    const why = commitOutOfReach(1.5, 2000, 2600)
    assert.ok(why?.includes('commit ceiling'), why)
    assert.ok(why?.includes('2,600 ops/s, 1.30× etcd, below the 3,000 ops/s'), why)
    assert.equal(commitOutOfReach(1.5, 2000, 3000), undefined) // exactly reachable
    assert.equal(commitOutOfReach(1.5, 2000, null), undefined)
    assert.equal(commitOutOfReach(1.5, null, 2600), undefined)
    const share = commitShareOutOfReach(0.85, 4000, 3000)
    assert.ok(share?.includes('3,000 ops/s, 75 % of the RPC ceiling\'s 4,000, below the 3,400 ops/s'), share)
    assert.equal(commitShareOutOfReach(0.85, 4000, 3400), undefined) // exactly reachable
    assert.equal(commitShareOutOfReach(0.85, 4000, 3900), undefined)
    assert.equal(commitShareOutOfReach(0.85, null, 3000), undefined)
    assert.equal(commitShareOutOfReach(0.85, 4000, null), undefined)
  })

  const base: FanoutBudget = {
    factor: 1.5, watchers: 100, cores: 2,
    // etcd 100,000 events/s → target 150,000 events/s = 1,500 puts/s.
    etcd: { eventsPerSec: 100_000, putsPerSec: 1000, writerCpuPct: 60, clientUsPerEvent: 2 },
    lite: { eventsPerSec: 80_000, putsPerSec: 800, writerCpuPct: 40, clientUsPerEvent: 3 },
    ceilingUsPerPut: 250, ceilingWriterCoresPerPut: null, pushUsPerEvent: 1,
  }

  it('a fan-out target is out of reach when its cheapest CPU exceeds the cores', () => {
    // writer: min(0.6/1000, 0.4/800) = 0.0005 cores·s/put × 1500 = 0.75; watchers: 2 µs × 150k = 0.3;
    // answering: 250 µs × 1500 = 0.375; pushing: 1 µs × 150k = 0.15. Total 1.575 < 2: not ruled out.
    assert.equal(fanoutOutOfReach(base), undefined)
    // With 1.5 cores the same budget is over.
    const why = fanoutOutOfReach({ ...base, cores: 1.5 })
    assert.ok(why?.includes('150,000 events/s take at least 1,500 puts/s'), why)
    assert.ok(why?.includes('the writer needs 0.75 cores, the watcher processes 0.30'), why)
    assert.ok(why?.includes('canned responses 0.38 and pushing the events pre-encoded 0.15: 1.58 of'), why)
  })

  it('takes the cheapest writer cost, the RPC ceiling included, and needs the RPC ceiling', () => {
    // A cheaper writer against the ceiling brings the total under the cores.
    assert.ok(fanoutOutOfReach({ ...base, cores: 1.5 }) !== undefined)
    assert.equal(fanoutOutOfReach({ ...base, cores: 1.5, ceilingWriterCoresPerPut: 0.0001 }), undefined)
    assert.equal(fanoutOutOfReach({ ...base, cores: 1, ceilingUsPerPut: null }), undefined)
    // Without a push ceiling the bound leaves the delivery out.
    const why = fanoutOutOfReach({ ...base, cores: 1, pushUsPerEvent: null })
    assert.ok(why !== undefined && !why.includes('pre-encoded'), why)
  })

  it('a full-speed fan-out target is out of reach when its puts exceed the commit ceiling', () => {
    // etcd 300,000 events/s to 100 watchers: 1.5× is 450,000 events/s, at least 4,500 puts/s.
    const why = fanoutCommitOutOfReach(1.5, 100, 300_000, 4400)
    assert.ok(why?.includes('450,000 events/s to 100 watchers take at least 4,500 puts/s'), why)
    assert.ok(why?.includes('commit ceiling (canned answers once each put\'s record is committed to LevelDB) reached 4,400 ops/s with no watchers'), why)
    assert.equal(fanoutCommitOutOfReach(1.5, 100, 300_000, 4500), undefined) // exactly reachable
    assert.equal(fanoutCommitOutOfReach(1.5, 10_000, 300_000, 4400), undefined) // 45 puts/s
    assert.equal(fanoutCommitOutOfReach(1.5, 100, null, 4400), undefined)
    assert.equal(fanoutCommitOutOfReach(1.5, 100, 300_000, null), undefined)
    assert.equal(fanoutCommitOutOfReach(1.5, 0, 300_000, 4400), undefined)
  })
})
