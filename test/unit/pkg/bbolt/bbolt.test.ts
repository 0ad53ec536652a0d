// The bbolt writer and reader (src/pkg/bbolt): files written page by page read back the same, real bbolt
// (etcdctl snapshot status opens the file with bbolt and runs its consistency check, Tx.Check) accepts them
// with the same keys and values, real etcd's files read, and damaged files fail with BoltError.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { open, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { DbReader } from '../../../../src/pkg/bbolt/db-reader.js'
import { DbWriter } from '../../../../src/pkg/bbolt/db-writer.js'
import { BoltError, BRANCH_PAGE_FLAG, readPageHeader } from '../../../../src/pkg/bbolt/page.js'
import { Crc32c } from '../../../../src/etcdserver/hash.js'
import { ETCDCTL_ENV } from '../../../helpers/etcdctl.js'
import { haveEtcd, haveEtcdctl, startReferenceEtcd } from '../../../helpers/processes.js'
import { rawClient } from '../../../helpers/grpc-client.js'
import { decodeKeyValue } from '../../../../src/wire/keyvalue.js'
import { Prng } from '../../../helpers/prng.js'
import { tempDir } from '../../../helpers/tmp.js'

type Entries = [Uint8Array, Uint8Array][]
type Db = [string, Entries][]

const b = (s: string): Buffer => Buffer.from(s)
const noEtcdctl = haveEtcdctl() ? false : 'etcdctl is not on PATH'
const noEtcd = noEtcdctl !== false ? noEtcdctl : haveEtcd() ? false : 'the reference `etcd` binary is not on PATH'

function bytesOf(rnd: Prng, n: number): Uint8Array {
  const out = new Uint8Array(n)
  for (let i = 0; i < n; i++) out[i] = rnd.int(256)
  return out
}

/** Write `db` with a dry run then a real run, as the snapshot stream does; buckets in the given order. */
function build(db: Db, pageSize = 4096): Buffer {
  const fill = (w: DbWriter): ReturnType<DbWriter['finish']> => {
    for (const [name, entries] of db) {
      const bw = w.bucket(name)
      for (const [k, v] of entries) bw.put(k, v)
    }
    return w.finish()
  }
  const layout = fill(new DbWriter(pageSize))
  const pages: Buffer[] = []
  assert.deepEqual(fill(new DbWriter(pageSize, (p) => pages.push(p), layout)), layout)
  const file = Buffer.concat(pages)
  assert.equal(file.length, DbWriter.fileSize(pageSize, layout))
  return file
}

const withSha = (file: Buffer): Buffer => Buffer.concat([file, createHash('sha256').update(file).digest()])

async function read(path: string, size: number): Promise<Db> {
  const fh = await open(path, 'r')
  try {
    const r = await DbReader.open(fh, size)
    const out: Db = []
    for (const [name, ref] of await r.buckets()) {
      const entries: Entries = []
      for await (const leaf of r.walk(ref)) for (const e of leaf) entries.push([Buffer.from(e.key), Buffer.from(e.value)])
      out.push([name, entries])
    }
    return out
  } finally {
    await fh.close()
  }
}

const sorted = (db: Db): Db => [...db].sort((x, y) => Buffer.compare(b(x[0]), b(y[0]))).map(([n, es]) => [n, es.map(([k, v]) => [Buffer.from(k), Buffer.from(v)])])

/** What etcdctl snapshot status reports for `db`: CRC-32C over names, keys and values; entries; size. */
function expectedStatus(db: Db, size: number, revision: number): Record<string, number> {
  const h = new Crc32c()
  let totalKey = 0
  for (const [name, entries] of sorted(db)) {
    h.update(b(name))
    for (const [k, v] of entries) {
      h.update(k).update(v)
      totalKey++
    }
  }
  return { hash: h.digest(), revision, totalKey, totalSize: size }
}

function etcdctlStatus(file: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('etcdctl', ['snapshot', 'status', file, '-w', 'json'], { env: ETCDCTL_ENV })
    let out = ''
    let err = ''
    p.stdout.on('data', (d: Buffer) => (out += d.toString()))
    p.stderr.on('data', (d: Buffer) => (err += d.toString()))
    p.on('error', reject)
    p.on('close', (code) => resolve({ code, out, err }))
  })
}

/** Write, read back, and (with etcdctl) have real bbolt check the file and report the same content. */
async function roundTrip(db: Db, revision = 0): Promise<void> {
  const dir = await tempDir()
  try {
    const file = build(db)
    const path = join(dir.path, 'x.db')
    await writeFile(path, withSha(file))
    assert.deepEqual(await read(path, file.length), sorted(db))
    if (noEtcdctl !== false) return
    const st = await etcdctlStatus(path)
    assert.equal(st.code, 0, st.err)
    assert.deepEqual(JSON.parse(st.out), expectedStatus(db, file.length, revision))
  } finally {
    await dir.remove()
  }
}

function revKey(main: number): Uint8Array {
  const k = Buffer.alloc(17)
  k.writeBigUInt64BE(BigInt(main), 0)
  k[8] = 0x5f
  return k
}

describe('bbolt writer and reader', () => {
  it('round-trips small (inline), empty and paged buckets', async () => {
    const rnd = new Prng(1)
    const medium: Entries = Array.from({ length: 300 }, (_, i) => [b(`k${String(i).padStart(4, '0')}`), bytesOf(rnd, rnd.between(0, 200))])
    await roundTrip([
      ['meta', [[b('a'), b('1')], [b('b'), b('')]]],
      ['empty', []],
      ['medium', medium],
      ['just-inline', [[b('x'), new Uint8Array(1024 - 16 - 16 - 1)]]],
      ['just-paged', [[b('x'), new Uint8Array(1024 - 16 - 16)]]],
    ])
  })

  it('stores values bigger than a page on overflow pages, and the largest key', async () => {
    const rnd = new Prng(2)
    const entries: Entries = [4000, 4096, 10_000, 100_000, 1_500_000].map((n, i) => [b(`v${i}`), bytesOf(rnd, n)])
    entries.push([Buffer.alloc(32768, 0x7a), bytesOf(rnd, 10)])
    await roundTrip([['big', entries], ['small', [[b('k'), b('v')]]]])
  })

  it('builds deep trees from many keys (etcd revision keys)', async () => {
    const rnd = new Prng(3)
    const n = 150_000
    const entries: Entries = Array.from({ length: n }, (_, i) => [revKey(i + 1), bytesOf(rnd, rnd.between(10, 60))])
    await roundTrip([['key', entries]], n)
  })

  it('refuses entries bbolt refuses: out of order, duplicate, empty or oversize key', () => {
    const w = new DbWriter(4096)
    const bw = w.bucket('x')
    bw.put(b('b'), b(''))
    assert.throws(() => bw.put(b('a'), b('')), BoltError)
    assert.throws(() => bw.put(b('b'), b('')), BoltError)
    assert.throws(() => bw.put(b(''), b('')), BoltError)
    assert.throws(() => bw.put(Buffer.alloc(32769, 1), b('')), BoltError)
    assert.throws(() => w.bucket('x'), BoltError)
  })

  it('fails with BoltError, never anything else, on damaged files', async () => {
    const dir = await tempDir()
    try {
      const rnd = new Prng(4)
      const entries: Entries = Array.from({ length: 2000 }, (_, i) => [revKey(i + 1), bytesOf(rnd, rnd.between(1, 300))])
      const good = build([['key', entries], ['meta', [[b('m'), b('1')]]]])
      const path = join(dir.path, 'bad.db')
      const outcomes = { ok: 0, refused: 0 }
      for (let i = 0; i < 300; i++) {
        const bad = Buffer.from(good)
        const flips = rnd.between(1, 8)
        for (let f = 0; f < flips; f++) {
          // Aim at the headers and element tables most of the time: that is where a flip changes the structure.
          const page = rnd.int(bad.length / 4096)
          const off = page * 4096 + (rnd.between(0, 3) === 0 ? rnd.between(0, 4095) : rnd.between(0, 127))
          bad[off] = rnd.between(0, 255)
        }
        await writeFile(path, bad)
        try {
          await read(path, bad.length)
          outcomes.ok++
        } catch (e) {
          if (!(e instanceof BoltError)) throw e
          outcomes.refused++
        }
      }
      assert.ok(outcomes.refused > 0, 'some damage is noticed')
      // Structural cases, each refused.
      const cases: [string, (x: Buffer) => Buffer][] = [
        ['both meta checksums', (x) => ((x[16 + 60] = (x[16 + 60] as number) ^ 1), (x[4096 + 16 + 60] = (x[4096 + 16 + 60] as number) ^ 1), x)],
        ['truncated', (x) => x.subarray(0, x.length - 4096)],
        ['empty', () => Buffer.alloc(0)],
        ['not bbolt', (x) => x.fill(0)],
      ]
      for (const [name, damage] of cases) {
        const bad = damage(Buffer.from(good))
        await writeFile(path, bad)
        await assert.rejects(read(path, bad.length), BoltError, name)
      }
    } finally {
      await dir.remove()
    }
  })

  it('reads a branch page that points at itself as an error, not a loop', async () => {
    const dir = await tempDir()
    try {
      const entries: Entries = Array.from({ length: 2000 }, (_, i) => [revKey(i + 1), Buffer.alloc(40)])
      const file = build([['key', entries]])
      // Find a branch page and point its first child at itself.
      let patched = false
      for (let p = 3; p < file.length / 4096 && !patched; p++) {
        const h = readPageHeader(file, p * 4096)
        if ((h.flags & BRANCH_PAGE_FLAG) === 0) continue
        file.writeBigUInt64LE(BigInt(p), p * 4096 + 16 + 8)
        patched = true
      }
      assert.ok(patched)
      const path = join(dir.path, 'loop.db')
      await writeFile(path, file)
      await assert.rejects(read(path, file.length), BoltError)
    } finally {
      await dir.remove()
    }
  })

  it("reads real etcd's files: inline buckets, branch pages, overflow pages", { skip: noEtcd }, async () => {
    const etcd = await startReferenceEtcd()
    const dir = await tempDir()
    const c = rawClient(etcd.endpoint)
    try {
      const big = Buffer.alloc(200_000, 0x61)
      await c.kv.Put({ key: b('big'), value: big })
      for (let i = 0; i < 3000; i += 100) {
        await Promise.all(Array.from({ length: 100 }, (_, j) => c.kv.Put({ key: b(`k${i + j}`), value: b(`v${i + j}`) })))
      }
      await c.kv.DeleteRange({ key: b('k1') })
      const path = join(dir.path, 'etcd.db')
      const r = await new Promise<number | null>((resolve, reject) => {
        const p = spawn('etcdctl', [`--endpoints=${etcd.endpoint}`, 'snapshot', 'save', path], { env: ETCDCTL_ENV, stdio: 'ignore' })
        p.on('error', reject)
        p.on('close', resolve)
      })
      assert.equal(r, 0)
      const st = await stat(path)
      const db = new Map(await read(path, st.size - 32))
      const keys = db.get('key') ?? []
      assert.equal(keys.length, 3002, 'a revision per put, and the tombstone')
      const kvs = keys.map(([, v]) => decodeKeyValue(v))
      assert.ok(Buffer.from(kvs[0]?.value ?? []).equals(big), 'the value on overflow pages')
      assert.deepEqual(kvs.slice(1).filter((kv) => kv.version > 0).map((kv) => Buffer.from(kv.key).toString()).sort(),
        Array.from({ length: 3000 }, (_, i) => `k${i}`).sort())
      assert.deepEqual([...db.keys()].sort(), ['alarm', 'auth', 'authRoles', 'authUsers', 'cluster', 'key', 'lease', 'members', 'members_removed', 'meta'])
      assert.ok((db.get('meta') ?? []).some(([k]) => Buffer.from(k).toString() === 'consistent_index'))
    } finally {
      c.close()
      await etcd.dispose()
      await dir.remove()
    }
  })
})
