import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mainThreadCpuMs, MeasureWindow } from '../../../bench/lib/measure-window.js'
import { MEASURE_END, MEASURE_START } from '../../../bench/lib/workloads.js'

/** Spin until this process has used `ms` more CPU (a loop that allocates nothing runs on the main thread alone). */
function burnCpu(ms: number): void {
  const from = process.cpuUsage()
  let x = 0
  for (;;) {
    for (let i = 0; i < 100_000; i++) x = (x * 31 + i) | 0
    const u = process.cpuUsage(from)
    if ((u.user + u.system) / 1000 >= ms) break
  }
  assert.ok(Number.isFinite(x))
}

describe('measure-window', () => {
  it("reads a thread's utime + stime (fields 14 and 15, in 10 ms ticks) after its parenthesised name", () => {
    // The name may hold spaces and parentheses: fields are counted from after the last ')'.
    const line = '4242 (node (main) x) R 1 4242 4242 0 -1 4194304 100 0 0 0 250 37 0 0 20 0 11 0 5000 1000000 2000\n'
    assert.equal(mainThreadCpuMs(line), 2870)
    assert.equal(mainThreadCpuMs('4242 (node) R 1\n'), undefined, 'a line cut short')
  })

  it("measures the main thread's CPU, the process's and the machine's steal over the window", () => {
    const marks: string[] = []
    const w = new MeasureWindow(0, 60, (m) => marks.push(m))
    burnCpu(200)
    const m = w.close()
    assert.deepEqual(marks, [MEASURE_START, MEASURE_END])
    assert.ok(m.clientCpuPct > 0)
    if (process.platform !== 'linux') {
      assert.equal(m.clientMainCpuPct, null)
      assert.equal(m.stealPct, null)
      return
    }
    // The burn is main-thread CPU: 100 ms of it shows, less 10 ms ticks of rounding.
    const before = mainThreadCpuMs()
    assert.ok(before !== undefined)
    burnCpu(100)
    const after = mainThreadCpuMs()
    assert.ok(after !== undefined && after - before >= 80, `main thread: ${String(after)} - ${before} ms for 100 ms of CPU`)
    // A share of the whole process's CPU (which is counted in µs, the thread's in ticks: allow one or two).
    assert.ok(m.clientMainCpuPct !== null && m.clientMainCpuPct > 0 && m.clientMainCpuPct <= m.clientCpuPct + 10, JSON.stringify(m))
    assert.ok(m.stealPct === null || (m.stealPct >= 0 && m.stealPct <= 100), JSON.stringify(m))
  })
})
