// Snapshots between etcdlite and the real etcd, both ways, through etcdctl: etcdlite's snapshot passes
// `etcdctl snapshot status`, and `etcdctl snapshot restore` makes a data dir from which etcd 3.4 serves the
// same keys, revisions, versions, leases, compaction state, users, roles and auth; etcdlite started from a
// real etcd's snapshot (--restore-snapshot) serves the same too.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { haveEtcd, haveEtcdctl } from '../helpers/processes.js'
import { Client } from '../helpers/snapshot-interop.js'
import { etcdliteToEtcd, etcdToEtcdlite, longHistory, type History } from '../helpers/snapshot-history.js'

const skip = !haveEtcdctl() ? 'etcdctl is not on PATH' : !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false

/** A fixed history of a few hundred revisions with every kind of operation. */
const history = (auth: boolean): History => {
  const ops = [
    ...longHistory(300, 7).ops,
    { op: 'user', user: 1, role: 2 } as const,
    { op: 'role', role: 2, key: 9, range: false, perm: 'READ' } as const,
    { op: 'grant', ttl: 600 } as const,
    { op: 'put', key: 1, size: 100_000, lease: 999 } as const,
    { op: 'role', role: 0, key: 3, range: true, perm: 'READWRITE' } as const,
    { op: 'user', user: 0, role: 0 } as const,
    { op: 'compact', back: 3 } as const,
  ]
  return { ops, auth }
}

/**
 * etcd keeps writing to the bbolt file etcdlite made: new pages split off its full leaves, deletes and a
 * compaction merge them, defragment rewrites the file.
 */
async function keepsWorking(endpoint: string): Promise<void> {
  const c = new Client(endpoint)
  try {
    const value = Buffer.alloc(3000, 0x62)
    for (let i = 0; i < 600; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => c.call('KV', 'Put', { key: Buffer.from(`new/${i + j}`), value })))
    }
    await c.call('KV', 'DeleteRange', { key: Buffer.from('k/'), range_end: Buffer.from('k0') })
    const rev = Number(((await c.call('KV', 'Put', { key: Buffer.from('last'), value })).header as { revision: string }).revision)
    await c.call('KV', 'Compact', { revision: rev, physical: true })
    await c.call('Maintenance', 'Defragment')
    const r = await c.call('KV', 'Range', { key: Buffer.from([0]), range_end: Buffer.from([0]), count_only: true })
    assert.equal(r['count'], '601')
  } finally {
    c.close()
  }
}

describe('snapshots between etcdlite and etcd', { skip }, () => {
  for (const auth of [false, true]) {
    it(`etcdlite → etcdctl snapshot status and restore → etcd serves the same (auth ${auth ? 'on' : 'off'})`, async () => {
      const m = await etcdliteToEtcd(history(auth), 1, auth ? undefined : keepsWorking)
      assert.deepEqual(m.restored, m.source)
      const rev = (m.source as { rev: number }).rev
      assert.ok(m.status.revision <= rev && m.status.revision > rev - 5, `status revision ${m.status.revision} near ${rev}`)
      assert.equal(m.status.totalSize, m.fileSize - 32)
      assert.ok(m.status.totalKey > (m.source as { kvs: unknown[] }).kvs.length)
    })

    it(`etcd → etcdctl snapshot save → etcdlite --restore-snapshot serves the same (auth ${auth ? 'on' : 'off'})`, async () => {
      const m = await etcdToEtcdlite(history(auth))
      assert.deepEqual(m.restored, m.source)
    })
  }
})
