// The backend's maintenance contract (size, snapshot, defragment), run on memory-level and classic-level.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { Level } from 'level'
import { LevelBackend } from '../../../src/backend/level-backend.js'
import type { Backend, Entry } from '../../../src/backend/backend.js'
import type { LevelDb } from '../../../src/embed/options.js'
import { tempDir } from '../../helpers/tmp.js'
import { memoryDb } from '../../helpers/memory-backend.js'

const b = (s: string): Uint8Array => Buffer.from(s)
const str = (u: Uint8Array): string => Buffer.from(u).toString()

interface Kind {
  readonly name: string
  readonly make: () => Promise<{ db: LevelDb; cleanup: () => Promise<void> }>
}

const kinds: Kind[] = [
  {
    name: 'memory-level',
    make: () => Promise.resolve({ db: memoryDb(), cleanup: () => Promise.resolve() }),
  },
  {
    name: 'classic-level',
    make: async () => {
      const dir = await tempDir()
      const db = new Level(join(dir.path, 'db'), { keyEncoding: 'view', valueEncoding: 'view' }) as unknown as LevelDb
      return { db, cleanup: () => dir.remove() }
    },
  },
]

async function withBackend(kind: Kind, fn: (be: Backend) => Promise<void>): Promise<void> {
  const { db, cleanup } = await kind.make()
  const be = await LevelBackend.open(db, { syncWrites: false })
  try {
    await fn(be)
  } finally {
    await be.close()
    await cleanup()
  }
}

async function all(it: AsyncIterable<readonly Entry[]>): Promise<string[]> {
  const out: string[] = []
  for await (const chunk of it) for (const e of chunk) out.push(`${str(e.key)}=${str(e.value)}`)
  return out
}

const value = (n: number): Uint8Array => new Uint8Array(n).fill(0x61)

for (const kind of kinds) {
  describe(`LevelBackend maintenance on ${kind.name}`, () => {
    it('size() grows at once with buffered writes, and refreshSize() measures what is stored', async () => {
      await withBackend(kind, async (be) => {
        const empty = be.size()
        for (let i = 0; i < 10; i++) be.put('key', b(`k${i}`), value(10_000))
        assert.ok(be.size() >= empty + 100_000, `estimate counts buffered bytes (${be.size()})`)
        await be.refreshSize()
        assert.ok(be.size() >= empty + 100_000, `measured size holds the values (${be.size()})`)
      })
    })

    it('defragment() reclaims the space of deleted entries', async () => {
      await withBackend(kind, async (be) => {
        for (let i = 0; i < 20; i++) be.put('key', b(`k${String(i).padStart(2, '0')}`), value(20_000))
        await be.commit()
        await be.refreshSize()
        const full = be.size()
        for (let i = 0; i < 20; i++) be.del('key', b(`k${String(i).padStart(2, '0')}`))
        await be.defragment()
        assert.ok(be.size() < full / 4, `after defragment ${be.size()} < ${full}/4`)
        assert.deepEqual(await be.scan('key', b(''), b('\xff'), 100), [], 'the data stays deleted')
      })
    })

    it('a snapshot sees what was committed when it was taken, and nothing later', async () => {
      await withBackend(kind, async (be) => {
        be.put('key', b('a'), b('1'))
        be.put('key', b('b'), b('2'))
        be.put('meta', b('m'), b('x'))
        await be.commit()
        const snap = be.snapshot()
        be.put('key', b('c'), b('3'))
        be.del('key', b('a'))
        be.put('key', b('b'), b('changed'))
        await be.commit()
        assert.deepEqual(await all(snap.entries('key')), ['a=1', 'b=2'])
        assert.deepEqual(await all(snap.entries('meta')), ['m=x'], 'buckets are separate')
        assert.deepEqual(await all(snap.entries('key', b('b'), b('z'))), ['b=2'], 'bounds apply')
        assert.deepEqual(await all(snap.entries('lease')), [])
        await snap.close()
        await snap.close()
        assert.deepEqual(await be.scan('key', b(''), b('\xff'), 10).then((es) => es.map((e) => str(e.key))), ['b', 'c'])
      })
    })

    it('entries() come in chunks and breaking out releases the iterator', async () => {
      await withBackend(kind, async (be) => {
        for (let i = 0; i < 2500; i++) be.put('key', b(`k${String(i).padStart(5, '0')}`), b('v'))
        await be.commit()
        await using snap = be.snapshot()
        let chunks = 0
        let n = 0
        for await (const chunk of snap.entries('key')) {
          chunks++
          n += chunk.length
        }
        assert.equal(n, 2500)
        assert.ok(chunks >= 3, `${chunks} chunks`)
        for await (const chunk of snap.entries('key')) {
          assert.ok(chunk.length > 0)
          break
        }
      })
    })

    it('closing the backend with a snapshot open does not hang, and the snapshot is unusable after', async () => {
      const { db, cleanup } = await kind.make()
      const be = await LevelBackend.open(db, { syncWrites: false })
      be.put('key', b('a'), b('1'))
      await be.commit()
      const snap = be.snapshot()
      const it = snap.entries('key')[Symbol.asyncIterator]()
      assert.equal((await it.next()).done, false)
      await be.close()
      await assert.rejects(async () => {
        for await (const chunk of snap.entries('key')) void chunk
      })
      assert.throws(() => be.snapshot(), /server stopped/)
      await cleanup()
    })
  })
}
