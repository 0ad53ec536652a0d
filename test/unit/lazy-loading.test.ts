// What importing etcdlite and opening an in-memory store loads, in a fresh process: none of the packages
// that only a listener, a client, a scrape, a password, JWT tokens, a gateway request, reflection or a store
// on disk needs. Each of them costs start-up time (module loading is most of a start) and memory. Checked
// both for tsc's output and for the package as it ships (its bundle), whose chunks must keep the laziness.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

/** The two ways in: tsc's output, and the package by its name (resolved through package.json's exports). */
const ENTRIES: readonly (readonly [string, string])[] = [
  ['tsc output', new URL('../../src/index.js', import.meta.url).href],
  ['the package', 'etcdlite'],
]

/** Run in a fresh process: import etcdlite, open and close an in-memory store, list the CommonJS modules loaded. */
const script = (entry: string): string => `
import { createRequire } from 'node:module'
const { openEtcd } = await import(${JSON.stringify(entry)})
const etcd = await openEtcd({ memory: true })
await etcd.put({ key: 'k', value: 'v' })
await etcd.close()
process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)))
`

/** Packages (their entry points) that must stay unloaded. */
const NOT_LOADED: readonly (readonly [string, RegExp])[] = [
  ['@grpc/grpc-js (beyond its constants)', /@grpc\/grpc-js\/build\/src\/(?!constants\.js$)/],
  ['@grpc/proto-loader', /@grpc\/proto-loader\//],
  ['@grpc/reflection', /@grpc\/reflection\//],
  ['protobufjs', /\/protobufjs\//],
  ['prom-client', /\/prom-client\//],
  ['classic-level', /\/classic-level\//],
  ['bcryptjs', /\/bcryptjs\//],
  ['jsonwebtoken', /\/jsonwebtoken\//],
  ['yaml', /\/yaml\//],
]

describe('importing etcdlite and opening a store in memory', () => {
  for (const [way, entry] of ENTRIES) {
    it(`loads none of the packages only other uses need (${way})`, async () => {
      // The script runs inside the package's directory, so that 'etcdlite' resolves to the package itself.
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script(entry)], { cwd: fileURLToPath(new URL('.', import.meta.url)) })
      const loaded = JSON.parse(stdout) as string[]
      assert.ok(loaded.some((f) => f.includes('memory-level')), 'the probe sees CommonJS modules')
      for (const [name, pattern] of NOT_LOADED) {
        assert.deepEqual(loaded.filter((f) => pattern.test(f)), [], `${name} was loaded`)
      }
    })
  }
})
