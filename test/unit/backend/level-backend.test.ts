// One backend contract, run on memory-level and on classic-level.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { Level } from 'level'
import { LevelBackend } from '../../../src/backend/level-backend.js'
import type { LevelDb } from '../../../src/embed/options.js'
import { tempDir } from '../../helpers/tmp.js'
import { memoryDb } from '../../helpers/memory-backend.js'

const b = (s: string): Uint8Array => Buffer.from(s)
const s = (u: Uint8Array | undefined): string | undefined => (u === undefined ? undefined : Buffer.from(u).toString())

interface Kind {
  readonly name: string
  /** A fresh database; `reopen` gives a new handle on the same storage when the kind has storage. */
  readonly make: () => Promise<{ db: LevelDb; reopen?: () => LevelDb; cleanup: () => Promise<void> }>
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
      const path = join(dir.path, 'db')
      const open = (): LevelDb => new Level(path, { keyEncoding: 'view', valueEncoding: 'view' }) as unknown as LevelDb
      return { db: open(), reopen: open, cleanup: () => dir.remove() }
    },
  },
]

for (const kind of kinds) {
  describe(`LevelBackend on ${kind.name}`, () => {
    it('reads its own buffered writes before and after commit', async () => {
      const { db, cleanup } = await kind.make()
      const be = await LevelBackend.open(db, { syncWrites: true })
      be.put('key', b('a'), b('1'))
      be.put('meta', b('a'), b('m'))
      assert.equal(s(be.get('key', b('a'))), '1')
      assert.equal(s(be.get('meta', b('a'))), 'm', 'buckets are separate')
      const p = be.commit()
      be.del('key', b('a'))
      assert.equal(be.get('key', b('a')), undefined, 'a delete buffered behind a commit in flight is seen')
      await p
      await be.commit()
      assert.equal(be.get('key', b('a')), undefined)
      assert.equal(s(be.get('meta', b('a'))), 'm')
      await be.close()
      await cleanup()
    })

    it('groups writes that arrive during a commit into the next batch', async () => {
      const { db, cleanup } = await kind.make()
      const be = await LevelBackend.open(db, { syncWrites: true })
      const commits: Promise<void>[] = []
      for (let i = 0; i < 50; i++) {
        be.put('key', b(`k${String(i).padStart(2, '0')}`), b(String(i)))
        commits.push(be.commit())
      }
      await Promise.all(commits)
      const all = await be.scan('key', b('k'), b('l'), 1000)
      assert.equal(all.length, 50)
      assert.deepEqual(all.slice(0, 3).map((e) => s(e.key)), ['k00', 'k01', 'k02'])
      assert.equal((await be.scan('key', b('k'), b('l'), 7)).length, 7, 'scan honours its limit')
      await be.close()
      await cleanup()
    })

    it('writes buffered in the same event-loop turn as a commit join its batch', async () => {
      const { db, cleanup } = await kind.make()
      const be = await LevelBackend.open(db, { syncWrites: true })
      be.put('key', b('a'), b('1'))
      const p = be.commit()
      be.put('key', b('b'), b('2'))
      be.del('key', b('a'))
      assert.equal(be.get('key', b('a')), undefined, 'reads see the newest buffered op')
      assert.equal(s(be.get('key', b('b'))), '2')
      await p
      const stored = await be.scan('key', b('a'), b('c'), 10)
      assert.deepEqual(stored.map((e) => s(e.key)), ['b'], 'the later put and delete were written with the first put')
      await be.close()
      await cleanup()
    })

    it('keeps committed data across close and reopen', async (t) => {
      const { db, reopen, cleanup } = await kind.make()
      if (reopen === undefined) {
        t.skip('no storage behind an in-memory database')
        await cleanup()
        return
      }
      const be = await LevelBackend.open(db, { syncWrites: true })
      be.put('key', b('x'), b('y'))
      await be.close()
      const again = await LevelBackend.open(reopen(), { syncWrites: true })
      assert.equal(s(again.get('key', b('x'))), 'y', 'close() commits what is buffered')
      await again.close()
      await cleanup()
    })

    it('refuses writes after close', async () => {
      const { db, cleanup } = await kind.make()
      const be = await LevelBackend.open(db, { syncWrites: false })
      await be.close()
      assert.throws(() => be.put('key', b('a'), b('b')), /server stopped/)
      await be.close()
      await cleanup()
    })
  })
}
