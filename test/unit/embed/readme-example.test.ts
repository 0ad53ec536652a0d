// The README's examples must run as written (with the package name pointed at this build): the embedding
// example prints what its comments say, and the testing recipe passes under node --test.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { tempDir } from '../../helpers/tmp.js'

const root = fileURLToPath(new URL('../../../../', import.meta.url))
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const entry = pathToFileURL(join(root, 'build/src/index.js')).href

/** The first ```js block of the README section `heading`, importing this build. */
function example(heading: string): string {
  const m = new RegExp(`## ${heading}\\n[\\s\\S]*?\`\`\`js\\n([\\s\\S]*?)\`\`\``).exec(readme)
  assert.ok(m?.[1], `README has the ${heading} example`)
  return m[1].replace("from 'etcdlite'", `from '${entry}'`)
}

async function run(code: string, args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const dir = await tempDir()
  try {
    const file = join(dir.path, 'example.test.mjs')
    writeFileSync(file, code)
    // Without the runner's own NODE_TEST_CONTEXT, a nested `node --test` reports as a top-level run does.
    const env = { ...process.env }
    delete env['NODE_TEST_CONTEXT']
    return spawnSync(process.execPath, [...args, file], { encoding: 'utf8', timeout: 30_000, cwd: dir.path, env })
  } finally {
    await dir.remove()
  }
}

it('the embedding example runs and prints what its comments say', async () => {
  const res = await run(example('Embedding'), [])
  assert.equal(res.status, 0, res.stderr)
  const lines = res.stdout.trim().split('\n')
  assert.equal(lines[0], '2')
  assert.equal(lines[1], "2 [ '1', '2' ]")
  assert.equal(lines[2], 'true')
  assert.match(lines[3] ?? '', /^etcdctl --endpoints=127\.0\.0\.1:\d+ get app\/ --prefix$/)
  assert.deepEqual(lines.slice(4), ['PUT app/a 2', 'PUT app/b 3', 'PUT app/a 4', 'DELETE app/b 5'])
})

it('the testing recipe passes under node --test', async () => {
  const res = await run(example('Testing with etcdlite'), ['--test', '--test-reporter=tap'])
  assert.equal(res.status, 0, res.stdout + res.stderr)
  assert.match(res.stdout, /# pass 2\n/)
  assert.match(res.stdout, /# fail 0\n/)
})
