// The measured window of a closed-loop load generator: requests that start inside it count; the process's
// own CPU over it shows whether the load generator was the limit. The runner samples the server's CPU
// between the two markers this writes (MEASURE_START, MEASURE_END).
import { MEASURE_END, MEASURE_START } from './workloads.js'

export class MeasureWindow {
  /** performance.now() at which the window opens (after the warm-up) and closes. */
  readonly start: number
  readonly end: number
  /** When the last request that started inside the window completed. */
  private lastDone: number
  private cpuStart: NodeJS.CpuUsage | undefined
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

  /** Close the window: the measured wall time, and this process's CPU over it in % of one core. */
  close(): { elapsedSeconds: number; clientCpuPct: number } {
    clearTimeout(this.timer)
    this.open()
    const cpu = process.cpuUsage(this.cpuStart)
    const cpuWallMs = performance.now() - this.wallCpuStart
    this.mark(MEASURE_END)
    return {
      elapsedSeconds: (this.lastDone - this.start) / 1000,
      clientCpuPct: Number((cpuWallMs > 0 ? ((cpu.user + cpu.system) / 1000 / cpuWallMs) * 100 : 0).toFixed(1)),
    }
  }

  private open(): void {
    if (this.cpuStart !== undefined) return
    this.cpuStart = process.cpuUsage()
    this.wallCpuStart = performance.now()
    this.mark(MEASURE_START)
  }
}
