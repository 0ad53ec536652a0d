import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { cp } from 'node:fs/promises'
import { join } from 'node:path'
import { Level } from 'level'
import { LevelBackend } from '../../../src/backend/level-backend.js'
import { KvStore, type KvStoreOptions } from '../../../src/mvcc/kvstore.js'
import { CheckpointWriter } from '../../../src/mvcc/index-checkpoint.js'
import type { KeyIndex } from '../../../src/mvcc/key-index.js'
import { FROM_KEY } from '../../../src/pkg/bytes.js'
import type { LeaseItems } from '../../../src/lease/lessor.js'
import type { LevelDb } from '../../../src/embed/options.js'
import { tempDir } from '../../helpers/tmp.js'

const b = (s: string): Uint8Array => Buffer.from(s, 'latin1')
const CHECKPOINT = 'metcdliteIndexCheckpoint'

function rawDb(path: string): Level<string, Buffer> {
  return new Level<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer' })
}

async function openStore(path: string, leases?: LeaseItems, opts: Partial<KvStoreOptions> = {}): Promise<KvStore> {
  const be = await LevelBackend.open(new Level(path, { keyEncoding: 'view', valueEncoding: 'view' }) as unknown as LevelDb, { syncWrites: false })
  return KvStore.open(be, leases === undefined ? opts : { ...opts, leases })
}

/** Close the backend without the store's close, as a crash leaves it: no checkpoint written at close. */
async function crash(s: KvStore): Promise<void> {
  await s.backend.close()
}

/** A copy of the database at `path` without any checkpoint: what a rebuild from the log alone gives. */
async function logOnlyCopy(path: string, to: string): Promise<void> {
  await cp(path, to, { recursive: true })
  const records = await checkpointRecords(to)
  const db = rawDb(to)
  await db.batch(records.map(([key]) => ({ type: 'del' as const, key })))
  await db.close()
}

/** The checkpoint's raw records in a closed database (header and chunks). */
async function checkpointRecords(path: string): Promise<[string, Buffer][]> {
  const db = rawDb(path)
  try {
    return await db.iterator({ gte: CHECKPOINT, lt: `${CHECKPOINT}\xff` }).all()
  } finally {
    await db.close()
  }
}

async function putRecords(path: string, records: readonly [string, Buffer][]): Promise<void> {
  const db = rawDb(path)
  await db.batch(records.map(([key, value]) => ({ type: 'put' as const, key, value })))
  await db.close()
}

/**
 * What a store's index says: revisions and reads at several revisions, and with `index` every key's
 * generations. A rebuild from the log differs from the live index in what no read can see (the version and
 * creating revision of a lone tombstone kept by compaction), so it is compared without `index`.
 */
function describeStore(s: KvStore, withIndex = true): unknown {
  // A rebuild from the log knows only the main part of a creating revision (as etcd's restore): compare that.
  const index = [...s.index.entries()].map(([k, ki]) => [k, ki.modified, ki.generations.map((g) => [g.ver, g.created.main, g.revs])])
  const reads = []
  for (let rev = Math.max(s.compactRev(), 1); rev <= s.rev(); rev += Math.max(1, Math.floor(s.rev() / 7))) {
    const r = s.read().range(b(''), FROM_KEY, { rev })
    reads.push([rev, r.count, r.kvs.map((kv) => [Buffer.from(kv.key).toString('latin1'), kv.modRevision, kv.version])])
  }
  return { rev: s.rev(), compactRev: s.compactRev(), reads, ...(withIndex ? { index } : {}) }
}

/** A random history: puts (some in multi-op txns), deletes, re-creations and compactions. */
async function randomHistory(s: KvStore, seed: number, ops: number, compactions = true): Promise<void> {
  let x = seed
  const rnd = (n: number): number => {
    x = (x * 1103515245 + 12345) % 2 ** 31
    return x % n
  }
  for (let i = 0; i < ops; i++) {
    const tw = s.write()
    const n = 1 + rnd(3)
    for (let j = 0; j < n; j++) {
      const k = b(`k${String.fromCharCode(rnd(40), 0xff - rnd(3))}`)
      if (rnd(5) === 0) tw.deleteRange(k, undefined)
      else tw.put(k, b(`v${i}`), 0n)
    }
    const rev = tw.end()
    await s.sync(rev)
    const at = rev - 1 - rnd(2)
    if (compactions && rnd(40) === 0 && at > Math.max(s.compactRev(), 1)) await (await s.compact(at)).done
  }
}

class FakeLeases implements LeaseItems {
  readonly items = new Map<string, bigint>()
  readonly leases = new Set<bigint>([7n, 8n])
  get attachedKeys(): number {
    return this.items.size
  }

  leaseOf(key: Uint8Array): bigint {
    return this.leaseOfLatin1(Buffer.from(key).toString('latin1'))
  }

  leaseOfLatin1(k: string): bigint {
    return this.items.get(k) ?? 0n
  }

  attach(id: bigint, key: Uint8Array): void {
    if (this.leases.has(id)) this.items.set(Buffer.from(key).toString('latin1'), id)
  }

  detach(_id: bigint, key: Uint8Array): void {
    this.items.delete(Buffer.from(key).toString('latin1'))
  }
}

describe('index checkpoint', () => {
  for (const seed of [1, 2, 3]) {
    it(`a clean close leaves the index; the next open reads it and equals a rebuild from the log (seed ${seed})`, async () => {
      const dir = await tempDir()
      try {
        const a = join(dir.path, 'a')
        const s = await openStore(a)
        await randomHistory(s, seed, 300)
        const want = describeStore(s)
        await s.close()
        const records = await checkpointRecords(a)
        assert.ok(records.length >= 2, 'a header and at least one chunk')

        // The same database without the checkpoint: the log alone.
        const logOnly = join(dir.path, 'log-only')
        await cp(a, logOnly, { recursive: true })
        const db = rawDb(logOnly)
        await db.batch(records.map(([key]) => ({ type: 'del' as const, key })))
        await db.close()

        const fromCheckpoint = await openStore(a)
        const fromLog = await openStore(logOnly)
        assert.equal(fromCheckpoint.restoredFrom, 'checkpoint')
        assert.equal(fromLog.restoredFrom, 'log')
        assert.deepEqual(describeStore(fromCheckpoint), want)
        assert.deepEqual(describeStore(fromLog, false), describeStore(fromCheckpoint, false))
        await fromLog.close()
        // Writes after a checkpointed open work and survive another restart.
        await randomHistory(fromCheckpoint, seed + 10, 50)
        const want2 = describeStore(fromCheckpoint)
        await fromCheckpoint.close()
        const again = await openStore(a)
        assert.equal(again.restoredFrom, 'checkpoint')
        assert.deepEqual(describeStore(again), want2)
        await again.close()
      } finally {
        await dir.remove()
      }
    })
  }

  it('the checkpoint outlives the open: after writes and a crash, the open reads it and replays the log past it', async () => {
    const dir = await tempDir()
    try {
      const p = join(dir.path, 'db')
      const s = await openStore(p)
      await randomHistory(s, 5, 60)
      await s.close()
      const s2 = await openStore(p)
      assert.equal(s2.restoredFrom, 'checkpoint')
      assert.equal(s2.restoreReplayed, 0)
      await randomHistory(s2, 6, 80, false)
      const want = describeStore(s2)
      await crash(s2)
      assert.notEqual((await checkpointRecords(p)).length, 0)
      await logOnlyCopy(p, join(dir.path, 'log-only'))
      const s3 = await openStore(p)
      assert.equal(s3.restoredFrom, 'checkpoint')
      assert.ok(s3.restoreReplayed >= 80, `replayed ${s3.restoreReplayed} log entries`)
      assert.deepEqual(describeStore(s3), want)
      const fromLog = await openStore(join(dir.path, 'log-only'))
      assert.equal(fromLog.restoredFrom, 'log')
      assert.deepEqual(describeStore(fromLog), want)
      await fromLog.close()
      await s3.close()
    } finally {
      await dir.remove()
    }
  })

  it('a compaction after the checkpoint makes the next open after a crash rebuild from the log', async () => {
    const dir = await tempDir()
    try {
      const p = join(dir.path, 'db')
      const s = await openStore(p)
      await randomHistory(s, 7, 100, false)
      await s.close()
      const s2 = await openStore(p)
      await randomHistory(s2, 8, 30, false)
      await (await s2.compact(s2.rev() - 5)).done
      await randomHistory(s2, 9, 30, false)
      const want = describeStore(s2, false)
      await crash(s2)
      const s3 = await openStore(p)
      assert.equal(s3.restoredFrom, 'log')
      assert.deepEqual(describeStore(s3, false), want)
      await s3.close()
    } finally {
      await dir.remove()
    }
  })

  for (const seed of [11, 12, 13]) {
    it(`checkpoints written in the background while writes and compactions go on: a crash at any point opens to the same store as the log (seed ${seed})`, async () => {
      const dir = await tempDir()
      try {
        const p = join(dir.path, 'db')
        // A checkpoint every 40 entries at the least, encoded 3 keys per turn so that writes land mid-way.
        const opts = { checkpointMinEntries: 40, checkpointKeysPerTurn: 3 }
        let s = await openStore(p, undefined, opts)
        let written = 0
        for (let round = 0; round < 4; round++) {
          await randomHistory(s, seed * 10 + round, 120, round % 2 === 1)
          written += s.checkpointsWritten
          const want = describeStore(s)
          const wantLog = describeStore(s, false)
          await crash(s)
          const logOnly = join(dir.path, `log-only-${round}`)
          await logOnlyCopy(p, logOnly)
          s = await openStore(p, undefined, opts)
          const fromLog = await openStore(logOnly)
          assert.equal(fromLog.restoredFrom, 'log')
          // Without compactions since, a checkpoint written in the background is in force.
          if (round % 2 === 0) assert.equal(s.restoredFrom, 'checkpoint', `round ${round}`)
          assert.deepEqual(describeStore(s, false), wantLog)
          assert.deepEqual(describeStore(fromLog, false), wantLog)
          if (s.restoredFrom === 'checkpoint') assert.deepEqual(describeStore(s), want)
          await fromLog.close()
        }
        assert.ok(written >= 4, `${written} background checkpoints`)
        await s.close()
      } finally {
        await dir.remove()
      }
    })
  }

  it('background checkpoints are off with checkpointMinEntries Infinity (the flag\'s 0): a crash then means a rebuild from the log', async () => {
    const dir = await tempDir()
    try {
      const p = join(dir.path, 'db')
      const s = await openStore(p, undefined, { checkpointMinEntries: Infinity })
      await randomHistory(s, 16, 200)
      const want = describeStore(s, false)
      assert.equal(s.checkpointsWritten, 0)
      await crash(s)
      assert.deepEqual(await checkpointRecords(p), [])
      const s2 = await openStore(p)
      assert.equal(s2.restoredFrom, 'log')
      assert.deepEqual(describeStore(s2, false), want)
      await s2.close()
    } finally {
      await dir.remove()
    }
  })

  it('an unfinished background checkpoint leaves the one in force intact, and the next one removes what it left', async () => {
    const dir = await tempDir()
    try {
      const p = join(dir.path, 'db')
      const s = await openStore(p)
      await randomHistory(s, 14, 100, false)
      await s.close()
      const before = await checkpointRecords(p)
      const s2 = await openStore(p)
      await randomHistory(s2, 15, 40, false)
      const want = describeStore(s2)
      // A writer that buffers chunks into the other slot and never finishes.
      const w = new CheckpointWriter(s2.backend)
      const [[, one]] = [...s2.index.entries()] as [[string, KeyIndex]]
      while (w.chunks < 2) w.add(one, 0n)
      await s2.backend.commit()
      await crash(s2)
      const s3 = await openStore(p)
      assert.equal(s3.restoredFrom, 'checkpoint')
      assert.deepEqual(describeStore(s3), want)
      await s3.close()
      // One header and one slot's chunks: as many records as one checkpoint of the same index has.
      const after = await checkpointRecords(p)
      assert.equal(after.filter(([k]) => k !== CHECKPOINT).length, before.filter(([k]) => k !== CHECKPOINT).length)
    } finally {
      await dir.remove()
    }
  })

  it('a damaged chunk, a bad header or a compaction since the checkpoint means a rebuild from the log', async () => {
    const dir = await tempDir()
    try {
      const p = join(dir.path, 'db')
      const s = await openStore(p)
      await randomHistory(s, 9, 200)
      const want = describeStore(s, false)
      await s.close()
      const records = await checkpointRecords(p)
      const header = records.find(([k]) => k === CHECKPOINT)
      const chunk = records.find(([k]) => k !== CHECKPOINT)
      assert.ok(header !== undefined && chunk !== undefined)
      const damaged = Buffer.from(chunk[1])
      damaged[damaged.length >> 1] = (damaged[damaged.length >> 1] as number) ^ 0x55
      const bad: [string, Buffer][][] = [
        [[chunk[0], damaged]],
        [[CHECKPOINT, Buffer.from('{"format":99}')]],
        [[CHECKPOINT, Buffer.from('not json')]],
        [[CHECKPOINT, Buffer.from(JSON.stringify({ ...JSON.parse(header[1].toString()) as object, compactRev: 1 }))]],
      ]
      for (const variant of bad) {
        await putRecords(p, [...records, ...variant])
        const s2 = await openStore(p)
        assert.equal(s2.restoredFrom, 'log')
        assert.deepEqual(describeStore(s2, false), want)
        await s2.backend.close()
        assert.deepEqual(await checkpointRecords(p), [], 'even a checkpoint that was not used is dropped')
      }
    } finally {
      await dir.remove()
    }
  })

  it('keys attached to leases are attached again from the checkpoint, as from the log', async () => {
    const dir = await tempDir()
    try {
      const p = join(dir.path, 'db')
      const leases = new FakeLeases()
      const s = await openStore(p, leases)
      const tw = s.write()
      tw.put(b('a'), b('1'), 7n)
      tw.put(b('b'), b('1'), 8n)
      tw.put(b('c'), b('1'), 7n)
      tw.put(b('d'), b('1'), 0n)
      await s.sync(tw.end())
      const tw2 = s.write()
      tw2.put(b('c'), b('2'), 0n) // detached by a later put without a lease
      tw2.deleteRange(b('b'), undefined) // detached by the delete
      await s.sync(tw2.end())
      await s.close()
      assert.notEqual((await checkpointRecords(p)).length, 0)
      const again = new FakeLeases()
      const s2 = await openStore(p, again)
      assert.equal(s2.restoredFrom, 'checkpoint')
      assert.deepEqual([...again.items].sort(), [['a', 7n]])
      await s2.close()
    } finally {
      await dir.remove()
    }
  })
})
