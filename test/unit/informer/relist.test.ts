// An idle informer on the ManualClock: progress keeps its revision fresh so that a compaction after a quiet
// spell of exact length does not force a relist. Resume and relist over every server, in real time, are in
// the suite in test/informer.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { SharedInformer } from '../../../src/informer/shared-informer.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { until } from '../../helpers/until.js'
import { objDecoder, Recorder, SwitchableSource, type Obj } from '../../helpers/informer.js'

const k = (i: number): string => `p/${String(i).padStart(4, '0')}`

async function fill(etcd: Etcd, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) await etcd.put({ key: k(i), value: `v${i}` })
}

describe('informer relist and resume', () => {
  for (const progress of [true, false]) {
    it(`idle, then compacted while disconnected: ${progress ? 'progress keeps the revision fresh, so no relist' : 'without progress requests it must relist (the control case)'}`, async () => {
      const clock = new ManualClock()
      await using etcd = await openEtcd({ memory: true, clock })
      await fill(etcd, 0, 10)
      const source = new SwitchableSource(etcd)
      const rec = new Recorder()
      await using inf = new SharedInformer<Obj>(source, {
        prefix: 'p/', decode: objDecoder, clock, onError: () => undefined,
        progressIntervalMs: progress ? 1000 : 1e9, progressNotify: false, retryInitialMs: 10, retryMaxMs: 10,
      })
      inf.addEventHandler(rec.handler)
      inf.start()
      await inf.synced
      const listed = inf.revision
      // Writes elsewhere move the store's revision on; the informer's range sees nothing.
      for (let i = 0; i < 50; i++) await etcd.put({ key: `q/${i}`, value: 'x' })
      await clock.advance(1000)
      if (progress) {
        await until(() => inf.revision === etcd.server.kv.rev(), 'progress bringing the revision up')
        assert.equal(inf.stats.progressRequests, 1)
      } else assert.equal(inf.revision, listed)
      await source.disconnect()
      await etcd.compact({ revision: etcd.server.kv.rev() })
      source.connect(etcd)
      await clock.advance(10)
      // With progress: one watch resumed. Without: a watch that finds its revision compacted, a list, a watch.
      await until(() => inf.stats.lists === (progress ? 1 : 2) && inf.stats.watches === (progress ? 2 : 3), 'the watch again')
      await etcd.put({ key: k(3), value: 'after' })
      await until(() => inf.indexer.get(k(3))?.value === 'after', 'a change after reconnecting')
      assert.equal(inf.stats.lists, progress ? 1 : 2)
      assert.equal(inf.stats.relists, progress ? 0 : 1)
      assert.deepEqual(rec.spurious(), [])
      assert.equal(rec.events.length, 11, 'the initial adds and the one update: the relist found nothing changed')
    })
  }

  it('a server-side progress notification also advances the revision of an idle informer', async () => {
    const clock = new ManualClock()
    await using etcd = await openEtcd({ memory: true, clock, watchProgressNotifyIntervalMs: 5000 })
    await fill(etcd, 0, 3)
    await using inf = new SharedInformer<Obj>(etcd, { prefix: 'p/', decode: objDecoder, clock, progressIntervalMs: 1e9 }).start()
    await inf.synced
    for (let i = 0; i < 5; i++) await etcd.put({ key: `q/${i}`, value: 'x' })
    await clock.advance(10_000)
    await until(() => inf.revision === etcd.server.kv.rev(), 'the notification')
    assert.equal(inf.stats.progressRequests, 0)
  })
})
