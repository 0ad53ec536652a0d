// Resume without relist over a server restart (embedded, on disk): 10,000 keys cached by several
// informers; the Etcd is closed and opened again on the same data directory (the source re-targets to the
// new instance) while writes continue. Each informer ends with a cache equal to a fresh range, after
// exactly one list and without a single spurious event. The same over a child process (the CLI and the
// real etcd) is test/e2e/informer-restart.test.ts.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { SharedInformer } from '../../../src/informer/shared-informer.js'
import { tempDir } from '../../helpers/tmp.js'
import { until } from '../../helpers/until.js'
import { assertSameState, cacheOf, freshRange, objDecoder, Recorder, SwitchableSource, type Obj } from '../../helpers/informer.js'
import { Prng } from '../../helpers/prng.js'

const KEYS = 10_000
const enc = (s: string): Uint8Array => Buffer.from(s)
const k = (i: number): string => `r/${String(i).padStart(6, '0')}`

async function fill(etcd: Etcd): Promise<void> {
  for (let i = 0; i < KEYS; i += 100) {
    const success = Array.from({ length: 100 }, (_, j) => ({ type: 'put' as const, request: { key: enc(k(i + j)), value: enc(`v${i + j}`) } }))
    await etcd.txn({ success })
  }
}

it('10,000 cached keys, two restarts of an on-disk Etcd under writes: one list each, no spurious event, cache = fresh range', async () => {
  const dir = await tempDir('informer-restart-')
  let etcd = await openEtcd({ dataDir: dir.path, unsafeNoFsync: true })
  try {
    await fill(etcd)
    const source = new SwitchableSource(etcd)
    const informers = [500, 1000, 7].map((pageSize) => {
      const rec = new Recorder()
      const inf = new SharedInformer<Obj>(source, { prefix: 'r/', decode: objDecoder, pageSize, retryInitialMs: 5, retryMaxMs: 50, onError: () => undefined })
      inf.addEventHandler(rec.handler)
      return { inf: inf.start(), rec }
    })
    await Promise.all(informers.map((x) => x.inf.synced))

    // Writes continue throughout, retried while the server is down: updates, new keys, deletes.
    let writing = true
    let written = 0
    const prng = new Prng(7)
    const rand = (): number => prng.float()
    const writer = (async () => {
      while (writing) {
        const i = Math.floor(rand() * KEYS * 1.1)
        try {
          if (rand() < 0.1) await etcd.deleteRange({ key: k(i) })
          else await etcd.put({ key: k(i), value: `w${written}` })
          written++
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 2))
        }
      }
    })()

    for (let restart = 0; restart < 2; restart++) {
      const before = written
      await until(() => written >= before + 200, 'writes before the restart', 20_000)
      const watching = informers.map((x) => x.inf.stats.watches)
      await etcd.close()
      etcd = await openEtcd({ dataDir: dir.path, unsafeNoFsync: true })
      source.connect(etcd)
      // Each informer watches the new server before the next restart: two restarts inside one retry
      // delay would be one resume.
      await until(() => informers.every((x, j) => x.inf.stats.watches > (watching[j] ?? 0)), 'every informer watching again', 20_000)
    }
    const before = written
    await until(() => written >= before + 200, 'writes after the last restart', 20_000)
    writing = false
    await writer
    const want = await freshRange(etcd, enc('r/'), enc('r0'))
    const rev = (await etcd.range({ key: 'r/', limit: 1 })).header.revision
    for (const { inf, rec } of informers) {
      await until(() => inf.revision === rev, 'the informer catching up', 20_000)
      assertSameState(cacheOf(inf), want, 'cache')
      assertSameState(rec.view(), want, 'handler view')
      assert.equal(inf.stats.lists, 1)
      assert.equal(inf.stats.relists, 0)
      assert.ok(inf.stats.watches >= 3, `resumed after each restart (${inf.stats.watches} watches)`)
      assert.deepEqual(rec.spurious(), [])
      await inf.stop()
    }
  } finally {
    await etcd.close()
    await dir.remove()
  }
})
