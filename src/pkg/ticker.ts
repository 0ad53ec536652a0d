// A periodic task with an owner, on an injected Clock: never overlaps itself, can be poked to run early, and stop()
// waits for the run in flight. Replaces bare setInterval and etcd's `for { select { case <-time.After } }`.
import type { Clock, ClockTimer } from './clock.js'

/**
 * What one run returns: the delay in ms until the next run when work remains (that timer keeps the
 * process alive), or undefined for the ticker's period (an idle check, which does not).
 * A run that throws is reported (onError) and the ticker keeps its period.
 */
export type TickFn = () => number | undefined | Promise<number | undefined>

export class Ticker {
  private readonly fn: TickFn
  private readonly periodMs: number
  private readonly clock: Clock
  private readonly onError: (err: unknown) => void
  private timer: ClockTimer | undefined
  private running: Promise<void> | undefined
  private pokedWhileRunning = false
  private stopped = false

  /**
   * @param periodMs delay between runs when a run asks for none.
   * @param onError receives what a run throws; the loop goes on.
   */
  constructor(fn: TickFn, periodMs: number, clock: Clock, onError: (err: unknown) => void) {
    this.fn = fn
    this.periodMs = periodMs
    this.clock = clock
    this.onError = onError
  }

  /** Schedule the first run after one period. Idempotent. */
  start(): void {
    if (!this.stopped && this.timer === undefined && this.running === undefined) this.schedule(this.periodMs)
  }

  /** Run as soon as possible (on a later turn of the event loop; right after the run in flight, if any). */
  poke(): void {
    if (this.stopped) return
    if (this.running !== undefined) {
      this.pokedWhileRunning = true
      return
    }
    this.schedule(0, true)
  }

  /** Stop: no more runs; resolves once the run in flight (if any) has finished. */
  async stop(): Promise<void> {
    this.stopped = true
    this.timer?.cancel()
    this.timer = undefined
    await this.running
  }

  private schedule(ms: number, keepAlive = false): void {
    this.timer?.cancel()
    this.timer = this.clock.after(ms, () => {
      this.timer = undefined
      this.running = this.run()
      return this.running
    }, keepAlive)
  }

  private async run(): Promise<void> {
    let next: number | undefined
    try {
      next = await this.fn()
    } catch (err) {
      this.onError(err)
    }
    this.running = undefined
    if (this.stopped) return
    const poked = this.pokedWhileRunning
    this.pokedWhileRunning = false
    if (poked) this.schedule(0, true)
    else if (next === undefined) this.schedule(this.periodMs)
    else this.schedule(next, true)
  }
}
