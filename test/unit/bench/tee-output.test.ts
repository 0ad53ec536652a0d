import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { teeOutput } from '../../../bench/lib/servers.js'
import { until } from '../../helpers/until.js'

describe("bench: --etcdlite-output appends each server's stdout and stderr to a file", () => {
  it('appends both streams of every process, after what the file held', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tee-output-'))
    try {
      const file = join(dir, 'etcdlite.log')
      writeFileSync(file, 'before\n')
      for (const n of [1, 2]) {
        const proc = spawn(process.execPath, ['-e', `process.stdout.write('out ${n}\\n'); process.stderr.write('err ${n}\\n')`], { stdio: ['ignore', 'pipe', 'pipe'] })
        teeOutput(proc, { nodeArgs: [], args: [], output: file })
        // The caller still reads stdout (for the ready line), as startEtcdlite does.
        let seen = ''
        proc.stdout.on('data', (d: Buffer) => (seen += d.toString()))
        await once(proc, 'close')
        assert.equal(seen, `out ${n}\n`)
        await until(() => readFileSync(file, 'utf8').includes(`err ${n}`) && readFileSync(file, 'utf8').includes(`out ${n}`), `process ${n}'s output`)
      }
      const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '')
      assert.equal(lines[0], 'before')
      assert.deepEqual([...lines].sort(), ['before', 'err 1', 'err 2', 'out 1', 'out 2'])
      assert.ok(lines.indexOf('out 2') > lines.indexOf('out 1') && lines.indexOf('err 2') > lines.indexOf('err 1'), 'in order')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('does nothing without a file', () => {
    const proc = spawn(process.execPath, ['-e', ''], { stdio: ['ignore', 'pipe', 'pipe'] })
    teeOutput(proc, { nodeArgs: [], args: [] })
    assert.equal(proc.stdout.listenerCount('data'), 0)
    proc.stdout.resume()
    proc.stderr.resume()
  })
})
