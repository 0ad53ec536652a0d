// The package as it ships: package.json's entry point and command are the bundles `npm run build` writes
// (build/dist), not tsc's output that the other unit tests import. The entry must export what the source's
// index exports and work as it does; the command must run as `etcdlite` from a PATH. The CLI's own tests
// (test/e2e) run the shipped command.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { accessSync, constants, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import * as source from '../../src/index.js'
import { ETCDLITE_BIN } from '../helpers/processes.js'

const PACKAGE_JSON = new URL('../../../package.json', import.meta.url)
const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string; main: string; exports: { '.': { default: string } } }

describe('the package', () => {
  it('resolves by its name to the bundled entry point that main and exports name', () => {
    const resolved = fileURLToPath(import.meta.resolve('etcdlite'))
    assert.equal(resolved, fileURLToPath(new URL(pkg.exports['.'].default, PACKAGE_JSON)))
    assert.equal(resolved, fileURLToPath(new URL(pkg.main, PACKAGE_JSON)))
    assert.match(resolved, /\/build\/dist\/index\.js$/)
  })

  it('exports what the source index exports, each of the same kind', async () => {
    const shipped = await import('etcdlite') as Record<string, unknown>
    const kinds = (m: Record<string, unknown>): Record<string, string> =>
      Object.fromEntries(Object.keys(m).sort().map((k) => [k, typeof m[k]]))
    assert.deepEqual(kinds(shipped), kinds(source as Record<string, unknown>))
  })

  it('serves a put, a range and a watch event from an in-memory store', async () => {
    const { openEtcd } = await import('etcdlite')
    const etcd = await openEtcd({ memory: true })
    try {
      const watcher = etcd.watch({ key: 'k' })
      const put = await etcd.put({ key: 'k', value: 'v' })
      const got = await etcd.range({ key: 'k' })
      assert.equal(Buffer.from(got.kvs[0]?.value ?? []).toString(), 'v')
      assert.equal(got.kvs[0]?.modRevision, put.header.revision)
      let event: number | undefined
      for await (const resp of watcher) {
        event = resp.events[0]?.kv.modRevision
        break
      }
      assert.equal(event, put.header.revision)
    } finally {
      await etcd.close()
    }
  })

  it('ships a command that runs from a PATH and reports the package version', async () => {
    accessSync(ETCDLITE_BIN, constants.X_OK)
    assert.ok(readFileSync(ETCDLITE_BIN, 'utf8').startsWith('#!/usr/bin/env node\n'))
    const { stdout } = await promisify(execFile)(ETCDLITE_BIN, ['--version'])
    assert.match(stdout, new RegExp(`^etcdlite Version: ${pkg.version.replaceAll('.', '\\.')}$`, 'm'))
  })
})
