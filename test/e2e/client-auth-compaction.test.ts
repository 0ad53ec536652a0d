// connect()'s client against etcdlite served in process: a token that expires is renewed with the stored
// user and password (the call that met the refusal succeeds), a watch compacted away ends typed, errors
// come back as the embedded API's typed errors, the interface is the embedded one, and close() ends
// everything it opened.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { connect } from '../../src/client/connect.js'
import type { EtcdClient } from '../../src/client/etcd-client.js'
import { GrpcError } from '../../src/client/grpc-error.js'
import { openEtcd } from '../../src/embed/etcd.js'
import { CompactedError, FutureRevError } from '../../src/mvcc/errors.js'
import { ManualClock } from '../../src/pkg/clock.js'
import { isEtcdError } from '../../src/pkg/errors.js'

describe('connect(): token renewal', () => {
  it('renews an expired token and retries the call; a fixed token is refused', async () => {
    const clock = new ManualClock()
    const etcd = await openEtcd({ memory: true, clock, authTokenTtl: 5, bcryptCost: 4 })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      await etcd.userAdd({ name: 'root', password: 'pw' })
      await etcd.userGrantRole({ user: 'root', role: 'root' })
      await etcd.authEnable()
      const c = await connect({ endpoints: [endpoint], user: 'root', password: 'pw' })
      const { token } = await etcd.authenticate({ name: 'root', password: 'pw' })
      const fixed = await connect({ endpoints: [endpoint], token })
      await c.put({ key: 'a', value: '1' })
      const w = c.watch({ key: 'a' })
      // Both tokens expire (unused for longer than the TTL).
      await clock.advance(10_000)
      await assert.rejects(fixed.range({ key: 'a' }), (e) => isEtcdError(e, 'INVALID_AUTH_TOKEN'))
      assert.equal((await c.range({ key: 'a' })).kvs.length, 1)
      await c.put({ key: 'a', value: '2' })
      const r = await w.next()
      assert.equal(r.value?.events[0]?.kv.modRevision, 3)
      // A watch created after the expiry is served too (its create is refused, the token renewed, and retried).
      await clock.advance(10_000)
      const w2 = c.watch({ key: 'a', startRevision: 2 })
      assert.deepEqual((await w2.next()).value?.events.map((e) => e.kv.modRevision), [2, 3])
      await fixed.close()
      await c.close()
      assert.deepEqual(await w.closed, { reason: 'closed' })
      assert.deepEqual(await w2.closed, { reason: 'closed' })
    } finally {
      await etcd.close()
    }
  })
})

describe('connect(): typed ends and errors', () => {
  it('a watch from a compacted revision ends with the compacted revision, as embedded', async () => {
    const etcd = await openEtcd({ memory: true })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      const clients: EtcdClient[] = [etcd, await connect({ endpoints: [endpoint] })]
      for (let i = 0; i < 5; i++) await etcd.put({ key: 'k', value: String(i) })
      await etcd.compact({ revision: 4 })
      for (const c of clients) {
        const w = c.watch({ key: 'k', startRevision: 2 })
        const got = []
        for await (const r of w) got.push(r)
        assert.deepEqual(await w.closed, { reason: 'compacted', compactRevision: 4 })
        assert.equal(got.length, 1)
        await assert.rejects(c.range({ key: 'k', revision: 2 }), (e) => e instanceof CompactedError && e.message === 'etcdserver: mvcc: required revision has been compacted')
        await assert.rejects(c.range({ key: 'k', revision: 99 }), FutureRevError)
        assert.throws(() => c.watch({ key: 'b', rangeEnd: 'a' }), (e) => isEtcdError(e, 'WATCHER_RANGE_EMPTY'))
        await assert.rejects(c.put({ key: '' }), (e) => isEtcdError(e, 'EMPTY_KEY'))
        await assert.rejects(c.leaseRevoke({ id: 7n }), (e) => isEtcdError(e, 'LEASE_NOT_FOUND'))
        await assert.rejects(c.put({ key: 'k', value: 1 as unknown as string }), TypeError)
      }
      await (clients[1] as EtcdClient).close()
    } finally {
      await etcd.close()
    }
  })

  it('lock, election and observe work remotely; close() ends a pending lock, an observer and keep-alives', async () => {
    const etcd = await openEtcd({ memory: true })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      const c = await connect({ endpoints: [endpoint] })
      const { id } = await c.leaseGrant({ ttl: 60 })
      const held = await c.lock({ name: 'l', lease: id })
      const other = await c.leaseGrant({ ttl: 60 })
      const waiting = c.lock({ name: 'l', lease: other.id })
      const camp = await c.campaign({ name: 'e', lease: id, value: 'v1' })
      const obs = c.observe({ name: 'e' })
      assert.equal(Buffer.from((await obs.next()).value?.kv.value ?? []).toString(), 'v1')
      await c.proclaim({ leader: camp.leader, value: 'v2' })
      assert.equal(Buffer.from((await obs.next()).value?.kv.value ?? []).toString(), 'v2')
      assert.equal(Buffer.from((await c.leader({ name: 'e' })).kv.value).toString(), 'v2')
      const ka = c.leaseKeepAlive({ id })
      await ka.next()
      assert.ok(held.key.length > 0)
      const pendingObserve = obs.next()
      await c.close()
      await assert.rejects(waiting, GrpcError)
      await assert.rejects(pendingObserve, GrpcError)
      assert.deepEqual(await ka.closed, { reason: 'closed' })
      await assert.rejects(c.range({ key: 'a' }), GrpcError)
    } finally {
      await etcd.close()
    }
  })

  it('connect() rejects within the dial timeout when no endpoint answers, and checks its options', async () => {
    await assert.rejects(connect({ endpoints: ['127.0.0.1:1'], dialTimeoutMs: 300 }), GrpcError)
    await assert.rejects(connect({ endpoints: [] }), TypeError)
    await assert.rejects(connect({ endpoints: ['nohost'] }), TypeError)
    await assert.rejects(connect({ endpoints: ['127.0.0.1:1'], user: 'u' }), TypeError)
  })
})
