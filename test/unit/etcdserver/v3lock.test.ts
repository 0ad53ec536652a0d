// LockServer (src/etcdserver/v3lock.ts) on an in-process EtcdServer with a ManualClock: the lock key and its
// lease, one acquisition per lease, waiters served in order, a waiter that loses its lease (revoke or
// expiry) fails at once, an aborted waiter withdraws its key, lease 0 gets a 60 s server lease, Unlock, and
// shutdown. Every case ends with no watch stream left open.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { EtcdServer } from '../../../src/etcdserver/etcd-server.js'
import { asCaller } from '../../../src/etcdserver/concurrency.js'
import { LockServer } from '../../../src/etcdserver/v3lock.js'
import type { LockResponse } from '../../../src/etcdserver/types/concurrency.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { isEtcdError, type ErrorCode } from '../../../src/pkg/errors.js'
import { until } from '../../helpers/until.js'
import { memoryBackend } from '../../helpers/memory-backend.js'

const b = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))
const str = (u: Uint8Array): string => Buffer.from(u).toString('latin1')

interface Rig {
  readonly server: EtcdServer
  readonly clock: ManualClock
  readonly locks: LockServer
  readonly grant: (ttl?: number) => Promise<bigint>
  /** Keys under `prefix`, in create order, as "key@createRev". */
  readonly keys: (prefix: string) => string[]
}

async function withRig(fn: (r: Rig) => Promise<void>): Promise<void> {
  const clock = new ManualClock()
  const be = await memoryBackend()
  const errors: unknown[] = []
  const server = await EtcdServer.open(be, { clock, onBackgroundError: (e) => errors.push(e) })
  const rig: Rig = {
    server,
    clock,
    locks: new LockServer(asCaller(server, undefined)),
    grant: async (ttl = 30) => (await server.leaseService.leaseGrant({ ttl })).id,
    keys: (prefix) =>
      server.kvService.range({ key: b(prefix), rangeEnd: b(prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)), sortTarget: 'CREATE', sortOrder: 'ASCEND' })
        .kvs.map((kv) => `${str(kv.key)}@${kv.createRevision}`),
  }
  try {
    await fn(rig)
    assert.equal(server.watchable.streamCount(), 0, 'every watch stream is closed')
  } finally {
    await server.close()
  }
  assert.deepEqual(errors, [])
}

/** A promise's outcome, observable without awaiting it. */
function track<T>(p: Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let done = false
  const result = p.finally(() => {
    done = true
  })
  result.catch(() => undefined)
  return { settled: () => done, result }
}

/** Let every pending callback run (a negative check has no condition to wait for). */
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
}

/** A hung wait fails the case instead of the run. */
const T = { timeout: 10_000 }

const rejectsWith = (code: ErrorCode) => (e: unknown): boolean => isEtcdError(e, code)

describe('LockServer.lock: the lock key', () => {
  it('an uncontended lock puts name/<lease hex> with the lease and returns at its revision', T, async () => {
    await withRig(async ({ server, locks, grant }) => {
      const lease = await grant()
      const r = await locks.lock({ name: b('job'), lease })
      assert.equal(str(r.key), `job/${lease.toString(16)}`)
      const kv = server.kvService.range({ key: r.key }).kvs[0]
      assert.ok(kv !== undefined)
      assert.equal(kv.lease, lease)
      assert.equal(kv.value.length, 0)
      assert.equal(r.header.revision, kv.createRevision)
    })
  })

  it('locking again with the same lease returns the same key and writes nothing', T, async () => {
    await withRig(async ({ server, locks, grant }) => {
      const lease = await grant()
      const first = await locks.lock({ name: b('job'), lease })
      const again = await locks.lock({ name: b('job'), lease })
      assert.deepEqual(again.key, first.key)
      assert.equal(server.kv.rev(), first.header.revision)
    })
  })

  it('an unknown lease fails with LEASE_NOT_FOUND and creates no key', T, async () => {
    await withRig(async ({ locks, keys }) => {
      await assert.rejects(locks.lock({ name: b('job'), lease: 12345n }), rejectsWith('LEASE_NOT_FOUND'))
      assert.deepEqual(keys('job/'), [])
    })
  })

  it('lease 0: the server grants a 60 s lease that nobody renews, so the lock goes after 60 s', T, async () => {
    await withRig(async ({ server, clock, locks }) => {
      const r = await locks.lock({ name: b('job') })
      const kv = server.kvService.range({ key: r.key }).kvs[0]
      assert.ok(kv !== undefined && kv.lease !== 0n)
      assert.equal(str(r.key), `job/${kv.lease.toString(16)}`)
      assert.equal(server.leaseService.leaseTimeToLive({ id: kv.lease }).grantedTtl, 60)
      await clock.advance(61_000)
      assert.equal(server.kvService.range({ key: r.key }).kvs.length, 0)
    })
  })

  it('an empty name locks under "/"', T, async () => {
    await withRig(async ({ locks, grant }) => {
      const lease = await grant()
      assert.equal(str((await locks.lock({ name: b(''), lease })).key), `/${lease.toString(16)}`)
    })
  })
})

describe('LockServer.lock: waiting', () => {
  it('waiters get the lock in order, each when the one before unlocks', T, async () => {
    await withRig(async ({ server, locks, grant }) => {
      const [la, lb, lc] = [await grant(), await grant(), await grant()]
      const a = await locks.lock({ name: b('m'), lease: la })
      const wb = track(locks.lock({ name: b('m'), lease: lb }))
      await until(() => server.watchable.streamCount() === 1, 'b waiting')
      const wc = track(locks.lock({ name: b('m'), lease: lc }))
      await until(() => server.watchable.streamCount() === 2, 'c waiting')
      await flush()
      assert.equal(wb.settled() || wc.settled(), false)
      const u1 = await locks.unlock({ key: a.key })
      const gotB: LockResponse = await wb.result
      assert.equal(str(gotB.key), `m/${lb.toString(16)}`)
      assert.equal(gotB.header.revision, u1.header.revision, 'acquired as of the unlock')
      await flush()
      assert.equal(wc.settled(), false, 'c still waits for b')
      await locks.unlock({ key: gotB.key })
      assert.equal(str((await wc.result).key), `m/${lc.toString(16)}`)
    })
  })

  it('the holder losing its lease (expiry) hands the lock to the waiter', T, async () => {
    await withRig(async ({ server, clock, locks, grant }) => {
      const la = await grant(5)
      const lb = await grant(60)
      await locks.lock({ name: b('m'), lease: la })
      const wb = track(locks.lock({ name: b('m'), lease: lb }))
      await until(() => server.watchable.streamCount() === 1, 'b waiting')
      await clock.advance(6_000)
      assert.equal(str((await wb.result).key), `m/${lb.toString(16)}`)
    })
  })

  const lost: Array<{ name: string; lose: (r: Rig, lease: bigint) => Promise<unknown> }> = [
    { name: 'revoked', lose: ({ server }, id) => server.leaseService.leaseRevoke({ id }) },
    { name: 'expired', lose: ({ clock }) => clock.advance(11_000) },
    { name: 'deleted by someone', lose: ({ server }, id) => server.kvService.deleteRange({ key: b(`m/${id.toString(16)}`) }) },
  ]
  for (const c of lost) {
    it(`a waiter whose key goes (lease ${c.name}) fails at once with "mutex: session is expired"; the holder keeps the lock`, T, async () => {
      await withRig(async (rig) => {
        const { server, locks, grant, keys } = rig
        const la = await grant(60)
        const lb = await grant(10)
        const a = await locks.lock({ name: b('m'), lease: la })
        const wb = track(locks.lock({ name: b('m'), lease: lb }))
        await until(() => server.watchable.streamCount() === 1, 'b waiting')
        await c.lose(rig, lb)
        await assert.rejects(wb.result, (e: unknown) => isEtcdError(e, 'MUTEX_SESSION_EXPIRED') && e.message === 'mutex: session is expired')
        assert.deepEqual(keys('m/'), [`${str(a.key)}@${a.header.revision}`])
      })
    })
  }

  it('an aborted waiter deletes its key and rejects with the abort reason; the holder keeps the lock', T, async () => {
    await withRig(async ({ server, locks, grant, keys }) => {
      const a = await locks.lock({ name: b('m'), lease: await grant() })
      const ac = new AbortController()
      const wb = track(locks.lock({ name: b('m'), lease: await grant() }, { signal: ac.signal }))
      await until(() => server.watchable.streamCount() === 1, 'b waiting')
      assert.equal(keys('m/').length, 2)
      const reason = new Error('gone')
      ac.abort(reason)
      await assert.rejects(wb.result, (e: unknown) => e === reason)
      assert.deepEqual(keys('m/'), [`${str(a.key)}@${a.header.revision}`])
    })
  })

  it('a waiter fails with STOPPED when the server closes', T, async () => {
    await withRig(async ({ server, locks, grant }) => {
      await locks.lock({ name: b('m'), lease: await grant() })
      const wb = track(locks.lock({ name: b('m'), lease: await grant() }))
      await until(() => server.watchable.streamCount() === 1, 'b waiting')
      await server.close()
      await assert.rejects(wb.result, rejectsWith('STOPPED'))
    })
  })
})

describe('LockServer.unlock', () => {
  const cases: Array<{ name: string; key: string; want: ErrorCode | 'ok' }> = [
    { name: 'an absent key is not an error', key: 'm/none', want: 'ok' },
    { name: 'an empty key fails with "key is not provided"', key: '', want: 'EMPTY_KEY' },
  ]
  for (const c of cases) {
    it(c.name, T, async () => {
      await withRig(async ({ server, locks }) => {
        const before = server.kv.rev()
        if (c.want === 'ok') assert.equal((await locks.unlock({ key: b(c.key) })).header.revision, before)
        else await assert.rejects(locks.unlock({ key: b(c.key) }), rejectsWith(c.want))
      })
    })
  }
})
