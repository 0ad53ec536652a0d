// The informer suite: the same tests over every target (targets.ts), so the informer's list, watch, resume
// and relist behaviour is checked against the embedded Etcd, etcdlite over gRPC and the real etcd alike.
// Tests that need the ManualClock (periodic resync, an idle spell of exact length) drive the embedded Etcd
// only and live in test/unit/informer.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { EtcdClient } from '../../src/client/etcd-client.js'
import { SharedInformer } from '../../src/informer/shared-informer.js'
import { jsonDecoder, type SharedInformerOptions } from '../../src/informer/options.js'
import type { ListWatchSource, SourceRangeRequest, SourceRangeResponse } from '../../src/informer/source.js'
import { until } from '../helpers/until.js'
import { assertSameState, cacheOf, freshRange, objDecoder, Recorder, SwitchableSource, type Obj } from '../helpers/informer.js'
import type { InformerTarget, TargetServer } from './targets.js'

const enc = (s: string): Uint8Array => Buffer.from(s)
const P = enc('p/')
const P_END = enc('p0')
const k = (i: number): string => `p/${String(i).padStart(5, '0')}`
/** Quick retries: a test reconnects within milliseconds. */
const FAST_RETRY = { retryInitialMs: 5, retryMaxMs: 20 } as const

async function fill(c: EtcdClient, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) await c.put({ key: k(i), value: `v${i}` })
}

/**
 * An informer over prefix p/ behind a SwitchableSource (so a test can cut it off and reconnect it), with a
 * recording handler, started and synced.
 */
async function behindSwitch(s: TargetServer, opts: Partial<SharedInformerOptions<Obj>> = {}): Promise<{ source: SwitchableSource; rec: Recorder; informer: SharedInformer<Obj> }> {
  const source = new SwitchableSource(s.source)
  const rec = new Recorder()
  const informer = new SharedInformer<Obj>(source, { prefix: 'p/', decode: objDecoder, ...FAST_RETRY, onError: () => undefined, ...opts })
  informer.addEventHandler(rec.handler)
  informer.start()
  await informer.synced
  return { source, rec, informer }
}

export function runInformerSuite(target: InformerTarget): void {
  describe(`SharedInformer over ${target.name}`, { ...(target.skip === undefined ? {} : { skip: target.skip }) }, () => {
    it('lists page by page at the first page\'s revision, then watches from it: changes during the list arrive as events', async () => {
      await using s = await target.open()
      const c = s.client
      await fill(c, 0, 10)
      const revs: number[] = []
      let pages = 0
      const source: ListWatchSource = {
        range: async (req: SourceRangeRequest): Promise<SourceRangeResponse> => {
          revs.push(req.revision)
          const r = await s.source.range(req)
          // Between pages, change a key already listed, one not yet listed, and delete one.
          if (pages++ === 0) {
            await c.put({ key: k(0), value: 'changed' })
            await c.put({ key: k(9), value: 'changed' })
            await c.deleteRange({ key: k(5) })
            await c.put({ key: 'p/new', value: 'n' })
          }
          return r
        },
        watch: (o) => s.source.watch(o),
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
      assertSameState(cacheOf(inf), await freshRange(c, P, P_END), 'cache')
      assert.equal(rec.count('update'), 2)
      assert.equal(rec.count('delete', (e) => e.finalStateUnknown === false), 1)
      assert.equal(rec.count('add', (e) => e.initial === false), 1)
      assert.deepEqual(rec.spurious(), [])
      assert.equal(inf.stats.lists, 1)
      await inf.stop()
    })

    it('fans every change out to every handler; a late handler first gets the cache as adds', async () => {
      await using s = await target.open()
      const c = s.client
      await fill(c, 0, 5)
      await using inf = new SharedInformer<Obj>(s.source, { prefix: 'p/', decode: objDecoder })
      const a = new Recorder()
      const b = new Recorder()
      inf.addEventHandler(a.handler)
      inf.addEventHandler(b.handler)
      inf.start()
      await inf.synced
      await c.put({ key: k(1), value: 'x' })
      await c.deleteRange({ key: k(2) })
      await c.put({ key: 'other', value: 'outside the prefix' })
      await until(() => a.events.length === 7 && b.events.length === 7, 'both handlers')
      assert.deepEqual(a.events, b.events)
      const late = new Recorder()
      const reg = inf.addEventHandler(late.handler)
      await reg.synced
      assert.equal(late.count('add', (e) => e.initial === true), 4)
      assert.deepEqual(late.view(), a.view())
      await c.put({ key: k(3), value: 'y' })
      await until(() => late.events.length === 5, 'the late handler sees later changes')
      await reg.remove()
      await c.put({ key: k(3), value: 'z' })
      await until(() => a.events.length === 9, 'the others')
      assert.equal(late.events.length, 5, 'a removed handler hears nothing')
    })

    it('a slow handler delays nobody; past maxBuffered its queue coalesces by key and it catches up to the latest state', async () => {
      await using s = await target.open()
      const c = s.client
      await fill(c, 0, 3)
      await using inf = new SharedInformer<Obj>(s.source, { prefix: 'p/', decode: objDecoder })
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
      for (let i = 0; i < 300; i++) await c.put({ key: k(i % 3), value: `u${i}` })
      await c.put({ key: 'p/gone', value: 'g' })
      await c.deleteRange({ key: 'p/gone' })
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

    it('indexes: byIndex, indexKeys, listIndexValues follow adds, updates and deletes', async () => {
      await using s = await target.open()
      const c = s.client
      interface Pod { readonly node: string; readonly labels: readonly string[] }
      await c.put({ key: 'pods/a', value: JSON.stringify({ node: 'n1', labels: ['web'] }) })
      await c.put({ key: 'pods/b', value: JSON.stringify({ node: 'n1', labels: ['web', 'db'] }) })
      await c.put({ key: 'pods/c', value: JSON.stringify({ node: 'n2', labels: [] }) })
      await using inf = new SharedInformer<Pod>(s.source, {
        prefix: 'pods/',
        decode: jsonDecoder<Pod>(),
        indexers: { byNode: (p) => [p.node], byLabel: (p) => p.labels },
      }).start()
      await inf.synced
      const ix = inf.indexer
      assert.deepEqual(ix.indexKeys('byNode', 'n1').sort(), ['pods/a', 'pods/b'])
      assert.deepEqual(ix.byIndex('byLabel', 'db'), [{ node: 'n1', labels: ['web', 'db'] }])
      await c.put({ key: 'pods/a', value: JSON.stringify({ node: 'n2', labels: ['web'] }) })
      await c.deleteRange({ key: 'pods/b' })
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
      await using s = await target.open()
      await s.client.put({ key: 'j/a', value: '{bad' })
      const errors: string[] = []
      await using inf = new SharedInformer<unknown>(s.source, { prefix: 'j/', decode: jsonDecoder(), onError: (_e, ctx) => errors.push(ctx) }).start()
      await inf.synced
      assert.equal(inf.indexer.size, 0)
      assert.deepEqual(errors, ['decode j/a'])
      await s.client.put({ key: 'j/a', value: '{"ok":1}' })
      await until(() => inf.indexer.size === 1, 'the good value')
      assert.equal(inf.stats.decodeErrors, 1)
    })

    it('stop() called as the first list is delivered still ends the watch that follows', async () => {
      await using s = await target.open()
      await fill(s.client, 0, 3)
      const inf = new SharedInformer<Obj>(s.source, { prefix: 'p/', decode: objDecoder }).start()
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

    it('a dropped watch resumes from the last revision: no relist, no missed or repeated event', async () => {
      await using s = await target.open()
      const c = s.client
      await fill(c, 0, 20)
      const { source, rec, informer } = await behindSwitch(s)
      await using inf = informer
      for (let round = 0; round < 3; round++) {
        await source.disconnect()
        await fill(c, round * 5, round * 5 + 10)
        await c.deleteRange({ key: k(15 + round) })
        source.connect(s.source)
        const rev = await s.rev()
        await until(() => inf.revision === rev, 'catching up')
      }
      assertSameState(cacheOf(inf), await freshRange(c, P, P_END), 'cache')
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
      await using s = await target.open()
      const c = s.client
      await fill(c, 0, 100)
      const { source, rec, informer } = await behindSwitch(s)
      await using inf = informer
      await until(() => rec.events.length === 100, 'initial adds')
      await source.disconnect()
      const before = cacheOf(inf)
      await fill(c, 100, 130) // 30 new keys
      for (let i = 0; i < 40; i++) await c.put({ key: k(i), value: `changed${i}` }) // 40 changed
      for (let i = 0; i < 10; i++) await c.put({ key: k(i), value: `again${i}` }) // changed twice: still 40 keys
      await c.put({ key: k(50), value: 'temp' })
      await c.deleteRange({ key: k(50) }) // changed then deleted
      await c.deleteRange({ key: k(90), rangeEnd: k(100) }) // 10 deleted
      await c.put({ key: k(200), value: 'x' })
      await c.deleteRange({ key: k(200) }) // born and gone: nothing
      const compacted = await s.rev()
      await c.compact({ revision: compacted })
      const after = await freshRange(c, P, P_END)
      rec.events.length = 0
      source.connect(s.source)
      await until(() => inf.stats.relists === 1 && inf.revision === compacted, 'the relist')
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
      await c.put({ key: k(1), value: 'live' })
      await until(() => inf.indexer.get(k(1))?.value === 'live', 'a change after the relist')
    })

    for (const progress of [true, false]) {
      it(`idle, then compacted while disconnected: ${progress ? 'progress requests keep the revision fresh, so no relist' : 'without progress it must relist (the control case)'}`, async () => {
        await using s = await target.open()
        const c = s.client
        await fill(c, 0, 10)
        const { source, rec, informer } = await behindSwitch(s, { progressIntervalMs: progress ? 100 : 1e9, progressNotify: false })
        await using inf = informer
        const listed = inf.revision
        // Writes elsewhere move the store's revision on; the informer's range sees nothing.
        for (let i = 0; i < 50; i++) await c.put({ key: `q/${i}`, value: 'x' })
        const idle = await s.rev()
        if (progress) {
          await until(() => inf.revision === idle, 'progress bringing the revision up')
          assert.ok(inf.stats.progressRequests >= 1)
        } else {
          await new Promise((resolve) => setTimeout(resolve, 300))
          assert.equal(inf.revision, listed)
        }
        await source.disconnect()
        await c.compact({ revision: idle })
        source.connect(s.source)
        // With progress: one watch resumed. Without: a watch that finds its revision compacted, a list, a watch.
        await until(() => inf.stats.lists === (progress ? 1 : 2) && inf.stats.watches === (progress ? 2 : 3), 'the watch again')
        await c.put({ key: k(3), value: 'after' })
        await until(() => inf.indexer.get(k(3))?.value === 'after', 'a change after reconnecting')
        assert.equal(inf.stats.lists, progress ? 1 : 2)
        assert.equal(inf.stats.relists, progress ? 0 : 1)
        assert.deepEqual(rec.spurious(), [])
        assert.equal(rec.events.length, 11, 'the initial adds and the one update: the relist found nothing changed')
      })
    }

    it('the server\'s periodic progress notifications also advance the revision of an idle informer', async () => {
      await using s = await target.open({ progressNotifyIntervalMs: 200 })
      await fill(s.client, 0, 3)
      await using inf = new SharedInformer<Obj>(s.source, { prefix: 'p/', decode: objDecoder, progressIntervalMs: 1e9 }).start()
      await inf.synced
      for (let i = 0; i < 5; i++) await s.client.put({ key: `q/${i}`, value: 'x' })
      const rev = await s.rev()
      await until(() => inf.revision === rev, 'the notification')
      assert.equal(inf.stats.progressRequests, 0)
    })
  })
}
