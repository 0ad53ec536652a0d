// The v2 side of the server: the member's records a new v2 store starts with, every proposal (writes,
// failed or not, and quorum reads) counted as a raft entry, SYNC entries expiring keys while a key has a
// TTL, the store surviving a restart on disk (with the member published again), and v2 writes leaving the
// v3 hash alone.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import type { V2Server } from '../../../src/etcdserver/v2-server.js'
import { requestV2, type RequestV2 } from '../../../src/etcdserver/v2-request.js'
import { V2Error } from '../../../src/etcdserver/api/v2error/error.js'
import { eventJson } from '../../../src/etcdserver/api/v2store/event.js'
import { goJsonMarshal } from '../../../src/pkg/go-json.js'
import { tempDir } from '../../helpers/tmp.js'

function v2Of(etcd: Etcd): V2Server {
  const v2 = etcd.server.v2
  assert.ok(v2 !== undefined, 'the v2 API is on')
  return v2
}

const put = (path: string, val: string, more: Partial<RequestV2> = {}): RequestV2 => requestV2({ method: 'PUT', path, val, ...more })
const raft = (etcd: Etcd): number => etcd.server.appliedIndex.raftIndex()
const listing = async (v2: V2Server, path: string): Promise<string> => {
  const { event } = await v2.do(requestV2({ method: 'GET', path, recursive: true, sorted: true }))
  assert.ok(event !== undefined)
  return goJsonMarshal(eventJson(event))
}

describe('the v2 server', () => {
  it("starts a new store as etcd does: this member's records and the cluster version, at index 3", async () => {
    const etcd = await openEtcd({ memory: true, enableV2: true, name: 'n1', peerUrls: ['http://127.0.0.1:2380'] })
    try {
      const v2 = v2Of(etcd)
      const id = etcd.server.memberId.toString(16)
      assert.equal(v2.store.currentIndex, 3)
      assert.equal(
        await listing(v2, '/0'),
        `{"action":"get","node":{"key":"/0","dir":true,"nodes":[{"key":"/0/members","dir":true,"nodes":[{"key":"/0/members/${id}","dir":true,"nodes":[` +
          `{"key":"/0/members/${id}/attributes","value":"{\\"name\\":\\"n1\\"}","modifiedIndex":2,"createdIndex":2},` +
          `{"key":"/0/members/${id}/raftAttributes","value":"{\\"peerURLs\\":[\\"http://127.0.0.1:2380\\"]}","modifiedIndex":1,"createdIndex":1}],` +
          `"modifiedIndex":1,"createdIndex":1}],"modifiedIndex":1,"createdIndex":1},{"key":"/0/version","value":"3.5.0","modifiedIndex":3,"createdIndex":3}]}}`,
      )
    } finally {
      await etcd.close()
    }
  })

  it('counts every write, failed or not, and every quorum read as one raft entry; plain reads and watches as none', async () => {
    const etcd = await openEtcd({ memory: true, enableV2: true })
    try {
      const v2 = v2Of(etcd)
      const r0 = raft(etcd)
      const ok = await v2.do(put('/1/a', 'x'))
      assert.deepEqual([ok.index, ok.term, raft(etcd)], [r0 + 1, etcd.server.raftTerm, r0 + 1])
      await assert.rejects(v2.do(put('/1/a', 'y', { prevExist: false })), (err: unknown) => err instanceof V2Error && err.errorCode === 105)
      assert.equal(raft(etcd), r0 + 2)
      await v2.do(requestV2({ method: 'GET', path: '/1/a' }))
      await v2.do(requestV2({ method: 'HEAD', path: '/1/a' }))
      const w = await v2.do(requestV2({ method: 'GET', path: '/1/a', wait: true }))
      w.watcher?.remove()
      assert.equal(raft(etcd), r0 + 2)
      await v2.do(requestV2({ method: 'GET', path: '/1/a', quorum: true, wait: true }))
      assert.equal(raft(etcd), r0 + 3)
      // Status reports the same count.
      assert.equal((await etcd.status()).raftIndex, r0 + 3)
    } finally {
      await etcd.close()
    }
  })

  it('expires keys on a SYNC entry every 500 ms, only while some key has a TTL', async () => {
    const clock = new ManualClock()
    const etcd = await openEtcd({ memory: true, enableV2: true, clock })
    try {
      const v2 = v2Of(etcd)
      await clock.advance(1000)
      const r0 = raft(etcd)
      await v2.do(put('/1/t', 'v', { expiration: v2.now() + 1_000_000_000n }))
      await clock.advance(500)
      assert.equal(raft(etcd), r0 + 2)
      assert.equal((await v2.do(requestV2({ method: 'GET', path: '/1/t' }))).event?.node?.ttl, 1)
      await clock.advance(500)
      assert.equal(raft(etcd), r0 + 3)
      await assert.rejects(v2.do(requestV2({ method: 'GET', path: '/1/t' })), (err: unknown) => err instanceof V2Error && err.errorCode === 100)
      const expired = (await v2.do(requestV2({ method: 'GET', path: '/1/t', wait: true, since: 5n }))).watcher?.take()
      assert.equal(expired?.action, 'expire')
      await clock.advance(5000)
      assert.equal(raft(etcd), r0 + 3)
      assert.equal((JSON.parse(v2.store.jsonStats()) as Record<string, number>)['expireCount'], 1)
    } finally {
      await etcd.close()
    }
  })

  it('survives a restart on disk: nodes, TTLs, users, history, index and write statistics; the start publishes the member again', async () => {
    const dir = await tempDir()
    try {
      let before: { keys: string; auth: string; index: number; stats: Record<string, number> }
      const far = (v2: V2Server): bigint => v2.now() + 3600n * 1_000_000_000n
      {
        const etcd = await openEtcd({ dataDir: dir.path, enableV2: true })
        const v2 = v2Of(etcd)
        await v2.do(put('/1/a/b', '1'))
        await v2.do(put('/1/t', 'ttl', { expiration: far(v2) }))
        await v2.do(put('/1/d', '', { dir: true }))
        await v2.do(put('/1/gone', 'x'))
        await v2.do(requestV2({ method: 'DELETE', path: '/1/gone' }))
        await v2.do(requestV2({ method: 'POST', path: '/1/q', val: 'first' }))
        await assert.rejects(v2.do(put('/1/a/b', '2', { prevValue: 'nope' })))
        await v2.auth.createUser({ user: 'root', password: 'pw', roles: null, grant: null, revoke: null })
        before = {
          keys: await listing(v2, '/1'),
          auth: await listing(v2, '/2'),
          index: v2.store.currentIndex,
          stats: JSON.parse(v2.store.jsonStats()) as Record<string, number>,
        }
        await etcd.close()
      }
      const etcd = await openEtcd({ dataDir: dir.path, enableV2: true })
      try {
        const v2 = v2Of(etcd)
        assert.equal(v2.store.currentIndex, before.index + 1)
        // Reads start counting again (etcd's after a restart show one success and three failures).
        const stats = JSON.parse(v2.store.jsonStats()) as Record<string, number>
        assert.deepEqual({ ...stats, getsSuccess: 0, getsFail: 0, setsSuccess: 0 }, { ...before.stats, getsSuccess: 0, getsFail: 0, setsSuccess: 0 })
        assert.deepEqual([stats['getsSuccess'], stats['getsFail'], stats['setsSuccess']], [1, 3, (before.stats['setsSuccess'] ?? 0) + 1])
        // TTLs are whole seconds left, which may have ticked over since.
        const seconds = (s: string): string => s.replace(/"ttl":\d+/g, '"ttl":N')
        assert.equal(seconds(await listing(v2, '/1')), seconds(before.keys))
        assert.equal(await listing(v2, '/2'), before.auth)
        assert.equal(v2.store.hasTtlKeys(), true)
        // The history came back: a watch from index 4 is answered with the first write.
        const first = (await v2.do(requestV2({ method: 'GET', path: '/1', recursive: true, wait: true, since: 4n }))).watcher?.take()
        assert.equal(first?.node?.key, '/1/a/b')
        assert.ok(await v2.auth.checkPassword(await v2.auth.getUser('root'), 'pw'))
      } finally {
        await etcd.close()
      }
    } finally {
      await dir.remove()
    }
  })

  it("leaves etcd's v3 hash alone (etcd's v2 store is not in its backend)", async () => {
    const etcd = await openEtcd({ memory: true, enableV2: true })
    try {
      await etcd.put({ key: 'k', value: 'v' })
      const h0 = (await etcd.hash()).hash
      await v2Of(etcd).do(put('/1/a', 'x'))
      assert.equal((await etcd.hash()).hash, h0)
    } finally {
      await etcd.close()
    }
  })

  it('refuses requests once closing', async () => {
    const etcd = await openEtcd({ memory: true, enableV2: true })
    const v2 = v2Of(etcd)
    await etcd.close()
    await assert.rejects(v2.do(put('/1/a', 'x')), /server stopped/)
    await assert.rejects(v2.do(requestV2({ method: 'GET', path: '/1/a' })), /server stopped/)
  })
})
