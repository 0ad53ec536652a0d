// The README's embedded example must run as written (with the package name pointed at this build).
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { tempDir } from '../../helpers/tmp.js'

const root = fileURLToPath(new URL('../../../../', import.meta.url))

it('README embedded example runs and prints what its comments say', async () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const m = /## Usage: embedded\n\n```js\n([\s\S]*?)```/.exec(readme)
  assert.ok(m?.[1], 'README has the embedded example')
  const entry = pathToFileURL(join(root, 'build/src/index.js')).href
  const code = m[1].replace("from 'etcdlite'", `from '${entry}'`)
  const dir = await tempDir()
  try {
    const file = join(dir.path, 'example.mjs')
    writeFileSync(file, code)
    const res = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 20000 })
    assert.equal(res.status, 0, res.stderr)
    const lines = res.stdout.trim().split('\n')
    assert.equal(lines[0], '2')
    assert.equal(lines[1], "2 [ '1', '2' ]")
    assert.equal(lines[2], 'true')
    assert.match(lines[3] ?? '', /^etcdctl --endpoints=127\.0\.0\.1:\d+ get app\/ --prefix$/)
    assert.deepEqual(lines.slice(4), ['PUT app/a 2', 'PUT app/b 3', 'PUT app/a 4', 'DELETE app/b 5'])
  } finally {
    await dir.remove()
  }
})
