// LeaseKeepAlive (src/embed/lease.ts): renews at once and every TTL/3 on the server's clock, keeps the
// lease alive past its TTL, ends by itself when the lease goes away, and stops on cancel/break/abort.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd } from '../../../src/embed/etcd.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { until } from '../../helpers/until.js'

describe('Etcd.leaseKeepAlive', () => {
  it('keeps a lease alive past its TTL, renewing every TTL/3', async () => {
    const clock = new ManualClock()
    await using etcd = await openEtcd({ memory: true, clock })
    const { id } = await etcd.leaseGrant({ ttl: 6 })
    const ka = etcd.leaseKeepAlive({ id })
    const seen: number[] = []
    const reader = (async () => {
      for await (const r of ka) seen.push(r.ttl)
    })()
    await until(() => seen.length === 1, 'the first renewal')
    await clock.advance(30_000)
    assert.equal(etcd.server.leaseService.leaseTimeToLive({ id }).grantedTtl, 6, 'alive after five TTLs')
    assert.ok(seen.length >= 15, `renewed every 2 s (${seen.length} responses)`)
    assert.ok(seen.every((t) => t === 6))
    ka.cancel()
    await reader
    assert.deepEqual(await ka.closed, { reason: 'canceled' })
    await clock.advance(7_000)
    assert.equal(etcd.server.leaseService.leaseTimeToLive({ id }).ttl, -1, 'expires once no longer renewed')
  })

  const endings: Array<{ name: string; stop: (ctl: { revoke: () => Promise<void>; abort: () => void; brk: { on: boolean } }) => Promise<void> | void; want: string }> = [
    { name: 'ends when the lease is revoked', stop: (c) => c.revoke(), want: 'lease-not-found' },
    { name: 'ends when the signal aborts', stop: (c) => c.abort(), want: 'aborted' },
    { name: 'ends on break', stop: (c) => void (c.brk.on = true), want: 'canceled' },
  ]
  for (const c of endings) {
    it(c.name, async () => {
      const clock = new ManualClock()
      await using etcd = await openEtcd({ memory: true, clock })
      const { id } = await etcd.leaseGrant({ ttl: 3 })
      const ac = new AbortController()
      const ka = etcd.leaseKeepAlive({ id, signal: ac.signal })
      const brk = { on: false }
      let n = 0
      const reader = (async () => {
        for await (const r of ka) {
          assert.equal(r.id, id)
          n++
          if (brk.on) break
        }
      })()
      await until(() => n === 1, 'the first renewal')
      await c.stop({ revoke: async () => void (await etcd.leaseRevoke({ id })), abort: () => ac.abort(), brk })
      await clock.advance(1_000) // the next renewal is due: it finds the lease gone, or yields for break
      await reader
      assert.deepEqual(await ka.closed, { reason: c.want })
    })
  }

  it('ends with "closed" when the server closes', async () => {
    const clock = new ManualClock()
    const etcd = await openEtcd({ memory: true, clock })
    const { id } = await etcd.leaseGrant({ ttl: 3 })
    const ka = etcd.leaseKeepAlive({ id })
    await etcd.close()
    await clock.advance(1_000)
    assert.deepEqual(await ka.closed, { reason: 'closed' })
  })
})
