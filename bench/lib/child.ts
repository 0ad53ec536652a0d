// Load-generator child processes for bench/run.ts: spawn a node script, talk to it over stdin (commands)
// and stderr (marker lines starting with '@'), and read its one JSON result from stdout. Every live child
// is registered, so the runner's exit paths can kill them all.
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'

const live = new Set<ChildProcess>()

/** SIGKILL every load process still running (for exit paths). */
export function killLoadProcessesSync(): void {
  for (const c of live) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
}

export class LoadProcess {
  private readonly child: ChildProcess
  private stdout = ''
  private stderrTail = ''
  private readonly markers: string[] = []
  private readonly waiters: { marker: string; resolve: (line: string) => void; reject: (e: Error) => void }[] = []
  private readonly exited: Promise<number | null>
  private exitCode: number | null | undefined

  /**
   * @param label names the process in errors.
   * @param onMarker sees every marker line as it arrives (before waitFor() does).
   */
  constructor(readonly label: string, script: string, args: readonly string[], private readonly onMarker?: (line: string) => void) {
    this.child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
    live.add(this.child)
    this.child.stdout?.on('data', (d: Buffer) => {
      this.stdout += d.toString()
    })
    if (this.child.stderr === null) throw new Error('stderr is not piped')
    createInterface({ input: this.child.stderr }).on('line', (line) => {
      if (line.startsWith('@')) {
        this.onMarker?.(line)
        const i = this.waiters.findIndex((w) => line.startsWith(w.marker))
        const w = this.waiters[i]
        if (w !== undefined) {
          this.waiters.splice(i, 1)
          w.resolve(line)
        } else this.markers.push(line)
      } else this.stderrTail = (this.stderrTail + line + '\n').slice(-4000)
    })
    // A child that dies takes its stdin with it; a late write must not crash the runner.
    this.child.stdin?.on('error', () => undefined)
    this.exited = new Promise((resolve, reject) => {
      this.child.once('error', reject)
      this.child.once('close', (code) => {
        live.delete(this.child)
        this.exitCode = code
        for (const w of this.waiters.splice(0)) w.reject(this.failure(`exited with ${String(code)} while the runner waited for ${w.marker}`))
        resolve(code)
      })
    })
    // Rejections surface through waitFor()/result(); keep this one from being unhandled meanwhile.
    this.exited.catch(() => undefined)
  }

  get pid(): number | undefined {
    return this.child.pid
  }

  private failure(what: string): Error {
    return new Error(`${this.label}: ${what}\n${this.stderrTail}`)
  }

  /** Resolve with the first marker line starting with `marker` (seen now or later); reject if the process exits first. */
  waitFor(marker: string): Promise<string> {
    const i = this.markers.findIndex((m) => m.startsWith(marker))
    if (i >= 0) return Promise.resolve(this.markers.splice(i, 1)[0] as string)
    if (this.exitCode !== undefined) return Promise.reject(this.failure(`exited with ${String(this.exitCode)} before ${marker}`))
    return new Promise((resolve, reject) => this.waiters.push({ marker, resolve, reject }))
  }

  /** Write one command line to the process's stdin. */
  send(line: string): void {
    this.child.stdin?.write(`${line}\n`)
  }

  /** Wait for the process to exit 0 and parse its stdout as JSON. */
  async result<T>(): Promise<T> {
    const code = await this.exited
    if (code !== 0) throw this.failure(`exited with ${String(code)}`)
    return JSON.parse(this.stdout.trim()) as T
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL')
  }
}
