// Snapshot (src/etcdserver/snapshot.ts) through the embedded API: the stream's shape (what etcdctl checks),
// consistency under concurrent writes, the round trip into memory and into a new data dir (keys, revisions,
// compaction, leases, hashes), files without a trailer and in the earlier etcdlite format, and the files and
// targets a restore must refuse. (snapshot-interop.test.ts moves snapshots to and from the real etcd.)
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Etcd, openEtcd } from '../../../src/embed/etcd.js'
import type { EtcdOptions } from '../../../src/embed/options.js'
import { SNAPSHOT_ALIGN, SNAPSHOT_CHUNK_BYTES, SnapshotError } from '../../../src/etcdserver/snapshot.js'
import type { SnapshotChunk } from '../../../src/etcdserver/types/maintenance.js'
import { ERROR_MESSAGES, isEtcdError } from '../../../src/pkg/errors.js'
import { encodeKeyValue } from '../../../src/wire/keyvalue.js'
import { revToBytes } from '../../../src/mvcc/revision.js'
import { writeVarint } from '../../../src/wire/protobuf.js'
import { DbWriter } from '../../../src/pkg/bbolt/db-writer.js'

/** A bbolt file of `buckets` with its SHA-256 trailer, as a snapshot stream ends. */
function boltFile(buckets: readonly (readonly [string, readonly (readonly [Uint8Array, Uint8Array])[]])[]): Buffer {
  const fill = (w: DbWriter): ReturnType<DbWriter['finish']> => {
    for (const [name, entries] of buckets) {
      const bw = w.bucket(name)
      for (const [k, v] of entries) bw.put(k, v)
    }
    return w.finish()
  }
  const layout = fill(new DbWriter(4096))
  const pages: Buffer[] = []
  fill(new DbWriter(4096, (p) => pages.push(p), layout))
  const body = Buffer.concat(pages)
  return Buffer.concat([body, createHash('sha256').update(body).digest()])
}
import { tempDir } from '../../helpers/tmp.js'

const b = (s: string): Uint8Array => Buffer.from(s)
const str = (u: Uint8Array): string => Buffer.from(u).toString()


async function saveSnapshot(etcd: Etcd, file: string): Promise<Buffer> {
  const parts: Uint8Array[] = []
  for await (const blob of etcd.snapshot()) parts.push(blob)
  const bytes = Buffer.concat(parts)
  await writeFile(file, bytes)
  return bytes
}

/** Every key with its revisions, as a comparable list. */
async function dump(etcd: Etcd): Promise<string[]> {
  const r = await etcd.range({ key: b('\0'), rangeEnd: b('\0') })
  return [
    `rev ${r.header.revision}`,
    ...r.kvs.map((kv) => `${str(kv.key)}=${createHash('sha1').update(kv.value).digest('hex')} c${kv.createRevision} m${kv.modRevision} v${kv.version} l${kv.lease}`),
  ]
}

/** A history with overwrites, deletes, a compaction and a lease. */
async function fill(etcd: Etcd): Promise<bigint> {
  for (let i = 0; i < 30; i++) await etcd.put({ key: b(`k${i % 7}`), value: b(`v${i}`) })
  await etcd.deleteRange({ key: b('k3') })
  await etcd.compact({ revision: 20, physical: true })
  const lease = await etcd.leaseGrant({ ttl: 600 })
  await etcd.put({ key: b('leased'), value: b('x'), lease: lease.id })
  await etcd.put({ key: b('big'), value: new Uint8Array(100_000).fill(7) })
  await etcd.put({ key: b('one-chunk'), value: new Uint8Array(SNAPSHOT_CHUNK_BYTES).fill(8) })
  // Records of many sizes, so they end at every offset of a chunk.
  for (let t = 0; t < 3; t++) {
    const success = Array.from({ length: 100 }, (_, i) => ({
      type: 'put' as const,
      request: { key: b(`m/${t}/${i}`), value: new Uint8Array(((t * 100 + i) * 37) % 700).fill(i) },
    }))
    await etcd.txn({ success })
  }
  return lease.id
}

describe('Snapshot stream', () => {
  it('streams chunks that count down, then the SHA-256 of the rest, padded as etcdctl requires', async () => {
    const etcd = await openEtcd({ memory: true })
    try {
      await fill(etcd)
      const chunks: SnapshotChunk[] = []
      for await (const c of etcd.server.maintenance.snapshot()) chunks.push(c)
      const data = chunks.slice(0, -1)
      const last = chunks[chunks.length - 1] as SnapshotChunk
      const total = data.reduce((n, c) => n + c.blob.length, 0)
      assert.ok(data.length >= 2, 'more than one chunk for > 100 KB')
      assert.equal(data[0]?.header?.revision, (await etcd.status()).header.revision, 'the first chunk has the header')
      assert.ok(data.slice(1).every((c) => c.header === undefined))
      assert.ok(data.slice(0, -1).every((c) => c.blob.length === SNAPSHOT_CHUNK_BYTES))
      let remaining = total
      for (const c of data) {
        remaining -= c.blob.length
        assert.equal(c.remainingBytes, remaining)
      }
      assert.equal(total % SNAPSHOT_ALIGN, 0, 'the body is a multiple of 512 bytes')
      assert.equal(total % 4096, 0, 'the body is whole bbolt pages')
      assert.equal(Buffer.from(data[0]?.blob ?? []).readUInt32LE(16), 0xed0cdaed, "it starts with bbolt's meta page")
      assert.equal(last.remainingBytes, 0)
      const sha = createHash('sha256')
      for (const c of data) sha.update(c.blob)
      assert.deepEqual(Buffer.from(last.blob), sha.digest(), 'the last chunk is the SHA-256 of the body')
    } finally {
      await etcd.close()
    }
  })

  it('is a consistent view: writes after the stream began are not in it', async () => {
    const dir = await tempDir()
    const etcd = await openEtcd({ memory: true })
    try {
      await etcd.put({ key: b('before'), value: b('1') })
      const it = etcd.snapshot()[Symbol.asyncIterator]()
      const parts: Uint8Array[] = []
      const first = await it.next()
      if (first.done !== true) parts.push(first.value)
      await etcd.put({ key: b('after'), value: b('2') })
      await etcd.deleteRange({ key: b('before') })
      for (let r = await it.next(); r.done !== true; r = await it.next()) parts.push(r.value)
      const file = join(dir.path, 'snap.db')
      await writeFile(file, Buffer.concat(parts))
      const restored = await openEtcd(await Etcd.restoreSnapshot(file, { memory: true }))
      try {
        assert.deepEqual(await dump(restored), ['rev 2', `before=${createHash('sha1').update('1').digest('hex')} c2 m2 v1 l0`])
      } finally {
        await restored.close()
      }
    } finally {
      await etcd.close()
      await dir.remove()
    }
  })

  it('ends with STOPPED when the server closes mid-stream', async () => {
    const etcd = await openEtcd({ memory: true })
    await etcd.put({ key: b('big'), value: new Uint8Array(200_000) })
    const it = etcd.snapshot()[Symbol.asyncIterator]()
    assert.equal((await it.next()).done, false)
    await etcd.close()
    await assert.rejects(
      (async () => {
        for (let r = await it.next(); r.done !== true; r = await it.next()) void r
      })(),
      (e: unknown) => isEtcdError(e, 'STOPPED') && e.message === ERROR_MESSAGES.STOPPED,
    )
  })
})

describe('Restore from a snapshot', () => {
  const targets = [
    { name: 'into memory', opts: (): EtcdOptions => ({ memory: true }) },
    { name: 'into a new data dir', opts: (dir: string): EtcdOptions => ({ dataDir: join(dir, 'restored'), unsafeNoFsync: true }) },
    { name: 'into an existing empty data dir', opts: (dir: string): EtcdOptions => ({ dataDir: join(dir, 'empty'), unsafeNoFsync: true }) },
  ]
  for (const t of targets) {
    it(`brings back keys, revisions, compaction and leases ${t.name}, as a new member`, async () => {
      const dir = await tempDir()
      await mkdir(join(dir.path, 'empty'))
      const src = await openEtcd({ dataDir: join(dir.path, 'src'), unsafeNoFsync: true })
      let restored: Etcd | undefined
      try {
        const lease = await fill(src)
        const file = join(dir.path, 'snap.db')
        const bytes = await saveSnapshot(src, file)
        assert.equal(bytes.length % 512, 32, "etcdctl's hasChecksum holds")
        restored = await openEtcd(await Etcd.restoreSnapshot(file, t.opts(dir.path)))
        assert.deepEqual(await dump(restored), await dump(src))
        assert.deepEqual(await restored.hashKV(), { ...(await src.hashKV()), header: (await restored.hashKV()).header })
        assert.equal((await restored.hashKV()).hash, (await src.hashKV()).hash)
        await assert.rejects(restored.range({ key: b('k1'), revision: 19 }), (e: unknown) => isEtcdError(e, 'COMPACTED'))
        assert.equal(str((await restored.range({ key: b('k1'), revision: 20 })).kvs[0]?.value ?? b('')), 'v15')
        const ttl = await restored.leaseTimeToLive({ id: lease, keys: true })
        assert.equal(ttl.grantedTtl, 600)
        assert.deepEqual(ttl.keys.map(str), ['leased'])
        assert.notEqual(restored.server.memberId, src.server.memberId, 'a new member')
        assert.notEqual(restored.server.clusterId, src.server.clusterId, 'of a new cluster')
        const w = await restored.put({ key: b('new'), value: b('1') })
        assert.equal(w.header.revision, (await src.status()).header.revision + 1, 'revisions continue')
      } finally {
        await restored?.close()
        await src.close()
        await dir.remove()
      }
    })
  }

  it('restores a bbolt file without the SHA-256 trailer (a copy of a data dir\'s member/snap/db)', async () => {
    const dir = await tempDir()
    const src = await openEtcd({ memory: true })
    try {
      await fill(src)
      const bytes = await saveSnapshot(src, join(dir.path, 'with-sha.db'))
      const file = join(dir.path, 'db')
      await writeFile(file, bytes.subarray(0, bytes.length - 32))
      const restored = await openEtcd(await Etcd.restoreSnapshot(file, { memory: true }))
      try {
        assert.deepEqual(await dump(restored), await dump(src))
      } finally {
        await restored.close()
      }
    } finally {
      await src.close()
      await dir.remove()
    }
  })

  it('restores the snapshot format earlier etcdlite versions wrote', async () => {
    const dir = await tempDir()
    try {
      const parts: Uint8Array[] = [Buffer.from('etcdlite snapshot v1\n', 'latin1')]
      const record = (bucket: string, key: Uint8Array, value: Uint8Array): void => {
        const head = new Uint8Array(11)
        head[0] = bucket.charCodeAt(0)
        const len = new Uint8Array(10)
        parts.push(head.subarray(0, writeVarint(head, 1, key.length)), key)
        parts.push(len.subarray(0, writeVarint(len, 0, value.length)), value)
      }
      record('k', revToBytes({ main: 2, sub: 0 }), encodeKeyValue({ key: b('a'), value: b('1'), createRevision: 2, modRevision: 2, version: 1, lease: 0n }))
      record('k', revToBytes({ main: 3, sub: 0 }), encodeKeyValue({ key: b('a'), value: b('2'), createRevision: 2, modRevision: 3, version: 2, lease: 0n }))
      record('m', b('finishedCompactRev'), revToBytes({ main: 2, sub: 0 }))
      parts.push(new Uint8Array(1))
      const body = Buffer.concat(parts)
      const padded = Buffer.concat([body, Buffer.alloc((512 - (body.length % 512)) % 512)])
      const file = join(dir.path, 'old.db')
      await writeFile(file, Buffer.concat([padded, createHash('sha256').update(padded).digest()]))
      const restored = await openEtcd(await Etcd.restoreSnapshot(file, { memory: true }))
      try {
        assert.deepEqual(await dump(restored), ['rev 3', `a=${createHash('sha1').update('2').digest('hex')} c2 m3 v2 l0`])
        await assert.rejects(restored.range({ key: b('a'), revision: 1 }), (e: unknown) => isEtcdError(e, 'COMPACTED'))
      } finally {
        await restored.close()
      }
    } finally {
      await dir.remove()
    }
  })

  it('refuses damaged files, foreign files and non-empty targets, changing nothing', async () => {
    const dir = await tempDir()
    const src = await openEtcd({ memory: true })
    try {
      await src.put({ key: b('a'), value: b('1') })
      const good = await saveSnapshot(src, join(dir.path, 'good.db'))
      const body = good.subarray(0, good.length - 32)
      const flipped = Buffer.from(good)
      flipped[4096 * 3 + 30] = (flipped[4096 * 3 + 30] as number) ^ 1
      const zeros = Buffer.alloc(20480 + 32)
      zeros.set(createHash('sha256').update(zeros.subarray(0, 20480)).digest(), 20480)
      const shortBody = body.subarray(0, body.length - 4096)
      const files = [
        { name: 'a flipped byte', bytes: flipped, why: /damaged/ },
        { name: 'a truncated file', bytes: good.subarray(0, good.length - 100), why: /truncated/ },
        { name: 'a file of zeros', bytes: zeros, why: /not a snapshot/ },
        { name: 'an empty file', bytes: Buffer.alloc(0), why: /not a snapshot/ },
        { name: 'a bbolt file that is not an etcd backend', bytes: boltFile([['things', [[b('a'), b('1')]]]]), why: /not an etcd backend/ },
        { name: 'a revision key that is not one', bytes: boltFile([['key', [[b('a'), b('1')]]], ['meta', []]]), why: /not a revision/ },
        { name: 'a revision that does not decode', bytes: boltFile([['key', [[revToBytes({ main: 2, sub: 0 }), b('\xff\xff')]]], ['meta', []]]), why: /does not decode/ },
        { name: 'a lease that does not decode', bytes: boltFile([['key', []], ['meta', []], ['lease', [[new Uint8Array(8), b('\x0a')]]]]), why: /does not decode/ },
        { name: 'a bbolt file missing its last page', bytes: Buffer.concat([shortBody, createHash('sha256').update(shortBody).digest()]), why: /truncated/ },
      ]
      for (const f of files) {
        const file = join(dir.path, `${f.name}.db`)
        await writeFile(file, f.bytes)
        const dataDir = join(dir.path, `target-${files.indexOf(f)}`)
        await assert.rejects(Etcd.restoreSnapshot(file, { dataDir }), (e: unknown) => e instanceof SnapshotError && f.why.test(e.message), f.name)
        assert.deepEqual((await readdir(dir.path)).filter((n) => n.startsWith('target-')), [], `${f.name}: no data dir is left behind`)
        await assert.rejects(Etcd.restoreSnapshot(file, { memory: true }), (e: unknown) => e instanceof SnapshotError, `${f.name} (memory)`)
      }
      const used = join(dir.path, 'used')
      await (await openEtcd({ dataDir: used, unsafeNoFsync: true })).close()
      const before = await readdir(used)
      await assert.rejects(Etcd.restoreSnapshot(join(dir.path, 'good.db'), { dataDir: used }), /not empty/)
      assert.deepEqual(await readdir(used), before)
      assert.ok((await readFile(join(dir.path, 'good.db'))).equals(good))
    } finally {
      await src.close()
      await dir.remove()
    }
  })
})
