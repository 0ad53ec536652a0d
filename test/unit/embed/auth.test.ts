// The embedded auth API (src/embed/etcd-auth.ts over etcdserver/authenticator.ts and apply-auth.ts): tokens bind
// a view to a user; every service checks that user's permissions as etcd does, including the paths only the
// embedded API and the lock/election servers take. The wire behaviour is covered by the compliance suite's
// auth part against real etcd; these cases pin etcdlite's own paths and its deviations.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { isEtcdError, type ErrorCode } from '../../../src/pkg/errors.js'
import { ManualClock } from '../../../src/pkg/clock.js'

const enc = (s: string): Uint8Array => Buffer.from(s)

/** A server with root (root role) and alice (role r: READWRITE on [a, c) and READ on key "k"), auth on. */
async function setUp(opts: { clock?: ManualClock } = {}): Promise<{ etcd: Etcd; root: Etcd; alice: Etcd }> {
  const etcd = await openEtcd({ memory: true, bcryptCost: 4, authTokenTtl: 10, ...(opts.clock === undefined ? {} : { clock: opts.clock }) })
  await etcd.userAdd({ name: 'root', password: 'rootpw' })
  await etcd.userGrantRole({ user: 'root', role: 'root' })
  await etcd.userAdd({ name: 'alice', password: 'alicepw' })
  await etcd.roleAdd({ name: 'r' })
  await etcd.roleGrantPermission({ name: 'r', perm: { permType: 'READWRITE', key: enc('a'), rangeEnd: enc('c') } })
  await etcd.roleGrantPermission({ name: 'r', perm: { permType: 'READ', key: enc('k'), rangeEnd: new Uint8Array(0) } })
  await etcd.userGrantRole({ user: 'alice', role: 'r' })
  await etcd.authEnable()
  const root = etcd.withToken((await etcd.authenticate({ name: 'root', password: 'rootpw' })).token)
  const alice = etcd.withToken((await etcd.authenticate({ name: 'alice', password: 'alicepw' })).token)
  return { etcd, root, alice }
}

async function rejects(p: Promise<unknown> | (() => unknown), code: ErrorCode): Promise<void> {
  await assert.rejects(() => Promise.resolve(typeof p === 'function' ? p() : p), (err: unknown) => {
    assert.ok(isEtcdError(err, code), `want ${code}, got ${String(err)}`)
    return true
  })
}

describe('embedded auth', () => {
  it('a view without a token is nobody; tokens carry their user', async () => {
    const { etcd, root, alice } = await setUp()
    try {
      await rejects(etcd.range({ key: enc('a') }), 'USER_EMPTY')
      await rejects(etcd.put({ key: enc('a'), value: enc('1') }), 'USER_EMPTY')
      await alice.put({ key: enc('b'), value: enc('1') })
      assert.equal((await alice.range({ key: enc('b') })).count, 1)
      await rejects(alice.put({ key: enc('k'), value: enc('1') }), 'PERMISSION_DENIED')
      await rejects(alice.range({ key: enc('a'), rangeEnd: enc('d') }), 'PERMISSION_DENIED')
      await rejects(etcd.withToken('bogus.1').range({ key: enc('b') }), 'INVALID_AUTH_TOKEN')
      await root.put({ key: enc('zzz'), value: enc('1') })
      await rejects(alice.userList(), 'PERMISSION_DENIED')
      assert.deepEqual((await alice.userGet({ name: 'alice' })).roles, ['r'])
      await rejects(alice.userGet({ name: 'root' }), 'PERMISSION_DENIED')
      assert.equal((await alice.roleGet({ role: 'r' })).perm.length, 2)
      await rejects(alice.hashKV(), 'PERMISSION_DENIED')
      await root.hashKV()
    } finally {
      await etcd.close()
    }
  })

  it('nested txns are checked (etcd 3.4.23 let them through)', async () => {
    const { etcd, alice } = await setUp()
    try {
      const nested = { type: 'txn', request: { success: [{ type: 'put', request: { key: enc('x'), value: enc('1') } }] } } as const
      await rejects(alice.txn({ success: [nested] }), 'PERMISSION_DENIED')
      await rejects(alice.txn({ failure: [{ type: 'range', request: { key: enc('x') } }] }), 'PERMISSION_DENIED')
      await alice.txn({ compare: [{ key: enc('a'), target: 'VERSION', result: 'EQUAL', version: 0 }], success: [{ type: 'put', request: { key: enc('a'), value: enc('1') } }] })
    } finally {
      await etcd.close()
    }
  })

  it('watch: permission is checked at create with the token as it stands, from-key ranges in full', async () => {
    const { etcd, root, alice } = await setUp()
    try {
      assert.throws(() => alice.watch({ key: enc('x') }), (e: unknown) => isEtcdError(e, 'PERMISSION_DENIED'))
      // READ on "k" alone does not cover "k" onwards (3.4.23 checked only the key for a "\0" range end).
      assert.throws(() => alice.watch({ key: enc('k'), rangeEnd: Uint8Array.of(0) }), (e: unknown) => isEtcdError(e, 'PERMISSION_DENIED'))
      const stream = alice.watchStream()
      stream.send({ type: 'create', request: { key: enc('a') } })
      await root.roleRevokePermission({ role: 'r', key: enc('a'), rangeEnd: enc('c') })
      stream.send({ type: 'create', request: { key: enc('b') } })
      const got = []
      for await (const r of stream) {
        got.push(r)
        if (got.length === 2) break
      }
      assert.equal(got[0]?.canceled, false)
      assert.equal(got[1]?.canceled, true)
      assert.equal(got[1]?.watchId, -1)
      assert.equal(got[1]?.cancelReason, 'rpc error: code = PermissionDenied desc = etcdserver: permission denied')
      stream.close()
    } finally {
      await etcd.close()
    }
  })

  it('leases: revoke and attach need write on the keys; time-to-live needs read on them', async () => {
    const { etcd, root, alice } = await setUp()
    try {
      const { id } = await root.leaseGrant({ ttl: 60 })
      await root.put({ key: enc('x'), value: enc('1'), lease: id })
      await rejects(alice.leaseRevoke({ id }), 'PERMISSION_DENIED')
      await rejects(alice.put({ key: enc('a'), value: enc('1'), lease: id }), 'PERMISSION_DENIED')
      await rejects(alice.leaseTimeToLive({ id, keys: true }), 'PERMISSION_DENIED')
      await rejects(etcd.leaseTimeToLive({ id }), 'USER_EMPTY')
      const own = await alice.leaseGrant({ ttl: 60 })
      await alice.put({ key: enc('a'), value: enc('1'), lease: own.id })
      assert.equal((await alice.leaseTimeToLive({ id: own.id, keys: true })).keys.length, 1)
      await alice.leaseRevoke({ id: own.id })
      await root.leaseRevoke({ id })
    } finally {
      await etcd.close()
    }
  })

  it('lock and election act with the caller\'s permissions', async () => {
    const { etcd, alice } = await setUp()
    try {
      await rejects(alice.lock({ name: enc('x') }), 'PERMISSION_DENIED')
      const held = await alice.lock({ name: enc('b') })
      await alice.unlock({ key: held.key })
      await rejects(alice.campaign({ name: enc('x'), value: enc('v') }), 'PERMISSION_DENIED')
    } finally {
      await etcd.close()
    }
  })

  it('deleting a user or changing its password invalidates its tokens at once; disable drops all', async () => {
    const { etcd, root, alice } = await setUp()
    try {
      await root.userChangePassword({ name: 'alice', password: 'new' })
      await rejects(alice.range({ key: enc('b') }), 'INVALID_AUTH_TOKEN')
      await rejects(etcd.authenticate({ name: 'alice', password: 'alicepw' }), 'AUTH_FAILED')
      const again = etcd.withToken((await etcd.authenticate({ name: 'alice', password: 'new' })).token)
      await again.range({ key: enc('b') })
      await root.authDisable()
      await rejects(again.range({ key: enc('b') }), 'INVALID_AUTH_TOKEN')
      await etcd.range({ key: enc('x') })
    } finally {
      await etcd.close()
    }
  })

  it('tokens expire after the TTL without use, on the server clock', async () => {
    const clock = new ManualClock()
    const { etcd, alice } = await setUp({ clock })
    try {
      await clock.advance(9_000)
      await alice.range({ key: enc('b') }) // use resets the TTL
      await clock.advance(9_000)
      await alice.range({ key: enc('b') })
      await clock.advance(10_001)
      await rejects(alice.range({ key: enc('b') }), 'INVALID_AUTH_TOKEN')
    } finally {
      await etcd.close()
    }
  })

  it('auth state survives a restart; tokens do not', async () => {
    const { MemoryLevel } = await import('memory-level')
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    const etcd = await openEtcd({ db, bcryptCost: 4 })
    await etcd.userAdd({ name: 'root', password: 'pw' })
    await etcd.userGrantRole({ user: 'root', role: 'root' })
    await etcd.authEnable()
    const token = (await etcd.authenticate({ name: 'root', password: 'pw' })).token
    await etcd.close()
    const again = await openEtcd({ db, bcryptCost: 4 })
    try {
      await rejects(again.authStatus(), 'USER_EMPTY')
      await rejects(again.range({ key: enc('a') }), 'USER_EMPTY')
      await rejects(again.withToken(token).range({ key: enc('a') }), 'INVALID_AUTH_TOKEN')
      const root = again.withToken((await again.authenticate({ name: 'root', password: 'pw' })).token)
      assert.equal((await root.authStatus()).enabled, true)
      assert.deepEqual((await root.userList()).users, ['root'])
    } finally {
      await again.close()
    }
  })
})

describe('embedded auth: calls etcd 3.4.23 served to anyone need credentials (CVE-2026-33413 hardening)', () => {
  it('status, member list, alarm list and the lease calls need a user; move leader and alarm changes root', async () => {
    const { etcd, root, alice } = await setUp()
    try {
      for (const call of [() => etcd.status(), () => etcd.memberList(), () => etcd.alarmList(), () => etcd.leaseGrant({ ttl: 60 }), () => etcd.leaseLeases()]) {
        await rejects(call(), 'USER_EMPTY')
      }
      await alice.status()
      await alice.memberList()
      await alice.alarmList()
      const { id } = await alice.leaseGrant({ ttl: 60 })
      assert.equal((await alice.leaseKeepAliveOnce({ id })).ttl, 60)
      await rejects(etcd.leaseKeepAliveOnce({ id }), 'USER_EMPTY')
      await rejects(etcd.leaseRevoke({ id }), 'USER_EMPTY')
      await rejects(alice.moveLeader({ targetId: etcd.server.memberId }), 'PERMISSION_DENIED')
      await rejects(alice.alarm({ action: 'ACTIVATE', memberId: etcd.server.memberId, alarm: 'NOSPACE' }), 'PERMISSION_DENIED')
      await root.moveLeader({ targetId: etcd.server.memberId })
      await alice.leaseRevoke({ id })
    } finally {
      await etcd.close()
    }
  })
})

describe('embedded auth: /health', () => {
  it('stays healthy with auth on: its Range carries no credentials, and a refusal still shows a working server', async () => {
    const { etcd } = await setUp()
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      const res = await fetch(`http://${endpoint}/health`)
      assert.equal(res.status, 200)
      assert.deepEqual(await res.json(), { health: 'true', reason: '' })
    } finally {
      await etcd.close()
    }
  })
})
