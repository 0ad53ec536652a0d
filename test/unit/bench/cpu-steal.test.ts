import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readCpuTimes, stealPct } from '../../../bench/lib/cpu-steal.js'

describe('cpu-steal', () => {
  it('reads the cpu line of /proc/stat: steal is the eighth field, the total sums the first eight', () => {
    const text = 'cpu  100 1 20 800 5 0 4 70 9 9\ncpu0 50 0 10 400 2 0 2 35 0 0\nintr 1\n'
    assert.deepEqual(readCpuTimes(text), { steal: 70, total: 1000 })
  })

  it('is undefined for text without a whole cpu line', () => {
    for (const text of ['', 'cpu0 1 2 3 4 5 6 7 8\n', 'cpu  1 2 3\n', 'cpu  a b c d e f g h\n']) assert.equal(readCpuTimes(text), undefined, text)
  })

  it('gives steal in % of the CPU time between two readings', () => {
    assert.equal(stealPct({ steal: 70, total: 1000 }, { steal: 95, total: 1200 }), 12.5)
    assert.equal(stealPct({ steal: 70, total: 1000 }, { steal: 70, total: 1000 }), null, 'no time passed')
    assert.equal(stealPct(undefined, { steal: 1, total: 2 }), null)
  })

  it('reads this machine when it is Linux', () => {
    const t = readCpuTimes()
    if (process.platform !== 'linux') assert.equal(t, undefined)
    else assert.ok(t !== undefined && t.total > 0 && t.steal >= 0 && t.steal <= t.total)
  })
})
