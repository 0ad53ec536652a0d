// The shared informer over the embedded Etcd (src/informer/): a consistent paginated list, events to
// several handlers each on its own queue, late handlers, resync, indexes, and its option checks.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { SharedInformer } from '../../../src/informer/shared-informer.js'
import { jsonDecoder } from '../../../src/informer/options.js'
import type { ListWatchSource, SourceRangeRequest, SourceRangeResponse } from '../../../src/informer/source.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { until } from '../../helpers/until.js'
import { assertSameState, cacheOf, freshRange, objDecoder, Recorder, type Obj } from '../../helpers/informer.js'

const enc = (s: string): Uint8Array => Buffer.from(s)
const P = enc('p/')
const P_END = enc('p0')

async function fill(etcd: Etcd, n: number, prefix = 'p/'): Promise<void> {
  for (let i = 0; i < n; i++) await etcd.put({ key: `${prefix}${String(i).padStart(5, '0')}`, value: `v${i}` })
}

describe('SharedInformer', () => {
  it('Etcd is a ListWatchSource as it is', async () => {
    await using etcd = await openEtcd({ memory: true })
    const source: ListWatchSource = etcd
    assert.equal(typeof source.watch, 'function')
  })

  it('lists page by page at the first page\'s revision, then watches from it: changes during the list arrive as events', async () => {
    await using etcd = await openEtcd({ memory: true })
    await fill(etcd, 10)
    const revs: number[] = []
    let pages = 0
    const source: ListWatchSource = {
      range: async (req: SourceRangeRequest): Promise<SourceRangeResponse> => {
        revs.push(req.revision)
        const r = await etcd.range(req)
        // Between pages, change a key already listed, one not yet listed, and delete one.
        if (pages++ === 0) {
          await etcd.put({ key: 'p/00000', value: 'changed' })
          await etcd.put({ key: 'p/00009', value: 'changed' })
          await etcd.deleteRange({ key: 'p/00005' })
          await etcd.put({ key: 'p/new', value: 'n' })
        }
        return r
      },
      watch: (o) => etcd.watch(o),
    }
    const rec = new Recorder()
    const inf = new SharedInformer<Obj>(source, { prefix: 'p/', decode: objDecoder, pageSize: 3 })
    const reg = inf.addEventHandler(rec.handler)
    assert.equal(inf.hasSynced(), false)
    inf.start()
    await inf.synced
    await reg.synced
    assert.equal(reg.hasSynced(), true)
    assert.equal(pages, 4)
    assert.deepEqual(revs, [0, 11, 11, 11], 'every page after the first at its revision')
    assert.equal(rec.count('add', (e) => e.initial === true), 10, 'the list is the snapshot at revision 11')
    await until(() => inf.revision === 15, 'the watch catching up')
    assertSameState(cacheOf(inf), await freshRange(etcd, P, P_END), 'cache')
    assert.equal(rec.count('update'), 2)
    assert.equal(rec.count('delete', (e) => e.finalStateUnknown === false), 1)
    assert.equal(rec.count('add', (e) => e.initial === false), 1)
    assert.deepEqual(rec.spurious(), [])
    assert.equal(inf.stats.lists, 1)
    await inf.stop()
  })

  it('fans every change out to every handler; a late handler first gets the cache as adds', async () => {
    await using etcd = await openEtcd({ memory: true })
    await fill(etcd, 5)
    await using inf = new SharedInformer<Obj>(etcd, { prefix: 'p/', decode: objDecoder })
    const a = new Recorder()
    const b = new Recorder()
    inf.addEventHandler(a.handler)
    inf.addEventHandler(b.handler)
    inf.start()
    await inf.synced
    await etcd.put({ key: 'p/00001', value: 'x' })
    await etcd.deleteRange({ key: 'p/00002' })
    await etcd.put({ key: 'other', value: 'outside the prefix' })
    await until(() => a.events.length === 7 && b.events.length === 7, 'both handlers')
    assert.deepEqual(a.events, b.events)
    const late = new Recorder()
    const reg = inf.addEventHandler(late.handler)
    await reg.synced
    assert.equal(late.count('add', (e) => e.initial === true), 4)
    assert.deepEqual(late.view(), a.view())
    await etcd.put({ key: 'p/00003', value: 'y' })
    await until(() => late.events.length === 5, 'the late handler sees later changes')
    await reg.remove()
    await etcd.put({ key: 'p/00003', value: 'z' })
    await until(() => a.events.length === 9, 'the others')
    assert.equal(late.events.length, 5, 'a removed handler hears nothing')
  })

  it('a slow handler delays nobody; past maxBuffered its queue coalesces by key and it catches up to the latest state', async () => {
    await using etcd = await openEtcd({ memory: true })
    await fill(etcd, 3)
    await using inf = new SharedInformer<Obj>(etcd, { prefix: 'p/', decode: objDecoder })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const slow = new Recorder()
    const slowReg = inf.addEventHandler({
      onAdd: async (o, i) => {
        await gate
        slow.handler.onAdd(o, i)
      },
      onUpdate: (o, n, i) => slow.handler.onUpdate(o, n, i),
      onDelete: (o, i) => slow.handler.onDelete(o, i),
    }, { maxBuffered: 50 })
    const fast = new Recorder()
    inf.addEventHandler(fast.handler)
    inf.start()
    await inf.synced
    for (let i = 0; i < 300; i++) await etcd.put({ key: `p/0000${i % 3}`, value: `u${i}` })
    await etcd.put({ key: 'p/gone', value: 'g' })
    await etcd.deleteRange({ key: 'p/gone' })
    await until(() => fast.events.length === 3 + 300 + 2, 'the fast handler, while the slow one is stuck')
    assert.ok(slowReg.coalescing, 'the slow handler\'s queue coalesces')
    assert.ok(slowReg.pending <= 51, `pending stays bounded (${slowReg.pending})`)
    release()
    await until(() => slowReg.pending === 0 && !slowReg.coalescing, 'the slow handler catching up')
    assertSameState(slow.view(), cacheOf(inf), 'the slow handler\'s view')
    assert.ok(slow.events.length < fast.events.length, 'intermediate states were coalesced away')
    assert.deepEqual(slow.spurious(), [])
    assert.equal(slow.events.filter((e) => e.key === 'p/gone').length, 0, 'an add and delete it never saw: nothing')
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

  it('indexes: byIndex, indexKeys, listIndexValues follow adds, updates and deletes', async () => {
    await using etcd = await openEtcd({ memory: true })
    interface Pod { readonly node: string; readonly labels: readonly string[] }
    await etcd.put({ key: 'pods/a', value: JSON.stringify({ node: 'n1', labels: ['web'] }) })
    await etcd.put({ key: 'pods/b', value: JSON.stringify({ node: 'n1', labels: ['web', 'db'] }) })
    await etcd.put({ key: 'pods/c', value: JSON.stringify({ node: 'n2', labels: [] }) })
    await using inf = new SharedInformer<Pod>(etcd, {
      prefix: 'pods/',
      decode: jsonDecoder<Pod>(),
      indexers: { byNode: (p) => [p.node], byLabel: (p) => p.labels },
    }).start()
    await inf.synced
    const ix = inf.indexer
    assert.deepEqual(ix.indexKeys('byNode', 'n1').sort(), ['pods/a', 'pods/b'])
    assert.deepEqual(ix.byIndex('byLabel', 'db'), [{ node: 'n1', labels: ['web', 'db'] }])
    await etcd.put({ key: 'pods/a', value: JSON.stringify({ node: 'n2', labels: ['web'] }) })
    await etcd.deleteRange({ key: 'pods/b' })
    await until(() => ix.size === 2 && ix.get('pods/a')?.node === 'n2', 'the changes')
    assert.deepEqual(ix.indexKeys('byNode', 'n1'), [])
    assert.deepEqual(ix.indexKeys('byNode', 'n2').sort(), ['pods/a', 'pods/c'])
    assert.deepEqual(ix.listIndexValues('byLabel'), ['web'])
    assert.deepEqual(ix.indexNames(), ['byNode', 'byLabel'])
    assert.equal(ix.getEntry('pods/a')?.version, 2)
    assert.equal(ix.revision, 6)
    assert.throws(() => ix.byIndex('nope', 'x'), TypeError)
  })

  it('a value the decoder refuses is reported and left out; a later good value is an add', async () => {
    await using etcd = await openEtcd({ memory: true })
    await etcd.put({ key: 'j/a', value: '{bad' })
    const errors: string[] = []
    await using inf = new SharedInformer<unknown>(etcd, { prefix: 'j/', decode: jsonDecoder(), onError: (_e, c) => errors.push(c) }).start()
    await inf.synced
    assert.equal(inf.indexer.size, 0)
    assert.deepEqual(errors, ['decode j/a'])
    await etcd.put({ key: 'j/a', value: '{"ok":1}' })
    await until(() => inf.indexer.size === 1, 'the good value')
    assert.equal(inf.stats.decodeErrors, 1)
  })

  it('stop() called as the first list is delivered still ends the watch that follows', async () => {
    await using etcd = await openEtcd({ memory: true })
    await fill(etcd, 3)
    const inf = new SharedInformer<Obj>(etcd, { prefix: 'p/', decode: objDecoder }).start()
    await inf.synced
    let timer: NodeJS.Timeout | undefined
    const stopped = await Promise.race([
      inf.stop().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 5000))),
    ])
    clearTimeout(timer)
    assert.equal(stopped, true)
    assert.equal(inf.stats.watches, 0)
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
