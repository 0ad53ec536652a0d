// ElectionServer (src/etcdserver/v3election.ts) on an in-process EtcdServer with a ManualClock: campaign
// (the candidate key, waiting, re-campaigning with the same lease), leader, proclaim (only while leading),
// resign (hands over), observe (current leader, proclaimed values, hand-over, an empty election), and a
// waiting candidate that loses its lease or is aborted. Every case ends with no watch stream left open.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { EtcdServer } from '../../../src/etcdserver/etcd-server.js'
import { asCaller } from '../../../src/etcdserver/concurrency.js'
import { ElectionServer } from '../../../src/etcdserver/v3election.js'
import type { LeaderResponse } from '../../../src/etcdserver/types/concurrency.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { isEtcdError, type ErrorCode } from '../../../src/pkg/errors.js'
import { until } from '../../helpers/until.js'
import { memoryBackend } from '../../helpers/memory-backend.js'

const b = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))
const str = (u: Uint8Array): string => Buffer.from(u).toString('latin1')

interface Rig {
  readonly server: EtcdServer
  readonly clock: ManualClock
  readonly el: ElectionServer
  readonly grant: (ttl?: number) => Promise<bigint>
}

async function withRig(fn: (r: Rig) => Promise<void>): Promise<void> {
  const clock = new ManualClock()
  const be = await memoryBackend()
  const errors: unknown[] = []
  const server = await EtcdServer.open(be, { clock, onBackgroundError: (e) => errors.push(e) })
  const grant = async (ttl = 30): Promise<bigint> => (await server.leaseService.leaseGrant({ ttl })).id
  try {
    await fn({ server, clock, el: new ElectionServer(asCaller(server, undefined)), grant })
    assert.equal(server.watchable.streamCount(), 0, 'every watch stream is closed')
  } finally {
    await server.close()
  }
  assert.deepEqual(errors, [])
}

function track<T>(p: Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let done = false
  const result = p.finally(() => {
    done = true
  })
  result.catch(() => undefined)
  return { settled: () => done, result }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
}

const T = { timeout: 10_000 }
const rejectsWith = (code: ErrorCode, msg?: string) => (e: unknown): boolean => isEtcdError(e, code) && (msg === undefined || e.message === msg)

/** Consume an observe stream into `seen` ("value@modRev (header rev)") until stopped. */
function observer(el: ElectionServer, name: string): { seen: string[]; stop: () => Promise<void> } {
  const seen: string[] = []
  const ac = new AbortController()
  const run = (async () => {
    try {
      for await (const r of el.observe({ name: b(name) }, { signal: ac.signal })) seen.push(fmt(r))
    } catch (err) {
      if (!ac.signal.aborted) throw err
    }
  })()
  return {
    seen,
    stop: async () => {
      ac.abort()
      await run
    },
  }
}
const fmt = (r: LeaderResponse): string => `${str(r.kv.value)}@${r.kv.modRevision} (${r.header.revision})`

describe('ElectionServer.campaign and leader', () => {
  it('an uncontended campaign leads at once: key name/<lease hex> holds the value with the lease', async () => {
    await withRig(async ({ server, el, grant }) => {
      const lease = await grant()
      const c = await el.campaign({ name: b('e'), lease, value: b('v1') })
      assert.equal(str(c.leader.key), `e/${lease.toString(16)}`)
      assert.deepEqual({ name: str(c.leader.name), rev: c.leader.rev, lease: c.leader.lease }, { name: 'e', rev: c.header.revision, lease })
      const l = el.leader({ name: b('e') })
      assert.deepEqual([str(l.kv.key), str(l.kv.value), l.kv.lease], [str(c.leader.key), 'v1', lease])
      assert.equal(l.header.revision, server.kv.rev())
    })
  })

  it('no candidate: leader fails with "election: no leader"', async () => {
    await withRig(({ el }) => {
      assert.throws(() => el.leader({ name: b('e') }), rejectsWith('ELECTION_NO_LEADER', 'election: no leader'))
      return Promise.resolve()
    })
  })

  it('campaigning again with the same lease keeps the place and proclaims a new value; the header is the first write\'s', async () => {
    await withRig(async ({ server, el, grant }) => {
      const lease = await grant()
      const c1 = await el.campaign({ name: b('e'), lease, value: b('v1') })
      const c2 = await el.campaign({ name: b('e'), lease, value: b('v2') })
      assert.deepEqual(c2.leader, c1.leader)
      assert.equal(c2.header.revision, c1.header.revision, 'header of the txn that found the key')
      assert.equal(server.kv.rev(), c1.header.revision + 1, 'one proclaim')
      assert.equal(str(el.leader({ name: b('e') }).kv.value), 'v2')
    })
  })

  it('lease 0: the server grants a 60 s lease for the candidate', async () => {
    await withRig(async ({ server, el }) => {
      const c = await el.campaign({ name: b('e'), value: b('v') })
      assert.notEqual(c.leader.lease, 0n)
      assert.equal(server.leaseService.leaseTimeToLive({ id: c.leader.lease }).grantedTtl, 60)
    })
  })

  it('an unknown lease fails with LEASE_NOT_FOUND', async () => {
    await withRig(async ({ el }) => {
      await assert.rejects(el.campaign({ name: b('e'), lease: 777n, value: b('v') }), rejectsWith('LEASE_NOT_FOUND'))
    })
  })
})

describe('ElectionServer: hand-over', () => {
  it('a second candidate waits; resign of the leader hands over', async () => {
    await withRig(async ({ server, el, grant }) => {
      const c1 = await el.campaign({ name: b('e'), lease: await grant(), value: b('a') })
      const w2 = track(el.campaign({ name: b('e'), lease: await grant(), value: b('b') }))
      await until(() => server.watchable.streamCount() === 1, 'second candidate waiting')
      await flush()
      assert.equal(w2.settled(), false)
      assert.equal(str(el.leader({ name: b('e') }).kv.value), 'a')
      await el.resign({ leader: c1.leader })
      const c2 = await w2.result
      assert.equal(str(el.leader({ name: b('e') }).kv.value), 'b')
      assert.equal(str(el.leader({ name: b('e') }).kv.key), str(c2.leader.key))
    })
  })

  it('the leader\'s lease expiring hands over', async () => {
    await withRig(async ({ server, clock, el, grant }) => {
      await el.campaign({ name: b('e'), lease: await grant(5), value: b('a') })
      const w2 = track(el.campaign({ name: b('e'), lease: await grant(60), value: b('b') }))
      await until(() => server.watchable.streamCount() === 1, 'second candidate waiting')
      await clock.advance(6_000)
      await w2.result
      assert.equal(str(el.leader({ name: b('e') }).kv.value), 'b')
    })
  })

  it('a waiting candidate whose lease is revoked fails with "election: not leader"', async () => {
    await withRig(async ({ server, el, grant }) => {
      await el.campaign({ name: b('e'), lease: await grant(), value: b('a') })
      const l2 = await grant()
      const w2 = track(el.campaign({ name: b('e'), lease: l2, value: b('b') }))
      await until(() => server.watchable.streamCount() === 1, 'second candidate waiting')
      await server.leaseService.leaseRevoke({ id: l2 })
      await assert.rejects(w2.result, rejectsWith('ELECTION_NOT_LEADER'))
      assert.equal(str(el.leader({ name: b('e') }).kv.value), 'a')
    })
  })

  it('an aborted candidate withdraws (its key is deleted)', async () => {
    await withRig(async ({ server, el, grant }) => {
      await el.campaign({ name: b('e'), lease: await grant(), value: b('a') })
      const l2 = await grant()
      const ac = new AbortController()
      const w2 = track(el.campaign({ name: b('e'), lease: l2, value: b('b') }, { signal: ac.signal }))
      await until(() => server.watchable.streamCount() === 1, 'second candidate waiting')
      ac.abort(new Error('gone'))
      await assert.rejects(w2.result, /gone/)
      assert.equal(server.kvService.range({ key: b(`e/${l2.toString(16)}`) }).kvs.length, 0)
    })
  })
})

describe('ElectionServer.proclaim and resign', () => {
  it('the leader proclaims a new value; a stale leader key fails with "election: not leader"', async () => {
    await withRig(async ({ el, grant }) => {
      const c = await el.campaign({ name: b('e'), lease: await grant(), value: b('a') })
      const p = await el.proclaim({ leader: c.leader, value: b('b') })
      const l = el.leader({ name: b('e') })
      assert.deepEqual([str(l.kv.value), l.kv.modRevision, l.kv.version], ['b', p.header.revision, 2])
      await assert.rejects(el.proclaim({ leader: { ...c.leader, rev: c.leader.rev - 1 }, value: b('x') }), rejectsWith('ELECTION_NOT_LEADER', 'election: not leader'))
      await el.resign({ leader: c.leader })
      await assert.rejects(el.proclaim({ leader: c.leader, value: b('x') }), rejectsWith('ELECTION_NOT_LEADER'))
    })
  })

  it('resign with a stale leader key succeeds and deletes nothing', async () => {
    await withRig(async ({ server, el, grant }) => {
      const c = await el.campaign({ name: b('e'), lease: await grant(), value: b('a') })
      const r = await el.resign({ leader: { ...c.leader, rev: c.leader.rev + 5 } })
      assert.equal(r.header.revision, server.kv.rev())
      assert.equal(str(el.leader({ name: b('e') }).kv.value), 'a')
    })
  })

  const missing: Array<{ name: string; call: (el: ElectionServer) => Promise<unknown> }> = [
    { name: 'proclaim', call: (el) => el.proclaim({ value: b('v') }) },
    { name: 'resign', call: (el) => el.resign({}) },
  ]
  for (const c of missing) {
    it(`${c.name} without a leader key fails with "\\"leader\\" field must be provided"`, async () => {
      await withRig(async ({ el }) => {
        await assert.rejects(c.call(el), rejectsWith('ELECTION_MISSING_LEADER_KEY', '"leader" field must be provided'))
      })
    })
  }
})

describe('ElectionServer.observe', () => {
  it('streams the leader, its proclaimed values, and the next leader after a resign', T, async () => {
    await withRig(async ({ server, el, grant }) => {
      const c1 = await el.campaign({ name: b('e'), lease: await grant(), value: b('a') })
      const w2 = track(el.campaign({ name: b('e'), lease: await grant(), value: b('b') }))
      await until(() => server.watchable.streamCount() === 1, 'second candidate waiting')
      const o = observer(el, 'e')
      await until(() => o.seen.length === 1, 'the current leader')
      const p = await el.proclaim({ leader: c1.leader, value: b('a2') })
      await until(() => o.seen.length === 2, 'the proclaimed value')
      const r = await el.resign({ leader: c1.leader })
      await w2.result
      await until(() => o.seen.length === 3, 'the next leader')
      const c2rev = c1.leader.rev + 1
      assert.deepEqual(o.seen, [`a@${c1.leader.rev} (${c2rev})`, `a2@${p.header.revision} (${p.header.revision})`, `b@${c2rev} (${r.header.revision})`])
      await o.stop()
    })
  })

  it('with no leader, waits for the first candidate (header at its revision)', T, async () => {
    await withRig(async ({ server, el, grant }) => {
      const o = observer(el, 'e')
      await until(() => server.watchable.streamCount() === 1, 'observer watching')
      await server.kvService.put({ key: b('other'), value: b('x') })
      const c = await el.campaign({ name: b('e'), lease: await grant(), value: b('first') })
      await until(() => o.seen.length === 1, 'the first leader')
      assert.deepEqual(o.seen, [`first@${c.leader.rev} (${c.leader.rev})`])
      await o.stop()
    })
  })

  it('fails with STOPPED when the server closes', T, async () => {
    await withRig(async ({ server, el }) => {
      const it = el.observe({ name: b('e') })[Symbol.asyncIterator]()
      const next = it.next()
      await until(() => server.watchable.streamCount() === 1, 'observer watching')
      await server.close()
      await assert.rejects(next, rejectsWith('STOPPED'))
    })
  })
})
