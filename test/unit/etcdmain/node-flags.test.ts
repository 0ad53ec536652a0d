import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { NODE_FLAGS } from '../../../src/etcdmain/node-flags.js'

const repo = (p: string): string => fileURLToPath(new URL(`../../../../${p}`, import.meta.url))

describe('node flags', () => {
  it('the CLI shebang (source and build) and npm start run node with NODE_FLAGS', () => {
    const want = `#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`
    assert.equal(readFileSync(repo('src/bin/etcdlite.ts'), 'utf8').split('\n')[0], want)
    assert.equal(readFileSync(repo('build/src/bin/etcdlite.js'), 'utf8').split('\n')[0], want)
    const pkg = JSON.parse(readFileSync(repo('package.json'), 'utf8')) as { scripts: Record<string, string> }
    assert.equal(pkg.scripts['start'], `node ${NODE_FLAGS.join(' ')} build/src/bin/etcdlite.js`)
  })

  it('node accepts every flag', () => {
    const r = spawnSync(process.execPath, [...NODE_FLAGS, '-e', 'process.exit(0)'], { encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stderr, '')
  })
})
