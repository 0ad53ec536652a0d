import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { backupTime, RotatingFileSink, type RotationConfig } from '../../../src/pkg/lumberjack.js'
import { tempDir } from '../../helpers/tmp.js'

const MB = 1024 * 1024
const BASE: RotationConfig = { maxSize: 1, maxAge: 0, maxBackups: 0, localTime: false, compress: false }
/** A line of 64 KiB: 16 fill one megabyte. */
const LINE = `${'x'.repeat(64 * 1024 - 1)}\n`

/** A sink whose clock moves a second per rotation-relevant call, so backups get distinct names. */
function sink(file: string, cfg: Partial<RotationConfig>, start = Date.UTC(2026, 10, 27, 10, 0, 0, 0)): { s: RotatingFileSink; errors: Error[] } {
  let t = start
  const errors: Error[] = []
  const s = new RotatingFileSink(file, { ...BASE, ...cfg }, () => new Date((t += 1000)), (e) => errors.push(e))
  return { s, errors }
}

describe('RotatingFileSink (lumberjack)', () => {
  it('names backups as lumberjack does', () => {
    assert.equal(backupTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), false), '2026-01-02T03-04-05.006')
  })

  it('rotates before a write would pass maxsize, keeping every line', async () => {
    const dir = await tempDir('lumberjack-')
    try {
      const file = join(dir.path, 'etcd.log')
      const { s, errors } = sink(file, {})
      for (let i = 0; i < 40; i++) s.write(LINE)
      s.close()
      assert.deepEqual(errors, [])
      const names = readdirSync(dir.path).sort()
      assert.deepEqual(names, ['etcd-2026-11-27T10-00-01.000.log', 'etcd-2026-11-27T10-00-02.000.log', 'etcd.log'])
      for (const n of names) assert.ok(statSync(join(dir.path, n)).size <= MB)
      const total = names.reduce((sum, n) => sum + readFileSync(join(dir.path, n), 'utf8').length, 0)
      assert.equal(total, 40 * LINE.length)
    } finally {
      await dir.remove()
    }
  })

  it('appends to an existing file that has room, and rotates one that has none', async () => {
    const dir = await tempDir('lumberjack-')
    try {
      const file = join(dir.path, 'a.log')
      writeFileSync(file, 'old\n')
      const first = sink(file, {})
      first.s.write('new\n')
      first.s.close()
      assert.equal(readFileSync(file, 'utf8'), 'old\nnew\n')
      writeFileSync(file, 'y'.repeat(MB - 2))
      const second = sink(file, {})
      second.s.write('zzz\n')
      second.s.close()
      assert.equal(readFileSync(file, 'utf8'), 'zzz\n')
      assert.equal(readdirSync(dir.path).length, 2)
    } finally {
      await dir.remove()
    }
  })

  it('refuses a line larger than maxsize, and reports it', async () => {
    const dir = await tempDir('lumberjack-')
    try {
      const { s, errors } = sink(join(dir.path, 'b.log'), {})
      s.write('z'.repeat(MB + 1))
      s.close()
      assert.deepEqual(errors.map((e) => e.message), [`write length ${MB + 1} exceeds maximum file size ${MB}`])
    } finally {
      await dir.remove()
    }
  })

  it('keeps maxbackups backups and gzips them with compress', async () => {
    const dir = await tempDir('lumberjack-')
    try {
      const file = join(dir.path, 'etcd.log')
      const { s } = sink(file, { maxBackups: 2, compress: true })
      for (let i = 0; i < 16 * 5; i++) s.write(LINE)
      await s.idle()
      s.close()
      const names = readdirSync(dir.path).sort()
      assert.deepEqual(names, ['etcd-2026-11-27T10-00-03.000.log.gz', 'etcd-2026-11-27T10-00-04.000.log.gz', 'etcd.log'])
      assert.equal(gunzipSync(readFileSync(join(dir.path, names[0] as string))).length, MB)
    } finally {
      await dir.remove()
    }
  })

  it('removes backups older than maxage days', async () => {
    const dir = await tempDir('lumberjack-')
    try {
      const file = join(dir.path, 'etcd.log')
      writeFileSync(join(dir.path, 'etcd-2020-01-01T00-00-00.000.log'), 'ancient\n')
      writeFileSync(join(dir.path, 'unrelated-2020-01-01T00-00-00.000.log'), 'kept\n')
      const { s } = sink(file, { maxAge: 1 })
      s.write('line\n')
      await s.idle()
      s.close()
      assert.deepEqual(readdirSync(dir.path).sort(), ['etcd.log', 'unrelated-2020-01-01T00-00-00.000.log'])
    } finally {
      await dir.remove()
    }
  })
})
