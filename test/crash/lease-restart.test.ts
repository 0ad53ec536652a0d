// Leases across a restart. etcd (lease/lessor.go) persists every lease with its granted TTL and attaches
// keys again from the KV store when it restores; a member that becomes leader (a single member, on every
// start) gives every lease its full TTL again plus one election timeout (Promote). So:
// - on disk, with a ManualClock: keys and attachments survive a close and reopen, a lease that had 2 s
//   left has TTL + 1 s again, then expires with its keys in one revision, and that expiry survives the
//   next restart too;
// - with SIGKILL, on the real etcd and on the etcdlite CLI alike: every acknowledged grant and attached
//   put survives a crash, and the restored attachments still decide what a revoke deletes.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { ManualClock } from '../../src/pkg/clock.js'
import type { EtcdTestClient } from '../compliance/harness/client.js'
import { rawTestClient } from '../compliance/harness/adapters/raw.js'
import { haveEtcd, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'

const b = (s: string): Uint8Array => Buffer.from(s)
const str = (u: Uint8Array): string => Buffer.from(u).toString('latin1')
/** etcd's expiry loop looks every 500 ms. */
const CHECK_MS = 500
/** etcd extends every lease by one election timeout (1 s by default) when it becomes leader. */
const EXTEND_S = 1

interface Kv {
  readonly key: Uint8Array
  readonly lease: bigint
}
interface Store {
  range(r: { key: Uint8Array; rangeEnd: Uint8Array }): Promise<{ header: { revision: number }; kvs: readonly Kv[] }>
}

/** Every key as "key@lease", and the revision. */
async function contents(s: Store): Promise<{ keys: string[]; rev: number }> {
  const r = await s.range({ key: b('\0'), rangeEnd: b('\0') })
  return { keys: r.kvs.map((kv) => `${str(kv.key)}@${kv.lease}`), rev: r.header.revision }
}

async function leaseState(etcd: Etcd, id: bigint): Promise<{ ttl: number; granted: number; keys: string[] }> {
  const r = await etcd.leaseTimeToLive({ id, keys: true })
  return { ttl: r.ttl, granted: r.grantedTtl, keys: r.keys.map(str).sort() }
}

describe('leases across a restart (embedded, on disk, manual clock)', () => {
  it('keys and attachments survive; leases get their full TTL again, then expire with their keys', async () => {
    const dir = await tempDir('etcdlite-lease-restart-')
    const open = (clock: ManualClock): Promise<Etcd> => openEtcd({ dataDir: dir.path, clock })
    try {
      const clock1 = new ManualClock()
      let etcd = await open(clock1)
      try {
        await etcd.leaseGrant({ id: 1n, ttl: 10 })
        await etcd.leaseGrant({ id: 2n, ttl: 100 })
        await etcd.leaseGrant({ id: 3n, ttl: 30 })
        await etcd.put({ key: b('a'), value: b('1'), lease: 1n })
        await etcd.put({ key: b('b'), value: b('1'), lease: 1n })
        await etcd.put({ key: b('c'), value: b('1'), lease: 2n })
        await etcd.put({ key: b('d'), value: b('1') })
        await clock1.advance(8_000)
        assert.deepEqual(await leaseState(etcd, 1n), { ttl: 2, granted: 10, keys: ['a', 'b'] })
      } finally {
        await etcd.close()
      }

      // Downtime does not count: the new process's clock starts again at 0, and so does every lease.
      const clock2 = new ManualClock()
      etcd = await open(clock2)
      try {
        assert.deepEqual((await etcd.leaseLeases()).leases.map((l) => l.id).sort(), [1n, 2n, 3n])
        assert.deepEqual(await leaseState(etcd, 1n), { ttl: 10 + EXTEND_S, granted: 10, keys: ['a', 'b'] })
        assert.deepEqual(await leaseState(etcd, 2n), { ttl: 100 + EXTEND_S, granted: 100, keys: ['c'] })
        assert.deepEqual(await leaseState(etcd, 3n), { ttl: 30 + EXTEND_S, granted: 30, keys: [] })
        assert.deepEqual(await contents(etcd), { keys: ['a@1', 'b@1', 'c@2', 'd@0'], rev: 5 })

        await clock2.advance((10 + EXTEND_S) * 1000 - 1)
        assert.deepEqual(await contents(etcd), { keys: ['a@1', 'b@1', 'c@2', 'd@0'], rev: 5 }, 'lease 1 expired before its TTL')
        await clock2.advance(1 + CHECK_MS)
        assert.equal((await etcd.leaseTimeToLive({ id: 1n })).ttl, -1, 'lease 1 outlived its TTL')
        assert.deepEqual(await contents(etcd), { keys: ['c@2', 'd@0'], rev: 6 }, 'the keys of lease 1 go in one revision')

        // The attachment of c was restored from the KV store: revoking lease 2 deletes it.
        await etcd.leaseRevoke({ id: 2n })
        assert.deepEqual(await contents(etcd), { keys: ['d@0'], rev: 7 })
      } finally {
        await etcd.close()
      }

      // The expiry and the revoke were durable: only lease 3 is left.
      etcd = await open(new ManualClock())
      try {
        assert.deepEqual((await etcd.leaseLeases()).leases.map((l) => l.id), [3n])
        assert.deepEqual(await contents(etcd), { keys: ['d@0'], rev: 7 })
      } finally {
        await etcd.close()
      }
    } finally {
      await dir.remove()
    }
  })
})

interface Target {
  readonly name: string
  readonly skip: string | false
  /** Start a server on `dataDir` (created by the test, kept across restarts). */
  start(dataDir: string): Promise<ServerProcess>
}

const targets: readonly Target[] = [
  // A second --data-dir overrides the helper's own fresh one (Go flags: the last one wins).
  { name: 'etcd', skip: haveEtcd() ? false : 'the reference `etcd` binary is not on PATH', start: (dataDir) => startReferenceEtcd(['--data-dir', dataDir]) },
  { name: 'etcdlite', skip: false, start: (dataDir) => startEtcdliteProcess({ dataDir }) },
]

describe('leases survive SIGKILL (the real etcd and the etcdlite CLI)', () => {
  for (const t of targets) {
    it(`${t.name}: acknowledged grants and attached keys survive; a revoke after the restart deletes the restored keys`, { skip: t.skip }, async () => {
      const dir = await tempDir('lease-crash-')
      let server: ServerProcess | undefined
      let client: EtcdTestClient | undefined
      const connect = async (): Promise<EtcdTestClient> => {
        server = await t.start(dir.path)
        return rawTestClient(server.endpoint, () => Promise.resolve())
      }
      try {
        client = await connect()
        const l1 = (await client.leaseGrant({ ttl: 60 })).id
        const l2 = (await client.leaseGrant({ ttl: 120 })).id
        await client.put({ key: b('a'), value: b('1'), lease: l1 })
        await client.put({ key: b('b'), value: b('1'), lease: l1 })
        await client.put({ key: b('c'), value: b('1'), lease: l2 })
        await client.put({ key: b('d'), value: b('1') })
        await client.close()
        client = undefined
        assert.equal(await server?.stop('SIGKILL'), 'SIGKILL')

        client = await connect()
        const name = (id: bigint): string => (id === l1 ? 'L1' : id === l2 ? 'L2' : String(id))
        assert.deepEqual((await client.leaseLeases()).leases.map((l) => name(l.id)).sort(), ['L1', 'L2'])
        const ttl1 = await client.leaseTimeToLive({ id: l1, keys: true })
        assert.deepEqual([ttl1.grantedTtl, ttl1.keys.map(str).sort()], [60, ['a', 'b']])
        assert.ok(ttl1.ttl >= 1 && ttl1.ttl <= 60 + EXTEND_S, `time left ${ttl1.ttl} s`)
        const kvs = await contents(client)
        assert.deepEqual({ keys: kvs.keys.map((k) => k.replace(/@(\d+)$/, (_m, id: string) => `@${id === '0' ? '0' : name(BigInt(id))}`)), rev: kvs.rev }, { keys: ['a@L1', 'b@L1', 'c@L2', 'd@0'], rev: 5 })

        assert.equal((await client.leaseRevoke({ id: l1 })).header.revision, 6)
        assert.deepEqual((await contents(client)).keys.length, 2)
        assert.deepEqual((await client.leaseKeepAlive([{ id: l2 }])).map((r) => r.ttl), [120])
      } finally {
        await client?.close()
        await server?.dispose()
        await dir.remove()
      }
    })
  }
})
