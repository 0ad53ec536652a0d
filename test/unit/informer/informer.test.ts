// The shared informer's embedded-only cases: periodic resync on the ManualClock, and its option checks.
// What holds over every server (list, handlers, indexes, resume, relist) is the suite in test/informer.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { SharedInformer } from '../../../src/informer/shared-informer.js'
import type { ListWatchSource } from '../../../src/informer/source.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { until } from '../../helpers/until.js'
import { objDecoder, Recorder, type Obj } from '../../helpers/informer.js'

async function fill(etcd: Etcd, n: number, prefix = 'p/'): Promise<void> {
  for (let i = 0; i < n; i++) await etcd.put({ key: `${prefix}${String(i).padStart(5, '0')}`, value: `v${i}` })
}

describe('SharedInformer', () => {
  it('Etcd is a ListWatchSource as it is', async () => {
    await using etcd = await openEtcd({ memory: true })
    const source: ListWatchSource = etcd
    assert.equal(typeof source.watch, 'function')
  })

  it('periodic resync re-delivers the cache as updates marked resync, only to the handler that asked', async () => {
    const clock = new ManualClock()
    await using etcd = await openEtcd({ memory: true, clock })
    await fill(etcd, 4)
    await using inf = new SharedInformer<Obj>(etcd, { prefix: 'p/', decode: objDecoder, clock })
    const resyncing = new Recorder()
    const plain = new Recorder()
    inf.addEventHandler(resyncing.handler, { resyncPeriodMs: 1000 })
    inf.addEventHandler(plain.handler)
    inf.start()
    await inf.synced
    await until(() => resyncing.events.length === 4, 'initial adds')
    await clock.advance(1000)
    await until(() => resyncing.events.length === 8, 'one resync')
    await clock.advance(1000)
    await until(() => resyncing.events.length === 12, 'another')
    assert.equal(resyncing.count('update', (e) => e.resync === true && e.old === e.obj), 8)
    assert.equal(plain.events.length, 4)
  })

  it('refuses bad options with a TypeError', async () => {
    await using etcd = await openEtcd({ memory: true })
    const bad: unknown[] = [
      {}, { decode: 1 }, { decode: objDecoder, pageSize: 0 }, { decode: objDecoder, pageSize: 1.5 },
      { decode: objDecoder, prefix: 'a', key: 'b' }, { decode: objDecoder, prefix: 5 }, { decode: objDecoder, clock: {} },
      { decode: objDecoder, progressIntervalMs: -1 }, { decode: objDecoder, indexers: { x: 1 } },
    ]
    for (const o of bad) assert.throws(() => new SharedInformer(etcd, o as never), TypeError, JSON.stringify(o))
    assert.throws(() => new SharedInformer({} as never, { decode: objDecoder }), TypeError)
    const inf = new SharedInformer(etcd, { decode: objDecoder })
    assert.throws(() => inf.addEventHandler({}, { maxBuffered: 0 }), TypeError)
    await inf.stop()
    assert.throws(() => inf.start(), /after stop/)
  })
})
