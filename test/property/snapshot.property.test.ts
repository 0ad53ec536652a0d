// Property: for random histories (puts, deletes, txns, compactions, leases, users, roles, auth), a snapshot
// moves the data between etcdlite and the real etcd, both ways, without a difference any client can see
// (snapshot-interop.ts: keys with revisions, versions and leases, HashKV, leases, users, roles, auth).
// One long history (over 10,000 revisions) goes both ways too.
//
// Replay a failure with the seed and path fast-check prints: PROP_SEED=<seed> PROP_PATH=<path>.
// PROP_SCALE=<factor> multiplies the number of runs (each starts two servers: a few seconds).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { haveEtcd, haveEtcdctl } from '../helpers/processes.js'
import { etcdliteToEtcd, etcdToEtcdlite, historyArb, longHistory, type History, type Moved } from '../helpers/snapshot-history.js'

const skip = !haveEtcdctl() ? 'etcdctl is not on PATH' : !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false
const seed = process.env['PROP_SEED'] === undefined ? undefined : Number(process.env['PROP_SEED'])
const path = process.env['PROP_PATH']
const scale = Number(process.env['PROP_SCALE'] ?? 1)
const params = { numRuns: Math.max(1, Math.round(3 * scale)), endOnFailure: true, ...(seed === undefined ? {} : { seed }), ...(path === undefined ? {} : { path }) }

const same = (m: Moved): void => assert.deepEqual(m.restored, m.source)
const revOf = (m: Moved): number => (m.source as { rev: number }).rev

describe('snapshot round trips on random histories', { skip }, () => {
  it('etcdlite → etcd', async () => {
    await fc.assert(fc.asyncProperty(historyArb(80), async (h: History) => same(await etcdliteToEtcd(h))), params)
  })

  it('etcd → etcdlite', async () => {
    await fc.assert(fc.asyncProperty(historyArb(80), async (h: History) => same(await etcdToEtcdlite(h))), params)
  })

  it('a history of over 10,000 revisions, both ways', async () => {
    const h = longHistory(12_000, seed ?? 11)
    const there = await etcdliteToEtcd(h, 32)
    assert.ok(revOf(there) >= 10_000, `revision ${revOf(there)}`)
    same(there)
    const back = await etcdToEtcdlite(h, 32)
    assert.ok(revOf(back) >= 10_000, `revision ${revOf(back)}`)
    same(back)
  })
})
