// Resume without relist over a process restart: 10,000 keys cached by informers talking gRPC to a server
// process (the etcdlite CLI, and the real etcd), killed by SIGKILL or stopped by SIGTERM and started again
// on the same data directory and port while writes continue. The informers and the writer reach it with
// connect(), the package's remote client. Each informer ends with a cache equal to a fresh range, after
// exactly one list and zero spurious events.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SharedInformer } from '../../src/informer/shared-informer.js'
import { connect } from '../../src/client/connect.js'
import { startRestartable, type RestartableServer } from '../helpers/restartable-server.js'
import { assertSameState, cacheOf, freshRange, objDecoder, Recorder, type Obj } from '../helpers/informer.js'
import { haveEtcd } from '../helpers/processes.js'
import { until } from '../helpers/until.js'

const KEYS = 10_000
const enc = (s: string): Uint8Array => Buffer.from(s)
const k = (i: number): string => `r/${String(i).padStart(6, '0')}`

async function scenario(server: RestartableServer, signal: NodeJS.Signals): Promise<void> {
  const src = await connect({ endpoints: [server.endpoint], dialTimeoutMs: 30_000 })
  const writes = await connect({ endpoints: [server.endpoint], dialTimeoutMs: 30_000 })
  try {
    for (let i = 0; i < KEYS; i += 100) {
      const success = Array.from({ length: 100 }, (_, j) => ({ type: 'put' as const, request: { key: enc(k(i + j)), value: enc(`v${i + j}`) } }))
      await writes.txn({ success })
    }
    const informers = [500, 1000].map((pageSize) => {
      const rec = new Recorder()
      const inf = new SharedInformer<Obj>(src, { prefix: 'r/', decode: objDecoder, pageSize, retryInitialMs: 20, retryMaxMs: 200, onError: () => undefined })
      inf.addEventHandler(rec.handler)
      return { inf: inf.start(), rec }
    })
    await Promise.all(informers.map((x) => x.inf.synced))
    let writing = true
    let written = 0
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        try {
          await writes.put({ key: enc(k((n * 7919) % (KEYS + 500))), value: enc(`w${n}`) })
          written++
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
    })()
    await until(() => written >= 100, 'writes before the restart', 20_000)
    await server.kill(signal)
    await server.start()
    const before = written
    await until(() => written >= before + 100, 'writes after the restart', 30_000)
    writing = false
    await writer
    const want = await freshRange(writes, enc('r/'), enc('r0'))
    const rev = (await writes.range({ key: enc('r/'), rangeEnd: enc('r0'), limit: 1, revision: 0 })).header.revision
    for (const { inf, rec } of informers) {
      await until(() => inf.revision >= rev, 'the informer catching up', 30_000)
      assertSameState(cacheOf(inf), want, 'cache')
      assertSameState(rec.view(), want, 'handler view')
      assert.equal(inf.stats.lists, 1)
      // The watch resumed across the restart (the writes after it are in the cache) without a relist; whether
      // the remote client's watcher or the informer re-created it is theirs to decide.
      assert.deepEqual(rec.spurious(), [])
      await inf.stop()
    }
  } finally {
    await src.close()
    await writes.close()
  }
}

describe('informer over a restarted server process', () => {
  for (const [name, kind, skip] of [['etcdlite', 'etcdlite', false], ['etcd', 'etcd', !haveEtcd()]] as const) {
    for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
      it(`${name}, ${signal}: 10,000 keys, writes throughout, one list, no spurious event`, { skip: skip && 'etcd is not installed' }, async () => {
        const server = await startRestartable(kind)
        try {
          await scenario(server, signal)
        } finally {
          await server.dispose()
        }
      })
    }
  }
})
