// What the etcdlite command loads of src/etcdmain: the help text and the config file's reader only when they
// are used. Every module a start loads costs start-up time and, while the ESM loader fetches a module's
// imports at once, file descriptors (etcdlite starts under `ulimit -n 64`). Checked for tsc's output, module
// by module, and for the command as it ships, where each lazily imported module is a chunk of the bundle
// named after it (build/dist/chunks/etcdlite/help-<hash>.js).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { ETCDLITE_BIN } from '../../helpers/processes.js'
import { tempDir } from '../../helpers/tmp.js'

/** A module loader hook that appends each module's URL to the file LOAD_LOG names. */
const HOOKS = `
import { appendFileSync } from 'node:fs'
export async function load(url, context, next) {
  appendFileSync(process.env.LOAD_LOG, url + '\\n')
  return next(url, context)
}
`
const REGISTER = `
import { register } from 'node:module'
register(new URL('./hooks.mjs', import.meta.url))
`

/** How a variant of the command names the modules it loads, and which of them only some starts need. */
interface Variant {
  readonly bin: string
  /** The name of a loaded module that the test follows, or undefined for one it does not. */
  readonly name: (url: string) => string | undefined
  /** What every start loads (the probe's proof that it sees the command start). */
  readonly start: string
  readonly help: readonly string[]
  readonly configFile: readonly string[]
}

const VARIANTS: readonly (readonly [string, Variant])[] = [
  ['tsc output', {
    bin: fileURLToPath(new URL('../../../src/bin/etcdlite.js', import.meta.url)),
    name: (u) => (u.includes('/src/etcdmain/') ? u.slice(u.lastIndexOf('/') + 1) : undefined),
    start: 'start-etcd.js',
    help: ['help.js'],
    configFile: ['config-file.js', 'go-yaml.js'],
  }],
  ['as shipped', {
    bin: ETCDLITE_BIN,
    name: (u) => /\/chunks\/etcdlite\/([a-z-]+)-[0-9A-Z]{8}\.js$/.exec(u)?.[1]?.concat('.js'),
    start: 'etcd-main.js',
    help: ['help.js'],
    // go-yaml has one importer, so it is inside the config file reader's chunk.
    configFile: ['config-file.js'],
  }],
]

for (const [way, v] of VARIANTS) {
  describe(`the etcdlite command (${way}) loads`, () => {
    let dir: { path: string; remove(): Promise<void> }
    before(async () => {
      dir = await tempDir('etcdlite-modules-')
      await writeFile(join(dir.path, 'hooks.mjs'), HOOKS)
      await writeFile(join(dir.path, 'register.mjs'), REGISTER)
    })
    after(() => dir.remove())

    const onDemand = [...v.help, ...v.configFile]

    /** The modules `etcdlite <args>` loads that the variant names, whatever its exit. */
    async function modules(name: string, args: readonly string[]): Promise<string[]> {
      const log = join(dir.path, `${name}.log`)
      await writeFile(log, '')
      await promisify(execFile)(process.execPath, ['--import', join(dir.path, 'register.mjs'), v.bin, ...args], { env: { ...process.env, LOAD_LOG: log } })
        .catch((err: unknown) => err)
      const urls = (await readFile(log, 'utf8')).split('\n')
      return urls.map(v.name).filter((m) => m !== undefined)
    }

    it('for --version (what a start loads before it serves): neither the help nor the config file reader', async () => {
      const loaded = await modules('version', ['--version'])
      assert.ok(loaded.includes(v.start), 'the probe sees the command start')
      assert.deepEqual(loaded.filter((m) => onDemand.includes(m)), [])
    })

    it('for --config-file: the config file reader', async () => {
      const file = join(dir.path, 'etcd.conf.yml')
      await writeFile(file, 'name: [\n')
      const loaded = await modules('config-file', ['--config-file', file])
      assert.deepEqual(loaded.filter((m) => onDemand.includes(m)), v.configFile)
    })

    it('for --help: the help text', async () => {
      const loaded = await modules('help', ['--help'])
      assert.deepEqual(loaded.filter((m) => onDemand.includes(m)), v.help)
    })
  })
}
