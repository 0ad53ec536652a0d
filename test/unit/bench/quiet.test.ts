import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { waitForQuiet } from '../../../bench/lib/quiet.js'

describe('bench waitForQuiet', () => {
  it('does not call a machine quiet while a process spins a core, and gives up at its timeout', async () => {
    const spinner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
    try {
      await new Promise((r) => setTimeout(r, 200))
      // Three 250 ms intervals in a row: on a host that steals much of the CPU, the spinner can get under
      // half a core for a shorter stretch (CI once saw two 100 ms intervals so).
      const q = await waitForQuiet({ maxCores: 0.5, intervalMs: 250, intervals: 3, timeoutMs: 1500 })
      assert.equal(q.quiet, false)
      assert.ok(q.waitedMs >= 1500 && q.waitedMs < 3000, `waited ${q.waitedMs} ms`)
    } finally {
      spinner.kill('SIGKILL')
      await once(spinner, 'exit')
    }
  })

  it('ends as soon as the machine is under the threshold for the asked intervals', async () => {
    // Every machine is under the number of its cores: the first intervals count.
    const q = await waitForQuiet({ maxCores: 1e6, intervalMs: 50, intervals: 3, timeoutMs: 10_000 })
    assert.equal(q.quiet, true)
    assert.ok(q.waitedMs >= 150 && q.waitedMs < 2000, `waited ${q.waitedMs} ms`)
  })
})
