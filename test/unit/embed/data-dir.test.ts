// Which data dirs openEtcd refuses, what it says, and that a refused directory is left exactly as it was.
// The etcd layout is the one etcd 3.4.23 writes on its first start (`etcd --data-dir d`: d/member/snap/db
// and d/member/wal/0000000000000000-0000000000000000.wal); the e2e CLI test starts the real etcd for it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { openEtcd } from '../../../src/embed/etcd.js'
import { DataDirError } from '../../../src/backend/data-dir.js'
import { dirState } from '../../helpers/dir-state.js'
import { tempDir } from '../../helpers/tmp.js'

async function withDir(f: (dir: string) => Promise<void>): Promise<void> {
  const t = await tempDir()
  try {
    await f(t.path)
  } finally {
    await t.remove()
  }
}

/** openEtcd's rejection, which must be a DataDirError. */
async function refusal(dataDir: string): Promise<DataDirError> {
  try {
    const e = await openEtcd({ dataDir })
    await e.close()
  } catch (err) {
    assert.ok(err instanceof DataDirError, `a DataDirError, got ${String(err)}`)
    return err
  }
  assert.fail(`openEtcd opened ${dataDir}`)
}

describe('openEtcd refuses a data dir that is not its own', () => {
  it("refuses a real etcd's data dir, says what it found, and writes nothing", () =>
    withDir(async (dir) => {
      await mkdir(join(dir, 'member', 'snap'), { recursive: true })
      await mkdir(join(dir, 'member', 'wal'), { recursive: true })
      await writeFile(join(dir, 'member', 'snap', 'db'), Buffer.alloc(4096, 1))
      await writeFile(join(dir, 'member', 'wal', '0000000000000000-0000000000000000.wal'), Buffer.alloc(1024, 2))
      const before = await dirState(dir)
      const err = await refusal(dir)
      assert.equal(err.problem, 'etcd-data-dir')
      assert.equal(err.dataDir, dir)
      assert.match(err.message, new RegExp(`^etcdlite: data dir ${dir} is a real etcd's data dir \\(found member/snap and member/wal\\)`))
      assert.deepEqual(await dirState(dir), before)
    }))

  it('refuses a directory holding other files, naming some of them, and writes nothing', () =>
    withDir(async (dir) => {
      for (const n of ['notes.txt', 'a', 'b', 'c', 'd', 'e', 'f']) await writeFile(join(dir, n), n)
      const before = await dirState(dir)
      const err = await refusal(dir)
      assert.equal(err.problem, 'not-etcdlite')
      assert.match(err.message, /is neither empty nor an etcdlite data dir \(found a, b, c, d, e and 2 more\)/)
      assert.deepEqual(await dirState(dir), before)
    }))

  it('refuses a file', () =>
    withDir(async (dir) => {
      const file = join(dir, 'file')
      await writeFile(file, 'x')
      const err = await refusal(file)
      assert.equal(err.problem, 'not-a-directory')
      assert.equal(await readFile(file, 'utf8'), 'x')
    }))

  it('opens a missing or empty directory, and its own again after close', () =>
    withDir(async (dir) => {
      const empty = join(dir, 'empty')
      await mkdir(empty)
      for (const dataDir of [join(dir, 'missing'), empty]) {
        const first = await openEtcd({ dataDir })
        await first.put({ key: Buffer.from('k'), value: Buffer.from('v') })
        await first.close()
        const again = await openEtcd({ dataDir })
        assert.equal((await again.range({ key: Buffer.from('k') })).count, 1)
        await again.close()
      }
    }))
})

describe('openEtcd on a data dir in use', () => {
  it('says it is in use by this process, and leaves the open one untouched (LOG not rotated)', () =>
    withDir(async (dir) => {
      const first = await openEtcd({ dataDir: dir })
      try {
        await first.put({ key: Buffer.from('k'), value: Buffer.from('v') })
        const before = await dirState(dir)
        const err = await refusal(dir)
        assert.equal(err.problem, 'in-use')
        assert.equal(err.pid, process.pid, err.message)
        assert.match(err.message, new RegExp(`^etcdlite: data dir ${dir} is in use by this process \\(pid ${process.pid}\\)`))
        assert.deepEqual(await dirState(dir), before)
        assert.equal((await first.range({ key: Buffer.from('k') })).count, 1, 'the first one still serves')
      } finally {
        await first.close()
      }
      const after = await openEtcd({ dataDir: dir })
      await after.close()
    }))
})
