import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { Level } from 'level'
import { LevelBackend } from '../../../src/backend/level-backend.js'
import { KvStore } from '../../../src/mvcc/kvstore.js'
import { CompactedError, FutureRevError } from '../../../src/mvcc/errors.js'
import { FROM_KEY } from '../../../src/pkg/bytes.js'
import { revToBytes } from '../../../src/mvcc/revision.js'
import type { LevelDb } from '../../../src/embed/options.js'
import { tempDir } from '../../helpers/tmp.js'
import { memoryBackend } from '../../helpers/memory-backend.js'

const b = (s: string): Uint8Array => Buffer.from(s)
const str = (u: Uint8Array): string => Buffer.from(u).toString()

async function memStore(opts = {}): Promise<KvStore> {
  const be = await memoryBackend()
  return KvStore.open(be, opts)
}

async function put(s: KvStore, k: string, v: string): Promise<number> {
  const tw = s.write()
  tw.put(b(k), b(v), 0n)
  const rev = tw.end()
  await s.sync(rev)
  return rev
}

async function del(s: KvStore, k: string): Promise<number> {
  const tw = s.write()
  tw.deleteRange(b(k), undefined)
  const rev = tw.end()
  await s.sync(rev)
  return rev
}

describe('KvStore', () => {
  it('starts at revision 1 and gives each write txn one revision', async () => {
    const s = await memStore()
    assert.equal(s.rev(), 1)
    const tw = s.write()
    tw.put(b('a'), b('1'), 0n)
    tw.put(b('b'), b('2'), 0n)
    assert.equal(tw.range(b('a'), b('c')).kvs.length, 2, 'a txn reads its own writes')
    assert.equal(tw.end(), 2)
    const noop = s.write()
    assert.equal(noop.deleteRange(b('zzz'), undefined).deleted, 0)
    assert.equal(noop.end(), 2, 'a txn that changes nothing takes no revision')
    await s.close()
  })

  it('serves reads at the durable revision only', async () => {
    const s = await memStore()
    await put(s, 'a', '1')
    const tw = s.write()
    tw.put(b('a'), b('2'), 0n)
    const rev = tw.end()
    assert.equal(s.read().rev(), 2, 'the un-synced revision 3 is not visible yet')
    assert.equal(str((s.read().range(b('a'), undefined).kvs[0] ?? assert.fail()).value), '1')
    await s.sync(rev)
    assert.equal(str((s.read().range(b('a'), undefined).kvs[0] ?? assert.fail()).value), '2')
    await s.close()
  })

  it('tracks versions and create revisions across delete and re-create', async () => {
    const s = await memStore()
    await put(s, 'k', 'a') // 2
    await put(s, 'k', 'b') // 3
    await del(s, 'k') // 4
    await put(s, 'k', 'c') // 5
    const at = (rev: number) => s.read().range(b('k'), undefined, { rev }).kvs[0]
    assert.deepEqual([at(3)?.version, at(3)?.createRevision, at(3)?.modRevision], [2, 2, 3])
    assert.equal(at(4), undefined)
    assert.deepEqual([at(5)?.version, at(5)?.createRevision, at(5)?.modRevision], [1, 5, 5])
    assert.throws(() => s.read().range(b('k'), undefined, { rev: 6 }), FutureRevError)
    await s.close()
  })

  it('compaction keeps the newest revision at or below it and removes the rest from the backend', async () => {
    const s = await memStore({ compactionBatchLimit: 2 })
    await put(s, 'a', '1') // 2
    await put(s, 'a', '2') // 3
    await put(s, 'b', '1') // 4
    await del(s, 'b') // 5
    await put(s, 'c', '1') // 6
    const { done } = await s.compact(5)
    assert.equal(s.compactRev(), 5)
    assert.throws(() => s.read().range(b('a'), undefined, { rev: 4 }), CompactedError)
    await done
    const kv = s.read().range(b('a'), FROM_KEY, { rev: 5 })
    assert.deepEqual(kv.kvs.map((x) => `${str(x.key)}=${str(x.value)}@${x.modRevision}`), ['a=2@3'])
    const log = await s.backend.scan('key', revToBytes({ main: 0, sub: 0 }), new Uint8Array(18).fill(0xff), 100)
    assert.equal(log.length, 3, 'only a@3, the tombstone of b at exactly 5 (etcd-io/etcd#18274) and c@6 remain in the revision log')
    await assert.rejects(s.compact(5), CompactedError)
    await assert.rejects(s.compact(7), FutureRevError)
    await s.close()
  })

  it('rebuilds the index on reopen and resumes an unfinished compaction', async () => {
    const dir = await tempDir()
    const open = async (): Promise<KvStore> =>
      KvStore.open(await LevelBackend.open(new Level(join(dir.path, 'db'), { keyEncoding: 'view', valueEncoding: 'view' }) as unknown as LevelDb, { syncWrites: true }))
    let s = await open()
    for (let i = 0; i < 20; i++) await put(s, `k${i % 5}`, String(i))
    await del(s, 'k0')
    // Schedule a compaction but close before it can run: the scheduled revision is persisted.
    const { done } = await s.compact(15)
    await s.close()
    await done.catch(() => undefined)
    s = await open()
    assert.equal(s.rev(), 22)
    assert.equal(s.compactRev(), 15, 'the scheduled compaction is resumed on open')
    assert.throws(() => s.read().range(b('k1'), undefined, { rev: 14 }), CompactedError)
    const live = s.read().range(b('k'), b('l'))
    assert.deepEqual(live.kvs.map((x) => `${str(x.key)}=${str(x.value)}`), ['k1=16', 'k2=17', 'k3=18', 'k4=19'])
    assert.deepEqual(live.kvs.map((x) => x.version), [4, 4, 4, 4])
    assert.equal(s.keyCount(), 4, 'live keys counted again from the restored index')
    await s.close()
    s = await open()
    assert.deepEqual(s.read().range(b('k'), b('l'), { rev: 15 }).kvs.map((x) => `${str(x.key)}=${str(x.value)}`), ['k0=10', 'k1=11', 'k2=12', 'k3=13', 'k4=9'])
    await s.close()
    await dir.remove()
  })
})
