// The measured window of a closed-loop load generator: requests that start inside it count; the process's
// own CPU over it, and its main thread's, show whether the load generator was the limit, and the machine's
// CPU steal over it how noisy the measurement was. The runner samples the server's CPU between the two
// markers this writes (MEASURE_START, MEASURE_END).
import { readFileSync } from 'node:fs'
import { readCpuTimes, stealPct, type CpuTimes } from './cpu-steal.js'
import { statCpuTicks, USER_HZ } from './proc-stat.js'
import { MEASURE_END, MEASURE_START } from './workloads.js'

/**
 * CPU time of this process's main thread (the one running JavaScript: every client of a load generator),
 * in ms, from /proc/self/task/<pid>/stat (or `statText`); undefined where that is missing (not Linux).
 * process.cpuUsage() also counts V8's GC and the libuv threads, so it cannot tell a saturated main thread.
 */
export function mainThreadCpuMs(statText?: string): number | undefined {
  let text = statText
  if (text === undefined) {
    try {
      text = readFileSync(`/proc/self/task/${process.pid}/stat`, 'latin1')
    } catch {
      return undefined
    }
  }
  const ticks = statCpuTicks(text)
  return ticks === undefined ? undefined : (ticks * 1000) / USER_HZ
}

/** What a closed window measured. */
export interface WindowMeasure {
  readonly elapsedSeconds: number
  /** This process's CPU over the window (all its threads), in % of one core. */
  readonly clientCpuPct: number
  /** Its main thread's, in % of one core; null where not measurable. Near 100: the load generator was the limit. */
  readonly clientMainCpuPct: number | null
  /** The machine's CPU time the hypervisor gave to other guests during the window, in %; null where not measurable. */
  readonly stealPct: number | null
}

export class MeasureWindow {
  /** performance.now() at which the window opens (after the warm-up) and closes. */
  readonly start: number
  readonly end: number
  /** When the last request that started inside the window completed. */
  private lastDone: number
  private cpuStart: NodeJS.CpuUsage | undefined
  private mainCpuStart: number | undefined
  private machineStart: CpuTimes | undefined
  private wallCpuStart = 0
  private readonly timer: NodeJS.Timeout
  private readonly mark: (marker: string) => void

  /** Opens after `warmupSeconds` and lasts `seconds`; `mark` writes a marker line where the runner reads it. */
  constructor(warmupSeconds: number, seconds: number, mark: (marker: string) => void) {
    this.start = performance.now() + warmupSeconds * 1000
    this.end = this.start + seconds * 1000
    this.lastDone = this.start
    this.mark = mark
    if (warmupSeconds === 0) this.open()
    this.timer = setTimeout(() => this.open(), Math.max(0, this.start - performance.now()))
  }

  /** Whether a request that started at `start` counts; if so, its completion at `done` extends the window's wall time. */
  record(start: number, done: number): boolean {
    if (start < this.start) return false
    if (done > this.lastDone) this.lastDone = done
    return true
  }

  /** Close the window: the measured wall time, CPU use over it, and the machine's CPU steal. */
  close(): WindowMeasure {
    clearTimeout(this.timer)
    this.open()
    const cpu = process.cpuUsage(this.cpuStart)
    const mainCpuEnd = mainThreadCpuMs()
    const steal = stealPct(this.machineStart, readCpuTimes())
    const cpuWallMs = performance.now() - this.wallCpuStart
    this.mark(MEASURE_END)
    const pct = (ms: number): number => Number((cpuWallMs > 0 ? (ms / cpuWallMs) * 100 : 0).toFixed(1))
    return {
      elapsedSeconds: (this.lastDone - this.start) / 1000,
      clientCpuPct: pct((cpu.user + cpu.system) / 1000),
      clientMainCpuPct: this.mainCpuStart === undefined || mainCpuEnd === undefined ? null : pct(mainCpuEnd - this.mainCpuStart),
      stealPct: steal,
    }
  }

  private open(): void {
    if (this.cpuStart !== undefined) return
    this.cpuStart = process.cpuUsage()
    this.mainCpuStart = mainThreadCpuMs()
    this.machineStart = readCpuTimes()
    this.wallCpuStart = performance.now()
    this.mark(MEASURE_START)
  }
}
