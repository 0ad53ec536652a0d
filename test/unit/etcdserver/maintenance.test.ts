// Maintenance (src/etcdserver/maintenance.ts) through the embedded API, on memory-level and classic-level:
// CRC-32C, HashKV against values taken from real etcd 3.4.23 for the same history, hashes across restarts
// and compaction, Status, the quota and the NOSPACE alarm, the Alarm RPC, MoveLeader and the Cluster core.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import type { EtcdOptions } from '../../../src/embed/options.js'
import { Crc32c } from '../../../src/etcdserver/hash.js'
import { validPeerUrls } from '../../../src/etcdserver/cluster.js'
import { ERROR_MESSAGES, isEtcdError, type ErrorCode } from '../../../src/pkg/errors.js'
import { tempDir } from '../../helpers/tmp.js'

const b = (s: string): Uint8Array => Buffer.from(s)
const code = (c: ErrorCode) => (e: unknown): boolean => isEtcdError(e, c) && e.message === ERROR_MESSAGES[c]

interface Kind {
  readonly name: string
  /** Open a fresh server; `reopen` opens the same storage again (undefined in memory). */
  readonly make: (opts?: EtcdOptions) => Promise<{ etcd: Etcd; reopen?: () => Promise<Etcd>; cleanup: () => Promise<void> }>
}


const kinds: Kind[] = [
  {
    name: 'memory-level',
    make: async (opts = {}) => ({ etcd: await openEtcd({ ...opts, memory: true }), cleanup: () => Promise.resolve() }),
  },
  {
    name: 'classic-level',
    make: async (opts = {}) => {
      const dir = await tempDir()
      const o = { ...opts, dataDir: join(dir.path, 'data'), unsafeNoFsync: true }
      return { etcd: await openEtcd(o), reopen: () => openEtcd(o), cleanup: () => dir.remove() }
    },
  },
]

describe('Crc32c (Castagnoli)', () => {
  const cases = [
    { name: 'empty', input: '', want: 0 },
    { name: 'the check value of CRC-32C', input: '123456789', want: 0xe3069283 },
    { name: 'one byte', input: 'a', want: 0xc1d04330 },
    { name: "etcd's HashKV of an empty key bucket hashes just 'key'", input: 'key', want: 1084519789 },
  ]
  for (const c of cases) it(c.name, () => assert.equal(new Crc32c().update(b(c.input)).digest(), c.want))

  it('gives the same result however the input is split', () => {
    const data = new Uint8Array(1000).map((_, i) => (i * 131 + 7) & 0xff)
    const whole = new Crc32c().update(data).digest()
    for (const cut of [1, 7, 8, 9, 500, 999]) {
      assert.equal(new Crc32c().update(data.subarray(0, cut)).update(data.subarray(cut)).digest(), whole, `cut at ${cut}`)
    }
    let bytewise = new Crc32c()
    for (const x of data) bytewise = bytewise.update(new Uint8Array([x]))
    assert.equal(bytewise.digest(), whole)
  })
})

for (const kind of kinds) {
  describe(`Maintenance on ${kind.name}`, () => {
    it('HashKV equals real etcd 3.4.23 for the same history, before and after compaction', async () => {
      const { etcd, reopen, cleanup } = await kind.make()
      try {
        await etcd.put({ key: b('a'), value: b('1') })
        await etcd.put({ key: b('b'), value: b('2') })
        await etcd.deleteRange({ key: b('a') })
        // Values from `etcdctl endpoint hashkv` against etcd 3.4.23 after the same commands.
        const h4 = await etcd.hashKV()
        assert.deepEqual([h4.hash, h4.header.revision, h4.compactRevision], [1562576432, 4, -1])
        assert.equal((await etcd.hashKV({ revision: 4 })).hash, 1562576432)
        await etcd.put({ key: b('a'), value: b('3') })
        await etcd.put({ key: b('b'), value: b('4') })
        await etcd.compact({ revision: 5 })
        const cases = [
          { name: 'current (0)', revision: 0, want: { hash: 3390813209, compactRevision: 5 } },
          { name: 'the current revision', revision: 6, want: { hash: 3390813209, compactRevision: 5 } },
          { name: 'negative: no revision hashed', revision: -1, want: { hash: 1084519789, compactRevision: 5 } },
          { name: 'the compacted revision', revision: 5, fails: 'COMPACTED' as const },
          { name: 'below the compacted revision', revision: 2, fails: 'COMPACTED' as const },
          { name: 'a future revision', revision: 7, fails: 'FUTURE_REV' as const },
        ]
        const check = async (e: Etcd, when: string): Promise<void> => {
          for (const c of cases) {
            if (c.fails !== undefined) {
              await assert.rejects(e.hashKV({ revision: c.revision }), code(c.fails), `${when}: ${c.name}`)
            } else {
              const r = await e.hashKV({ revision: c.revision })
              assert.deepEqual({ hash: r.hash, compactRevision: r.compactRevision }, c.want, `${when}: ${c.name}`)
              assert.equal(r.header.revision, 6, `${when}: ${c.name}: header has the current revision`)
            }
          }
        }
        await check(etcd, 'compaction scheduled')
        await etcd.compact({ revision: 5, physical: true }).catch(() => undefined)
        await check(etcd, 'compaction done')
        if (reopen !== undefined) {
          await etcd.close()
          const again = await reopen()
          try {
            await check(again, 'after a restart')
          } finally {
            await again.close()
          }
        }
      } finally {
        await etcd.close()
        await cleanup()
      }
    })

    it('Hash covers the whole backend, changes with the data and survives a restart', async () => {
      const { etcd, reopen, cleanup } = await kind.make()
      try {
        await etcd.put({ key: b('k'), value: b('v') })
        const h1 = await etcd.hash()
        assert.equal((await etcd.hash()).hash, h1.hash, 'stable while nothing changes')
        assert.equal(h1.header.revision, 2)
        await etcd.put({ key: b('k'), value: b('w') })
        const h2 = await etcd.hash()
        assert.notEqual(h2.hash, h1.hash)
        const kv2 = await etcd.hashKV()
        if (reopen !== undefined) {
          await etcd.close()
          const again = await reopen()
          try {
            assert.equal((await again.hash()).hash, h2.hash, 'the raft term bumped by the restart is not hashed')
            assert.equal((await again.hashKV()).hash, kv2.hash)
          } finally {
            await again.close()
          }
        }
      } finally {
        await etcd.close()
        await cleanup()
      }
    })

    it('Status reports this member as leader, the version, size, raft index and term', async () => {
      const { etcd, cleanup } = await kind.make({ etcdVersion: '3.5.99' })
      try {
        const s0 = await etcd.status()
        assert.equal(s0.version, '3.5.99')
        assert.equal(s0.leader, etcd.server.memberId)
        assert.equal(s0.header.memberId, etcd.server.memberId)
        assert.equal(s0.raftTerm, s0.header.raftTerm)
        assert.equal(s0.isLearner, false)
        assert.deepEqual(s0.errors, [])
        assert.equal(s0.dbSizeInUse, s0.dbSize)
        await etcd.put({ key: b('k'), value: new Uint8Array(50_000) })
        const s1 = await etcd.status()
        assert.ok(s1.dbSize >= s0.dbSize + 50_000, `dbSize ${s0.dbSize} -> ${s1.dbSize}`)
        assert.ok(s1.raftIndex > s0.raftIndex && s1.raftIndex >= s1.header.revision, 'raftIndex grows with writes')
        assert.equal(s1.raftAppliedIndex, s1.raftIndex)
      } finally {
        await etcd.close()
        await cleanup()
      }
    })

    it('past the quota writes fail with NOSPACE until space is freed and the alarm disarmed', async () => {
      const quota = 256 * 1024
      const { etcd, reopen, cleanup } = await kind.make({ quotaBackendBytes: quota })
      let cur = etcd
      try {
        const big = new Uint8Array(20_000).fill(0x61)
        let written = 0
        let refused: unknown
        for (; written < 100 && refused === undefined; written++) {
          await cur.put({ key: b(`k${written}`), value: big }).catch((e: unknown) => (refused = e))
        }
        assert.ok(code('NO_SPACE')(refused), `a put fails with NO_SPACE (${String(refused)})`)
        assert.ok(written > 5 && written * 20_000 < quota * 2, `about quota/value puts succeed (${written})`)
        const me = cur.server.memberId
        assert.deepEqual(await cur.alarmList(), [{ memberId: me, alarm: 'NOSPACE' }])
        assert.deepEqual((await cur.status()).errors, [`memberID:${me} alarm:NOSPACE `])

        if (reopen !== undefined) {
          await cur.close()
          cur = await reopen()
          assert.deepEqual(await cur.alarmList(), [{ memberId: me, alarm: 'NOSPACE' }], 'the alarm is persisted')
        }
        const refusedWrites: Array<{ name: string; run: () => Promise<unknown> }> = [
          { name: 'a small put', run: () => cur.put({ key: b('x'), value: b('y') }) },
          { name: 'a txn with a put', run: () => cur.txn({ success: [{ type: 'put', request: { key: b('x'), value: b('y') } }] }) },
          {
            name: 'a txn with a put only in its failure branch',
            run: () => cur.txn({ success: [], failure: [{ type: 'put', request: { key: b('x'), value: b('y') } }] }),
          },
          { name: 'a lease grant', run: () => cur.leaseGrant({ ttl: 60 }) },
        ]
        for (const w of refusedWrites) await assert.rejects(w.run(), code('NO_SPACE'), w.name)
        const allowed: Array<{ name: string; run: () => Promise<unknown> }> = [
          { name: 'a range', run: () => cur.range({ key: b('k0') }) },
          { name: 'a txn that only deletes', run: () => cur.txn({ success: [{ type: 'deleteRange', request: { key: b('k0') } }] }) },
          { name: 'a delete of every key', run: () => cur.deleteRange({ key: b('k'), rangeEnd: b('l') }) },
          { name: 'a compaction', run: async () => cur.compact({ revision: (await cur.status()).header.revision, physical: true }) },
          { name: 'a defragment', run: () => cur.defragment() },
          { name: 'HashKV', run: () => cur.hashKV() },
        ]
        for (const w of allowed) await assert.doesNotReject(w.run(), w.name)
        assert.ok((await cur.status()).dbSize < quota / 2, `space is freed (${(await cur.status()).dbSize})`)
        await assert.rejects(cur.put({ key: b('x'), value: b('y') }), code('NO_SPACE'), 'refused until disarmed')
        assert.deepEqual(await cur.alarmDisarm(), [{ memberId: me, alarm: 'NOSPACE' }])
        assert.deepEqual(await cur.alarmList(), [])
        await cur.put({ key: b('x'), value: b('y') })
        assert.deepEqual((await cur.status()).errors, [])
      } finally {
        await cur.close()
        await cleanup()
      }
    })
  })
}

describe('Alarm RPC', () => {
  it('activates, lists and deactivates per member and type', async () => {
    const etcd = await openEtcd({ memory: true })
    try {
      const steps: Array<{ name: string; req: Parameters<Etcd['alarm']>[0]; want: Array<{ memberId: bigint; alarm: string }> }> = [
        { name: 'nothing raised', req: { action: 'GET' }, want: [] },
        { name: 'ACTIVATE of type NONE raises nothing (etcd-io/etcd#13084)', req: { action: 'ACTIVATE', memberId: 5n, alarm: 'NONE' }, want: [] },
        { name: 'ACTIVATE answers with the alarm', req: { action: 'ACTIVATE', memberId: 5n, alarm: 'CORRUPT' }, want: [{ memberId: 5n, alarm: 'CORRUPT' }] },
        { name: 'ACTIVATE again answers with the raised one', req: { action: 'ACTIVATE', memberId: 5n, alarm: 'CORRUPT' }, want: [{ memberId: 5n, alarm: 'CORRUPT' }] },
        { name: 'another member', req: { action: 'ACTIVATE', memberId: 3n, alarm: 'NOSPACE' }, want: [{ memberId: 3n, alarm: 'NOSPACE' }] },
        { name: 'GET of every type', req: { action: 'GET', alarm: 'NONE' }, want: [{ memberId: 3n, alarm: 'NOSPACE' }, { memberId: 5n, alarm: 'CORRUPT' }] },
        { name: 'GET of one type', req: { action: 'GET', alarm: 'CORRUPT' }, want: [{ memberId: 5n, alarm: 'CORRUPT' }] },
        { name: 'DEACTIVATE of an alarm not raised', req: { action: 'DEACTIVATE', memberId: 5n, alarm: 'NOSPACE' }, want: [] },
        { name: 'DEACTIVATE answers with the alarm', req: { action: 'DEACTIVATE', memberId: 5n, alarm: 'CORRUPT' }, want: [{ memberId: 5n, alarm: 'CORRUPT' }] },
        { name: 'what is left', req: { action: 'GET' }, want: [{ memberId: 3n, alarm: 'NOSPACE' }] },
      ]
      for (const s of steps) assert.deepEqual((await etcd.alarm(s.req)).alarms, s.want, s.name)
      await assert.rejects(etcd.put({ key: b('a'), value: b('b') }), code('NO_SPACE'), "any member's NOSPACE refuses writes")
      assert.deepEqual((await etcd.status()).errors, ['memberID:3 alarm:NOSPACE '])
    } finally {
      await etcd.close()
    }
  })
})

describe('Cluster and MoveLeader on a one-member server', () => {
  it('lists this member and refuses membership changes as etcd does', async () => {
    const etcd = await openEtcd({ memory: true, name: 'solo', peerUrls: ['http://10.0.0.1:2380'], advertiseClientUrls: ['http://10.0.0.1:2379'] })
    try {
      const me = etcd.server.memberId
      const list = await etcd.memberList()
      assert.deepEqual(list.members, [{ id: me, name: 'solo', peerUrls: ['http://10.0.0.1:2380'], clientUrls: ['http://10.0.0.1:2379'], isLearner: false }])
      assert.deepEqual(list.header, { clusterId: etcd.server.clusterId, memberId: me, revision: 0, raftTerm: etcd.server.raftTerm })
      const c = etcd.server.cluster
      const cases: Array<{ name: string; run: () => unknown; fails: ErrorCode }> = [
        { name: 'add with invalid URLs', run: () => c.memberAdd({ peerUrls: ['ftp://x:1'] }), fails: 'MEMBER_BAD_URLS' },
        { name: 'add with no URLs', run: () => c.memberAdd({ peerUrls: [] }), fails: 'MEMBER_BAD_URLS' },
        { name: 'add', run: () => c.memberAdd({ peerUrls: ['http://10.0.0.2:2380'] }), fails: 'SINGLE_MEMBER' },
        { name: 'add a learner', run: () => c.memberAdd({ peerUrls: ['http://10.0.0.2:2380'], isLearner: true }), fails: 'SINGLE_MEMBER' },
        { name: 'remove an unknown member', run: () => c.memberRemove({ id: 1234n }), fails: 'MEMBER_NOT_FOUND' },
        { name: 'remove this member', run: () => c.memberRemove({ id: me }), fails: 'SINGLE_MEMBER' },
        { name: 'update an unknown member', run: () => c.memberUpdate({ id: 1234n, peerUrls: ['http://a:1'] }), fails: 'MEMBER_NOT_FOUND' },
        { name: 'update this member', run: () => c.memberUpdate({ id: me, peerUrls: ['http://a:1'] }), fails: 'SINGLE_MEMBER' },
        { name: 'promote an unknown member', run: () => c.memberPromote({ id: 1234n }), fails: 'MEMBER_NOT_FOUND' },
        { name: 'promote this member (no learner)', run: () => c.memberPromote({ id: me }), fails: 'MEMBER_NOT_LEARNER' },
      ]
      for (const k of cases) assert.throws(k.run, code(k.fails), k.name)
      await etcd.moveLeader({ targetId: me })
      await assert.rejects(etcd.moveLeader({ targetId: 1234n }), code('BAD_LEADER_TRANSFEREE'))
    } finally {
      await etcd.close()
    }
  })

  it("checks peer URLs as etcd's types.NewURLs does", () => {
    const cases = [
      { urls: ['http://127.0.0.1:2380'], ok: true },
      { urls: ['https://host:1', 'unix://sock', 'unixs://sock'], ok: true },
      { urls: ['http://127.0.0.1'], ok: false },
      { urls: ['http://127.0.0.1:2380/path'], ok: false },
      { urls: ['http://127.0.0.1:2380/'], ok: false },
      { urls: ['ftp://127.0.0.1:2380'], ok: false },
      { urls: ['notaurl'], ok: false },
      { urls: [], ok: false },
    ]
    for (const c of cases) assert.equal(validPeerUrls(c.urls), c.ok, c.urls.join(','))
  })

  it('refuses maintenance calls once closed', async () => {
    const etcd = await openEtcd({ memory: true })
    await etcd.close()
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['status', () => etcd.status()],
      ['hash', () => etcd.hash()],
      ['hashKV', () => etcd.hashKV()],
      ['defragment', () => etcd.defragment()],
      ['alarm', () => etcd.alarmList()],
      ['moveLeader', () => etcd.moveLeader({ targetId: 1n })],
      ['snapshot', async () => {
        for await (const chunk of etcd.snapshot()) void chunk
      }],
    ]
    for (const [name, run] of calls) await assert.rejects(run(), code('STOPPED'), name)
  })
})
