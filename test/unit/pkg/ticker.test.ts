// Ticker (src/pkg/ticker.ts) on a manual clock: runs after its period (or the delay a run asks for), never
// overlaps itself, runs again right after a poke that came while it was running, reports errors and keeps
// going, and stop() waits for the run in flight.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Clock, ClockTimer } from '../../../src/pkg/clock.js'
import { Ticker, type TickFn } from '../../../src/pkg/ticker.js'

/** A clock the test advances by hand. Timers due at the same time fire in the order they were set. */
class ManualClock implements Clock {
  private t = 0
  private seq = 0
  private readonly timers = new Map<number, { at: number; fn: () => void }>()

  now(): number {
    return this.t
  }

  after(ms: number, fn: () => void): ClockTimer {
    const id = this.seq++
    this.timers.set(id, { at: this.t + ms, fn })
    return { cancel: () => this.timers.delete(id) }
  }

  /** Timers not yet fired or canceled. */
  get pending(): number {
    return this.timers.size
  }

  /** Move time forward, firing every timer that falls due (and letting the runs they start settle). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms
    for (;;) {
      await flush()
      let next: [number, { at: number; fn: () => void }] | undefined
      for (const e of this.timers) if (e[1].at <= end && (next === undefined || e[1].at < next[1].at)) next = e
      if (next === undefined) break
      this.timers.delete(next[0])
      this.t = Math.max(this.t, next[1].at)
      next[1].fn()
    }
    this.t = end
    await flush()
  }
}

/** Let pending promise callbacks run (a macrotask turn covers every microtask chain queued so far). */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** A run the test finishes by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

function setup(fn: TickFn, periodMs = 100): { clock: ManualClock; ticker: Ticker; errors: unknown[] } {
  const clock = new ManualClock()
  const errors: unknown[] = []
  const ticker = new Ticker(fn, periodMs, clock, (e) => errors.push(e))
  return { clock, ticker, errors }
}

describe('Ticker', () => {
  it('runs first after one period, then every period; start() twice schedules once', async () => {
    const at: number[] = []
    const { clock, ticker } = setup(() => {
      at.push(clock.now())
      return undefined
    })
    ticker.start()
    ticker.start()
    assert.equal(clock.pending, 1)
    await clock.advance(99)
    assert.deepEqual(at, [])
    await clock.advance(250)
    assert.deepEqual(at, [100, 200, 300])
    await ticker.stop()
    assert.equal(clock.pending, 0)
  })

  it('waits the delay a run returns instead of the period', async () => {
    const delays = [10, 0, undefined, 5]
    const at: number[] = []
    const { clock, ticker } = setup(() => {
      at.push(clock.now())
      return delays.shift()
    })
    ticker.start()
    await clock.advance(100 + 10 + 0 + 100 + 5)
    assert.deepEqual(at, [100, 110, 110, 210, 215])
    await ticker.stop()
  })

  it('never overlaps itself, whatever time passes while a run is in flight', async () => {
    let running = 0
    let most = 0
    let runs = 0
    const gates: Array<() => void> = []
    const { clock, ticker } = setup(async () => {
      runs++
      running++
      most = Math.max(most, running)
      const g = gate()
      gates.push(g.open)
      await g.promise
      running--
      return undefined
    }, 10)
    ticker.start()
    await clock.advance(10)
    assert.equal(runs, 1)
    await clock.advance(1000)
    assert.equal(runs, 1, 'no second run while the first is in flight')
    assert.equal(clock.pending, 0, 'nothing scheduled while running')
    gates.shift()?.()
    await clock.advance(10)
    assert.equal(runs, 2, 'the next run one period after the first finished')
    gates.shift()?.()
    await flush()
    await ticker.stop()
    assert.equal(most, 1)
  })

  it('poke() runs at once when idle, and once more right after the run in flight when busy', async () => {
    let runs = 0
    let g = gate()
    const { clock, ticker } = setup(async () => {
      runs++
      await g.promise
      return undefined
    }, 1000)
    ticker.start()
    ticker.poke()
    await clock.advance(0)
    assert.equal(runs, 1, 'a poke runs without waiting the period')
    ticker.poke()
    ticker.poke()
    await clock.advance(0)
    assert.equal(runs, 1, 'still one run in flight')
    const first = g
    g = gate()
    first.open()
    await clock.advance(0)
    assert.equal(runs, 2, 'the pokes made exactly one more run, right away')
    g.open()
    await clock.advance(0)
    assert.equal(runs, 2)
    await clock.advance(1000)
    assert.equal(runs, 3, 'then back to the period')
    await ticker.stop()
  })

  it('stop() waits for the run in flight, and nothing runs after it', async () => {
    let runs = 0
    const g = gate()
    let finished = false
    const { clock, ticker } = setup(async () => {
      runs++
      await g.promise
      finished = true
      return 0
    }, 10)
    ticker.start()
    await clock.advance(10)
    const stopped = ticker.stop()
    let done = false
    void stopped.then(() => (done = true))
    await flush()
    assert.equal(done, false, 'stop() is still waiting')
    g.open()
    await stopped
    assert.equal(finished, true)
    ticker.poke()
    ticker.start()
    await clock.advance(1000)
    assert.equal(runs, 1)
    assert.equal(clock.pending, 0, 'no timer left behind')
  })

  it('stop() before any run cancels the first one', async () => {
    let runs = 0
    const { clock, ticker } = setup(() => {
      runs++
      return undefined
    })
    ticker.start()
    await ticker.stop()
    await clock.advance(1000)
    assert.deepEqual([runs, clock.pending], [0, 0])
  })

  const failures: Array<{ name: string; fn: (n: number) => number | undefined | Promise<number | undefined> }> = [
    {
      name: 'a run that throws',
      fn: (n) => {
        if (n % 2 === 0) throw new Error(`boom ${n}`)
        return undefined
      },
    },
    {
      name: 'a run that rejects',
      fn: async (n) => {
        await flush()
        if (n % 2 === 0) throw new Error(`boom ${n}`)
        return 5 // a run that succeeds asks for 5 ms
      },
    },
  ]
  for (const c of failures) {
    it(`${c.name} is reported and the loop keeps its period`, async () => {
      let n = 0
      const at: number[] = []
      const { clock, ticker, errors } = setup(() => {
        at.push(clock.now())
        return c.fn(n++)
      }, 100)
      ticker.start()
      await clock.advance(300)
      assert.deepEqual(errors.map((e) => (e as Error).message), at.filter((_, i) => i % 2 === 0).map((_, i) => `boom ${i * 2}`))
      assert.ok(at.length >= 3, `kept running: ${at.join(',')}`)
      assert.equal(at[1], 200, 'after a failure the next run waits one period')
      await ticker.stop()
    })
  }
})
