// The lessor (src/lease/lessor.ts) through the server core, on a ManualClock: grants, the minimum and
// maximum TTL, revoke deleting attached keys in one revision, attach/detach by puts and deletes, expiry
// (exactly at the TTL, rate-limited like etcd), renew, and a restart that gives leases a full TTL again.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ClassicLevel } from 'classic-level'
import { LevelBackend } from '../../../src/backend/level-backend.js'
import type { LevelDb } from '../../../src/embed/options.js'
import { EtcdServer } from '../../../src/etcdserver/etcd-server.js'
import type { EtcdServerOptions } from '../../../src/etcdserver/server-options.js'
import type { PutRequest, RequestOp } from '../../../src/etcdserver/types/kv.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { isEtcdError, type ErrorCode } from '../../../src/pkg/errors.js'
import { tempDir } from '../../helpers/tmp.js'
import { memoryDb } from '../../helpers/memory-backend.js'

const enc = (s: string): Uint8Array => Buffer.from(s)
const str = (b: Uint8Array): string => Buffer.from(b).toString()

async function open(clock: ManualClock, opts: Partial<EtcdServerOptions> = {}, db?: LevelDb): Promise<EtcdServer> {
  const raw = db ?? (memoryDb())
  const be = await LevelBackend.open(raw, { syncWrites: false })
  return EtcdServer.open(be, { clock, onBackgroundError: (e) => assert.fail(`background error: ${String(e)}`), ...opts })
}

function keys(s: EtcdServer): string[] {
  return s.kvService.range({ key: enc('\0'), rangeEnd: enc('\0') }).kvs.map((kv) => str(kv.key))
}

async function rejects(p: Promise<unknown>, code: ErrorCode): Promise<void> {
  await assert.rejects(p, (e: unknown) => isEtcdError(e, code))
}

describe('Lessor: grant', () => {
  const cases: Array<{ name: string; id?: bigint; ttl: number; wantTtl?: number; wantErr?: ErrorCode; pre?: bigint }> = [
    { name: 'ID 0: the server picks a positive ID', ttl: 10, wantTtl: 10 },
    { name: 'an explicit ID is kept', id: 42n, ttl: 10, wantTtl: 10 },
    { name: 'a negative explicit ID is kept (int64)', id: -7n, ttl: 10, wantTtl: 10 },
    { name: 'a TTL below the minimum is raised to it', id: 1n, ttl: 1, wantTtl: 2 },
    { name: 'a negative TTL is raised to the minimum', id: 1n, ttl: -5, wantTtl: 2 },
    { name: 'the largest TTL is accepted', id: 1n, ttl: 9_000_000_000, wantTtl: 9_000_000_000 },
    { name: 'a TTL past the maximum is refused', id: 1n, ttl: 9_000_000_001, wantErr: 'LEASE_TTL_TOO_LARGE' },
    { name: 'an existing ID is refused', id: 3n, pre: 3n, ttl: 10, wantErr: 'LEASE_EXISTS' },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const s = await open(new ManualClock())
      try {
        if (c.pre !== undefined) await s.leaseService.leaseGrant({ id: c.pre, ttl: 10 })
        const p = s.leaseService.leaseGrant({ ttl: c.ttl, ...(c.id === undefined ? {} : { id: c.id }) })
        if (c.wantErr !== undefined) return await rejects(p, c.wantErr)
        const r = await p
        assert.equal(r.ttl, c.wantTtl)
        if (c.id === undefined) assert.ok(r.id > 0n && r.id < 2n ** 63n)
        else assert.equal(r.id, c.id)
        assert.equal(s.leaseService.leaseTimeToLive({ id: r.id }).grantedTtl, c.wantTtl)
      } finally {
        await s.close()
      }
    })
  }

  it('honours a configured minimum TTL', async () => {
    const s = await open(new ManualClock(), { minLeaseTtl: 7 })
    try {
      assert.equal((await s.leaseService.leaseGrant({ id: 1n, ttl: 3 })).ttl, 7)
    } finally {
      await s.close()
    }
  })
})

describe('Lessor: attach, detach, revoke', () => {
  type Step = { put: string; lease?: 'A' | 'B'; ignoreLease?: boolean } | { del: string } | { txnPut: string; lease: 'A' | 'B' }
  const cases: Array<{ name: string; steps: Step[]; revoke: 'A' | 'B'; wantGone: string[]; wantLeft: string[]; wantKeys: Record<'A' | 'B', string[]> }> = [
    { name: 'revoke deletes every attached key', steps: [{ put: 'a', lease: 'A' }, { put: 'b', lease: 'A' }, { put: 'c' }], revoke: 'A', wantGone: ['a', 'b'], wantLeft: ['c'], wantKeys: { A: ['a', 'b'], B: [] } },
    { name: 'a put without a lease detaches the key', steps: [{ put: 'a', lease: 'A' }, { put: 'a' }], revoke: 'A', wantGone: [], wantLeft: ['a'], wantKeys: { A: [], B: [] } },
    { name: 'ignore_lease keeps the key attached', steps: [{ put: 'a', lease: 'A' }, { put: 'a', ignoreLease: true }], revoke: 'A', wantGone: ['a'], wantLeft: [], wantKeys: { A: ['a'], B: [] } },
    { name: 'a put with another lease moves the key', steps: [{ put: 'a', lease: 'A' }, { put: 'a', lease: 'B' }], revoke: 'A', wantGone: [], wantLeft: ['a'], wantKeys: { A: [], B: ['a'] } },
    { name: 'a delete detaches the key', steps: [{ put: 'a', lease: 'A' }, { del: 'a' }, { put: 'a' }], revoke: 'A', wantGone: [], wantLeft: ['a'], wantKeys: { A: [], B: [] } },
    { name: 'a put inside a txn attaches the key', steps: [{ txnPut: 'a', lease: 'A' }], revoke: 'A', wantGone: ['a'], wantLeft: [], wantKeys: { A: ['a'], B: [] } },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const s = await open(new ManualClock())
      try {
        const ids = { A: (await s.leaseService.leaseGrant({ id: 100n, ttl: 60 })).id, B: (await s.leaseService.leaseGrant({ id: 200n, ttl: 60 })).id }
        for (const st of c.steps) {
          if ('put' in st) {
            const r: PutRequest = { key: enc(st.put), value: enc('v'), ...(st.lease === undefined ? {} : { lease: ids[st.lease] }), ...(st.ignoreLease === true ? { ignoreLease: true } : {}) }
            await s.kvService.put(r)
          } else if ('del' in st) await s.kvService.deleteRange({ key: enc(st.del) })
          else {
            const op: RequestOp = { type: 'put', request: { key: enc(st.txnPut), value: enc('v'), lease: ids[st.lease] } }
            await s.kvService.txn({ compare: [], success: [op], failure: [] })
          }
        }
        for (const l of ['A', 'B'] as const) {
          const got = s.leaseService.leaseTimeToLive({ id: ids[l], keys: true }).keys.map(str).sort()
          assert.deepEqual(got, c.wantKeys[l], `keys of lease ${l}`)
        }
        const before = s.kv.rev()
        await s.leaseService.leaseRevoke({ id: ids[c.revoke] })
        assert.deepEqual(keys(s), c.wantLeft)
        // All deletions share one revision; a revoke that deletes nothing writes no revision.
        assert.equal(s.kv.rev(), before + (c.wantGone.length > 0 ? 1 : 0))
        assert.equal(s.leaseService.leaseTimeToLive({ id: ids[c.revoke] }).ttl, -1)
      } finally {
        await s.close()
      }
    })
  }

  it("keeps the attached key apart from the caller's buffer: reusing it after the put changes what the lease holds", async () => {
    const s = await open(new ManualClock())
    try {
      const { id } = await s.leaseService.leaseGrant({ id: 100n, ttl: 60 })
      const key = enc('a')
      await s.kvService.put({ key, value: enc('v'), lease: id })
      key.set(enc('z')) // an embedding app reuses its buffer
      await s.kvService.put({ key: enc('z'), value: enc('v') })
      assert.deepEqual(s.leaseService.leaseTimeToLive({ id, keys: true }).keys.map(str), ['a'])
      await s.leaseService.leaseRevoke({ id })
      assert.deepEqual(keys(s), ['z'], 'the revoke deleted the key that was put, not what the buffer holds now')
    } finally {
      await s.close()
    }
  })

  it('refuses a put with an unknown lease, and a revoke of one', async () => {
    const s = await open(new ManualClock())
    try {
      await rejects(s.kvService.put({ key: enc('a'), lease: 77n }), 'LEASE_NOT_FOUND')
      await rejects(s.leaseService.leaseRevoke({ id: 77n }), 'LEASE_NOT_FOUND')
      await rejects(s.kvService.txn({ success: [{ type: 'put', request: { key: enc('a'), lease: 77n } }] }), 'LEASE_NOT_FOUND')
    } finally {
      await s.close()
    }
  })
})

describe('Lessor: expiry on the manual clock', () => {
  it('a lease expires exactly at its TTL and its keys go in one revision', async () => {
    const clock = new ManualClock()
    const s = await open(clock)
    try {
      const { id } = await s.leaseService.leaseGrant({ ttl: 5 })
      await s.kvService.put({ key: enc('a'), lease: id })
      await s.kvService.put({ key: enc('b'), lease: id })
      const rev = s.kv.rev()
      await clock.advance(4_999)
      assert.deepEqual(keys(s), ['a', 'b'])
      assert.equal(s.leaseService.leaseTimeToLive({ id }).ttl, 0, 'under a second left')
      await clock.advance(501) // the expiry loop looks every 500 ms
      assert.deepEqual(keys(s), [])
      assert.equal(s.kv.rev(), rev + 1)
      assert.deepEqual(s.leaseService.leaseLeases().leases, [])
    } finally {
      await s.close()
    }
  })

  it('a renew restarts the TTL', async () => {
    const clock = new ManualClock()
    const s = await open(clock)
    try {
      const { id } = await s.leaseService.leaseGrant({ ttl: 3 })
      await clock.advance(2_000)
      assert.equal((await s.leaseService.leaseRenew({ id })).ttl, 3)
      await clock.advance(2_500)
      assert.equal(s.leaseService.leaseTimeToLive({ id }).grantedTtl, 3, 'still alive 4.5 s after the grant')
      assert.equal(s.leaseService.leaseTimeToLive({ id }).ttl, 0)
      await clock.advance(1_000)
      assert.equal(s.leaseService.leaseTimeToLive({ id }).ttl, -1)
      assert.equal((await s.leaseService.leaseRenew({ id })).ttl, 0, 'renewing a gone lease answers TTL 0')
    } finally {
      await s.close()
    }
  })

  it('a renew of a lease past its expiry but not yet revoked revokes it and answers TTL 0', async () => {
    const clock = new ManualClock()
    // A huge check interval: the expiry loop will not get to it.
    const s = await open(clock)
    try {
      const { id } = await s.leaseService.leaseGrant({ ttl: 2 })
      await s.kvService.put({ key: enc('a'), lease: id })
      s.lessor.lookup(id)!.expiry = clock.now() - 1 // past expiry, loop not yet run
      assert.equal((await s.leaseService.leaseRenew({ id })).ttl, 0)
      assert.deepEqual(keys(s), [])
    } finally {
      await s.close()
    }
  })

  it('revokes at most revokeRate/2 leases per 500 ms tick, as etcd', async () => {
    const clock = new ManualClock()
    const s = await open(clock, { leaseRevokeRate: 100 })
    try {
      for (let i = 1; i <= 120; i++) await s.leaseService.leaseGrant({ id: BigInt(i), ttl: 5 })
      await clock.advance(5_000)
      assert.equal(s.leaseService.leaseLeases().leases.length, 70, 'one tick: 50 revoked')
      await clock.advance(500)
      assert.equal(s.leaseService.leaseLeases().leases.length, 20)
      await clock.advance(500)
      assert.equal(s.leaseService.leaseLeases().leases.length, 0)
    } finally {
      await s.close()
    }
  })
})

describe('Lessor: restart', () => {
  it('leases and attached keys survive a restart, with a full TTL again plus the start extension', async () => {
    const dir = await tempDir()
    const db = (): LevelDb => new ClassicLevel<Uint8Array, Uint8Array>(dir.path, { keyEncoding: 'view', valueEncoding: 'view' })
    try {
      const c1 = new ManualClock()
      const s1 = await open(c1, {}, db())
      const { id } = await s1.leaseService.leaseGrant({ ttl: 10 })
      await s1.leaseService.leaseGrant({ id: -5n, ttl: 20 })
      await s1.kvService.put({ key: enc('a'), lease: id })
      await s1.kvService.put({ key: enc('b'), lease: -5n })
      await s1.kvService.put({ key: enc('c') })
      await c1.advance(9_000) // nearly expired when the server stops
      await s1.close()

      const c2 = new ManualClock()
      const s2 = await open(c2, { leaseRenewOnStartMs: 1_000 }, db())
      try {
        assert.deepEqual(s2.leaseService.leaseLeases().leases.map((l) => l.id).sort(), [-5n, id].sort())
        const ttl = s2.leaseService.leaseTimeToLive({ id, keys: true })
        assert.equal(ttl.ttl, 11, 'full TTL plus one election timeout')
        assert.deepEqual(ttl.keys.map(str), ['a'])
        await c2.advance(10_900)
        assert.deepEqual(keys(s2), ['a', 'b', 'c'], 'nothing expired before 11 s')
        await c2.advance(600)
        assert.deepEqual(keys(s2), ['b', 'c'], 'the 10 s lease expired at 11 s')
        await c2.advance(10_000)
        assert.deepEqual(keys(s2), ['c'], 'the 20 s lease (a negative ID) expired at 21 s')
      } finally {
        await s2.close()
      }
    } finally {
      await dir.remove()
    }
  })

  it('with many leases due at once, a restart spreads their expiries (at most 3/4 of the revoke rate per second)', async () => {
    const dir = await tempDir()
    const db = (): LevelDb => new ClassicLevel<Uint8Array, Uint8Array>(dir.path, { keyEncoding: 'view', valueEncoding: 'view' })
    try {
      const s1 = await open(new ManualClock(), { leaseRevokeRate: 100 }, db())
      for (let i = 1; i <= 300; i++) await s1.leaseService.leaseGrant({ id: BigInt(i), ttl: 10 })
      await s1.close()
      const clock = new ManualClock()
      const s2 = await open(clock, { leaseRevokeRate: 100 }, db())
      try {
        const perSecond = new Map<number, number>()
        for (const l of s2.lessor.leases()) {
          const sec = Math.floor(l.remainingMs(clock.now()) / 1000)
          perSecond.set(sec, (perSecond.get(sec) ?? 0) + 1)
        }
        for (const [sec, n] of perSecond) assert.ok(n <= 76, `${n} leases expire in second ${sec}`)
        assert.ok(perSecond.size >= 4, 'spread over several seconds')
      } finally {
        await s2.close()
      }
    } finally {
      await dir.remove()
    }
  })
})
