// The embedded lock and election calls (src/embed/etcd-concurrency.ts over etcdserver/v3lock.ts and v3election.ts):
// a second locker waits for the first to unlock; a campaign leads once the leader resigns; observe sees it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd } from '../../../src/embed/etcd.js'

const enc = (s: string): Uint8Array => Buffer.from(s)
const str = (b: Uint8Array): string => Buffer.from(b).toString()

describe('embedded lock and election', () => {
  it('lock: the second locker gets the lock only after the first unlocks', async () => {
    await using etcd = await openEtcd({ memory: true })
    const first = await etcd.lock({ name: enc('L') })
    const got: string[] = []
    const waiting = etcd.lock({ name: enc('L') }).then((r) => got.push(str(r.key)))
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(got.length, 0, 'still waiting while the first holds it')
    await etcd.unlock({ key: first.key })
    await waiting
    const second = got[0]
    assert.ok(second?.startsWith('L/'))
    assert.notEqual(second, str(first.key))
  })

  it('lock: an aborted waiter withdraws its key', async () => {
    await using etcd = await openEtcd({ memory: true })
    await etcd.lock({ name: enc('L') })
    const ac = new AbortController()
    const waiting = etcd.lock({ name: enc('L') }, { signal: ac.signal })
    await new Promise((resolve) => setImmediate(resolve))
    ac.abort()
    await assert.rejects(waiting)
    const keys = await etcd.range({ key: enc('L/'), rangeEnd: enc('L0') })
    assert.equal(keys.count, 1, 'only the holder key is left')
  })

  it('election: campaign, leader, proclaim, observe, resign hands over', async () => {
    await using etcd = await openEtcd({ memory: true })
    const a = await etcd.campaign({ name: enc('E'), value: enc('a') })
    assert.equal(str((await etcd.leader({ name: enc('E') })).kv.value), 'a')
    const ac = new AbortController()
    const seen: string[] = []
    const watching = (async () => {
      for await (const r of etcd.observe({ name: enc('E') }, { signal: ac.signal })) {
        seen.push(str(r.kv.value))
        if (seen.includes('b')) break
      }
    })()
    const bWins = etcd.campaign({ name: enc('E'), value: enc('b') })
    await etcd.proclaim({ leader: a.leader, value: enc('a2') })
    await etcd.resign({ leader: a.leader })
    const b = await bWins
    assert.equal(str((await etcd.leader({ name: enc('E') })).kv.value), 'b')
    await watching
    ac.abort()
    assert.deepEqual(seen.filter((v, i) => seen.indexOf(v) === i), ['a', 'a2', 'b'])
    await assert.rejects(etcd.proclaim({ leader: a.leader, value: enc('x') }), { code: 'ELECTION_NOT_LEADER' })
    await etcd.resign({ leader: b.leader })
    await assert.rejects(etcd.leader({ name: enc('E') }), { code: 'ELECTION_NO_LEADER' })
  })
})
