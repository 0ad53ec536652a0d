// --enable-pprof: /debug/pprof/ on the client URL answers `go tool pprof` (when Go is installed) with this
// process's CPU and heap profiles, and answers Go runtime profiles a Node process lacks as Go answers an
// unknown profile. Without the flag the paths are not served.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { gunzipSync } from 'node:zlib'
import { startEtcdliteProcess, type ServerProcess } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'

const haveGo = (): boolean => spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0

describe('--enable-pprof', () => {
  let on: ServerProcess
  let off: ServerProcess
  before(async () => {
    on = await startEtcdliteProcess({ memory: true, args: ['--enable-pprof'] })
    off = await startEtcdliteProcess({ memory: true })
  })
  after(async () => {
    await on.dispose()
    await off.dispose()
  })

  it('serves the index, and redirects the bare prefix to it', async () => {
    const index = await fetch(`http://${on.endpoint}/debug/pprof/`)
    assert.equal(index.status, 200)
    assert.match(await index.text(), /<a href='profile\?debug=1'>profile<\/a>/)
    const bare = await fetch(`http://${on.endpoint}/debug/pprof`, { redirect: 'manual' })
    assert.equal(bare.status, 301)
    assert.equal(bare.headers.get('location'), '/debug/pprof/')
  })

  it('gives a CPU profile in pprof format, and the command line', async () => {
    const res = await fetch(`http://${on.endpoint}/debug/pprof/profile?seconds=1`)
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="profile"')
    // profile.proto, gzipped: field 1 (sample_type) comes first.
    assert.equal(gunzipSync(Buffer.from(await res.arrayBuffer()))[0], 0x0a)
    const cmdline = await (await fetch(`http://${on.endpoint}/debug/pprof/cmdline`)).text()
    assert.ok(cmdline.split('\x00').includes('--enable-pprof'))
  })

  it('answers a Go runtime profile as an unknown one', async () => {
    const res = await fetch(`http://${on.endpoint}/debug/pprof/goroutine?debug=2`)
    assert.equal(res.status, 404)
    assert.equal(res.headers.get('x-go-pprof'), '1')
    assert.equal(await res.text(), 'Unknown profile\n')
  })

  it('is read by go tool pprof', async (t) => {
    if (!haveGo()) {
      t.skip('go is not installed')
      return
    }
    const dir = await tempDir('etcdlite-pprof-')
    try {
      for (const profile of ['profile?seconds=1', 'heap']) {
        const r = spawnSync('go', ['tool', 'pprof', '-top', `http://${on.endpoint}/debug/pprof/${profile}`], {
          encoding: 'utf8', timeout: 60_000, env: { ...process.env, PPROF_TMPDIR: dir.path, HOME: dir.path },
        })
        assert.equal(r.status, 0, `${profile}: ${r.stderr}`)
        assert.match(r.stdout, /flat%/)
      }
    } finally {
      await dir.remove()
    }
  })

  it('is not served without the flag', async () => {
    const res = await fetch(`http://${off.endpoint}/debug/pprof/`)
    assert.equal(res.status, 404)
    assert.equal(await res.text(), '404 page not found\n')
  })
})
