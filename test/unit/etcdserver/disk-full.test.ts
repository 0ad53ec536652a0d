// A commit that fails because the disk is full, on a memory-level database whose batch writes fail on
// demand with LevelDB's error (so it runs everywhere; test/e2e/disk-full.test.ts does the same on a real
// full filesystem): the server answers NO_SPACE, raises the NOSPACE alarm, and undoes in memory what did
// not reach the disk: keys, revision, watch events, and the leases of keys, granted and revoked.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MemoryLevel } from 'memory-level'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { EtcdError } from '../../../src/pkg/errors.js'

/** abstract-level's internal batch write, which every batch (chained ones too) ends in; not in its types. */
type BatchWrite = (this: MemoryLevel<Uint8Array, Uint8Array>, operations: unknown, options: unknown) => Promise<void>
const memoryBatch = (MemoryLevel.prototype as unknown as { _batch: BatchWrite })._batch

/** A memory-level database whose writes fail as LevelDB's do on a full disk while `full` is set. */
class FillableLevel extends MemoryLevel<Uint8Array, Uint8Array> {
  full = false

  async _batch(operations: unknown, options: unknown): Promise<void> {
    if (this.full) throw new Error('IO error: /data/000003.log: No space left on device')
    await memoryBatch.call(this, operations, options)
  }
}

const b = (s: string): Buffer => Buffer.from(s)

const isNoSpace = (err: unknown): boolean => err instanceof EtcdError && err.code === 'NO_SPACE'

async function open(): Promise<{ etcd: Etcd; db: FillableLevel }> {
  const db = new FillableLevel({ keyEncoding: 'view', valueEncoding: 'view' })
  return { etcd: await openEtcd({ db }), db }
}

/** key=value@modRevision (lease) of every key. */
async function dump(etcd: Etcd): Promise<string[]> {
  const r = await etcd.range({ key: b('\0'), rangeEnd: b('\0') })
  return r.kvs.map((kv) => `${Buffer.from(kv.key).toString()}=${Buffer.from(kv.value).toString()}@${kv.modRevision}${kv.lease === 0n ? '' : ` lease ${kv.lease}`}`)
}

describe('a commit that fails on a full disk', () => {
  it('is answered NO_SPACE and undone: keys, revision, watchers, key leases; disarm lets writes go again', async () => {
    const { etcd, db } = await open()
    try {
      const { id: lease } = await etcd.leaseGrant({ ttl: 60 })
      await etcd.put({ key: b('a'), value: b('1'), lease })
      await etcd.put({ key: b('b'), value: b('1') })
      const rev = etcd.server.kv.rev()
      const before = await dump(etcd)
      const events: string[] = []
      const watcher = etcd.watch({ key: b('\0'), rangeEnd: b('\0') })
      const watching = (async () => {
        for await (const r of watcher) for (const e of r.events) events.push(`${e.type} ${Buffer.from(e.kv.key).toString()}@${e.kv.modRevision}`)
      })()

      db.full = true
      // Three writes in flight together: they share commits, and every one of them fails and is undone.
      const results = await Promise.allSettled([
        etcd.put({ key: b('a'), value: b('2') }),
        etcd.txn({ success: [
          { type: 'put', request: { key: b('new'), value: b('x'), lease } },
          { type: 'deleteRange', request: { key: b('b') } },
          { type: 'put', request: { key: b('c'), value: b('3') } },
        ] }),
        etcd.deleteRange({ key: b('a') }),
      ])
      for (const r of results) assert.ok(r.status === 'rejected' && isNoSpace(r.reason), String(r.status === 'rejected' ? r.reason : 'fulfilled'))
      assert.equal(etcd.server.kv.rev(), rev)
      assert.deepEqual(await dump(etcd), before)
      assert.deepEqual((await etcd.leaseTimeToLive({ id: lease, keys: true })).keys.map((k) => Buffer.from(k).toString()), ['a'])
      assert.deepEqual((await etcd.alarmList()).map((a) => a.alarm), ['NOSPACE'])
      await assert.rejects(etcd.put({ key: b('c'), value: b('1') }), isNoSpace)
      await assert.rejects(etcd.deleteRange({ key: b('a') }), isNoSpace)
      // A lease revoke that cannot be written leaves the lease and its key.
      await assert.rejects(etcd.leaseRevoke({ id: lease }), isNoSpace)
      assert.deepEqual((await etcd.leaseTimeToLive({ id: lease, keys: true })).keys.map((k) => Buffer.from(k).toString()), ['a'])

      db.full = false
      await etcd.alarmDisarm()
      assert.deepEqual(await etcd.alarmList(), [])
      const put = await etcd.put({ key: b('c'), value: b('1') })
      assert.equal(put.header.revision, rev + 1)
      await etcd.leaseRevoke({ id: lease })
      assert.deepEqual(await dump(etcd), [`b=1@${rev}`, `c=1@${rev + 1}`])
      const deadline = Date.now() + 10_000
      while (events.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
      assert.deepEqual(events, [`PUT c@${rev + 1}`, `DELETE a@${rev + 2}`])
      await watcher.cancel()
      await watching
    } finally {
      await etcd.close()
    }
  })

  it('forgets a lease whose grant did not reach the disk', async () => {
    const { etcd, db } = await open()
    try {
      db.full = true
      await assert.rejects(etcd.leaseGrant({ ttl: 60, id: 7n }), isNoSpace)
      db.full = false
      assert.deepEqual((await etcd.leaseLeases()).leases, [])
      await etcd.alarmDisarm()
      assert.equal((await etcd.leaseGrant({ ttl: 60, id: 7n })).id, 7n)
    } finally {
      await etcd.close()
    }
  })
})
