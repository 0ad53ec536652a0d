// The MVCC write path in memory, without gRPC or the server around it: a write txn of one put (index,
// KeyValue encode, revision, observers) and its commit to a memory-level backend.
import { KvStore } from '../../src/mvcc/kvstore.js'
import { memoryBackend } from '../../test/helpers/memory-backend.js'
import { bytes, seeded, utf8, type MicroSuite } from './suite.js'

let store: KvStore | undefined

export const mvccPut: MicroSuite = {
  name: 'mvcc-put',
  tasks: async () => {
    const s = await KvStore.open(await memoryBackend())
    store = s
    const rnd = seeded(3)
    const keys = Array.from({ length: 100_000 }, (_, i) => utf8(`key-${i}`))
    const value = bytes(256)
    const put = (): number => {
      const tw = s.write()
      tw.put(keys[rnd(keys.length)] as Uint8Array, value, 0n)
      return tw.end()
    }
    return [
      // 100 txns, then one commit for them all: the store's group commit under load.
      { name: 'put txn, 100 per commit', batch: 100, fn: async () => { let rev = 0; for (let i = 0; i < 100; i++) rev = put(); await s.sync(rev) } },
      { name: 'put txn + its own commit', fn: () => s.sync(put()) },
      { name: 'range 1 key', batch: 100, fn: () => { for (let i = 0; i < 100; i++) s.read().range(keys[rnd(keys.length)] as Uint8Array, undefined) } },
    ]
  },
  close: async () => {
    await store?.close()
    store = undefined
  },
}
