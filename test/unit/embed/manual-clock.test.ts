// The embedded `clock` option: with a ManualClock, progress notifications fire when the test moves time
// and not before. (Lease expiry on the manual clock: test/unit/lease/lessor.test.ts; auto-compaction:
// test/unit/etcdserver/auto-compactor.test.ts.)
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd } from '../../../src/embed/etcd.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import type { WatchResponse } from '../../../src/etcdserver/types/watch.js'
import { until } from '../../helpers/until.js'

describe('ManualClock drives progress notifications', () => {
  it('a progress_notify watcher hears the revision once per interval of manual time', async () => {
    const clock = new ManualClock()
    await using etcd = await openEtcd({ memory: true, clock, watchProgressNotifyIntervalMs: 1_000 })
    await etcd.put({ key: Buffer.from('a'), value: Buffer.from('1') })
    const w = etcd.watch({ key: Buffer.from('a'), progressNotify: true })
    const got: WatchResponse[] = []
    const reader = (async () => {
      for await (const r of w) got.push(r)
    })()
    // Let the watcher be created and synced before time moves.
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(got.length, 0, 'nothing before time moves')
    await clock.advance(999)
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(got.length, 0, 'nothing before the interval')
    await clock.advance(1)
    await until(() => got.length === 1, 'one progress notification')
    assert.deepEqual(got[0]?.events, [])
    assert.equal(got[0]?.header.revision, 2)
    await clock.advance(2_000)
    await until(() => got.length === 3, 'one more per interval')
    await w.cancel()
    await reader
  })
})
