// When the informer lists again: only after its watch's start revision was compacted. A dropped watch
// resumes from the last revision; progress keeps an idle informer's revision fresh so a compaction after a
// quiet spell does not force a relist; a relist emits exactly the differences.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { SharedInformer } from '../../../src/informer/shared-informer.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { until } from '../../helpers/until.js'
import { assertSameState, cacheOf, freshRange, objDecoder, Recorder, SwitchableSource, type Obj } from '../../helpers/informer.js'

const enc = (s: string): Uint8Array => Buffer.from(s)
const P = enc('p/')
const P_END = enc('p0')
const k = (i: number): string => `p/${String(i).padStart(4, '0')}`

async function fill(etcd: Etcd, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) await etcd.put({ key: k(i), value: `v${i}` })
}

describe('informer relist and resume', () => {
  it('a dropped watch resumes from the last revision: no relist, no missed or repeated event', async () => {
    await using etcd = await openEtcd({ memory: true })
    await fill(etcd, 0, 20)
    const source = new SwitchableSource(etcd)
    const rec = new Recorder()
    await using inf = new SharedInformer<Obj>(source, { prefix: 'p/', decode: objDecoder, retryInitialMs: 5, retryMaxMs: 20, onError: () => undefined })
    inf.addEventHandler(rec.handler)
    inf.start()
    await inf.synced
    for (let round = 0; round < 3; round++) {
      await source.disconnect()
      await fill(etcd, round * 5, round * 5 + 10)
      await etcd.deleteRange({ key: k(15 + round) })
      source.connect(etcd)
      const want = await freshRange(etcd, P, P_END)
      await until(() => inf.revision === (want.size === 0 ? 0 : etcd.server.kv.rev()), 'catching up')
    }
    assertSameState(cacheOf(inf), await freshRange(etcd, P, P_END), 'cache')
    assertSameState(rec.view(), cacheOf(inf), 'handler view')
    assert.equal(inf.stats.lists, 1)
    assert.equal(source.ranges, 1)
    assert.ok(inf.stats.watches >= 3, JSON.stringify(inf.stats))
    assert.deepEqual(rec.spurious(), [])
    // Keys 0-9, 5-14 and 10-19 rewritten; 15 and 16 were deleted before their rewrite (adds again).
    assert.equal(rec.count('update'), 28)
    assert.equal(rec.count('add', (e) => e.initial === false), 2)
    assert.equal(rec.count('delete'), 3)
  })

  it('compacted while disconnected: one relist with adds, updates and final-state-unknown deletes equal to the true differences', async () => {
    await using etcd = await openEtcd({ memory: true })
    await fill(etcd, 0, 100)
    const source = new SwitchableSource(etcd)
    const rec = new Recorder()
    await using inf = new SharedInformer<Obj>(source, { prefix: 'p/', decode: objDecoder, retryInitialMs: 5, retryMaxMs: 20, onError: () => undefined })
    inf.addEventHandler(rec.handler)
    inf.start()
    await inf.synced
    await until(() => rec.events.length === 100, 'initial adds')
    await source.disconnect()
    const before = cacheOf(inf)
    await fill(etcd, 100, 130) // 30 new keys
    for (let i = 0; i < 40; i++) await etcd.put({ key: k(i), value: `changed${i}` }) // 40 changed
    for (let i = 0; i < 10; i++) await etcd.put({ key: k(i), value: `again${i}` }) // changed twice: still 40 keys
    await etcd.put({ key: k(50), value: 'temp' })
    await etcd.deleteRange({ key: k(50) }) // changed then deleted
    await etcd.deleteRange({ key: k(90), rangeEnd: k(100) }) // 10 deleted
    await etcd.put({ key: k(200), value: 'x' })
    await etcd.deleteRange({ key: k(200) }) // born and gone: nothing
    await etcd.compact({ revision: etcd.server.kv.rev() })
    const after = await freshRange(etcd, P, P_END)
    rec.events.length = 0
    source.connect(etcd)
    await until(() => inf.stats.relists === 1 && inf.revision === etcd.server.kv.rev(), 'the relist')
    await until(() => rec.events.length === 30 + 40 + 11, 'the relist events')
    const added = [...after.keys()].filter((x) => !before.has(x)).length
    const updated = [...after].filter(([x, v]) => before.has(x) && before.get(x)?.rev !== v.rev).length
    const deleted = [...before.keys()].filter((x) => !after.has(x)).length
    assert.deepEqual([added, updated, deleted], [30, 40, 11])
    assert.equal(rec.count('add', (e) => e.initial === false), added)
    assert.equal(rec.count('update'), updated)
    assert.equal(rec.count('delete', (e) => e.finalStateUnknown === true), deleted)
    assert.deepEqual(rec.spurious(), [])
    assertSameState(cacheOf(inf), after, 'cache after the relist')
    assert.equal(inf.stats.lists, 2)
    // And it watches again from the relist's revision.
    await etcd.put({ key: k(1), value: 'live' })
    await until(() => inf.indexer.get(k(1))?.value === 'live', 'a change after the relist')
  })

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
