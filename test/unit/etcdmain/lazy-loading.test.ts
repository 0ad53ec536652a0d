// What the etcdlite command loads of src/etcdmain: the help text and the config file's reader only when they
// are used. Every module a start loads costs start-up time and, while the ESM loader fetches a module's
// imports at once, file descriptors (etcdlite starts under `ulimit -n 64`).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
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

/** Only some starts need these. */
const ON_DEMAND = ['help.js', 'config-file.js', 'go-yaml.js']

describe('the etcdlite command loads', () => {
  let dir: { path: string; remove(): Promise<void> }
  before(async () => {
    dir = await tempDir('etcdlite-modules-')
    await writeFile(join(dir.path, 'hooks.mjs'), HOOKS)
    await writeFile(join(dir.path, 'register.mjs'), REGISTER)
  })
  after(() => dir.remove())

  /** The src/etcdmain modules `etcdlite <args>` loads (file names), whatever its exit. */
  async function etcdmainModules(name: string, args: readonly string[]): Promise<string[]> {
    const log = join(dir.path, `${name}.log`)
    await writeFile(log, '')
    await promisify(execFile)(process.execPath, ['--import', join(dir.path, 'register.mjs'), ETCDLITE_BIN, ...args], { env: { ...process.env, LOAD_LOG: log } })
      .catch((err: unknown) => err)
    const urls = (await readFile(log, 'utf8')).split('\n')
    return urls.filter((u) => u.includes('/src/etcdmain/')).map((u) => u.slice(u.lastIndexOf('/') + 1))
  }

  it('for --version (what a start loads before it serves): neither the help nor the config file reader', async () => {
    const loaded = await etcdmainModules('version', ['--version'])
    assert.ok(loaded.includes('start-etcd.js'), 'the probe sees the command start')
    assert.deepEqual(loaded.filter((m) => ON_DEMAND.includes(m)), [])
  })

  it('for --config-file: the config file reader', async () => {
    const file = join(dir.path, 'etcd.conf.yml')
    await writeFile(file, 'name: [\n')
    const loaded = await etcdmainModules('config-file', ['--config-file', file])
    assert.deepEqual(loaded.filter((m) => ON_DEMAND.includes(m)), ['config-file.js', 'go-yaml.js'])
  })

  it('for --help: the help text', async () => {
    const loaded = await etcdmainModules('help', ['--help'])
    assert.deepEqual(loaded.filter((m) => ON_DEMAND.includes(m)), ['help.js'])
  })
})
