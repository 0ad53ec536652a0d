// ManualClock (src/pkg/clock.ts): time moves only on advance(); timers fire in due order with now() at
// their due time; timers set by timers fire within the same advance; the work a timer returns is awaited.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ManualClock } from '../../../src/pkg/clock.js'
import { Ticker } from '../../../src/pkg/ticker.js'

describe('ManualClock', () => {
  const cases: Array<{ name: string; timers: Array<{ at: number; label: string }>; advance: number[]; want: string[] }> = [
    { name: 'nothing fires before its time', timers: [{ at: 100, label: 'a' }], advance: [99], want: [] },
    { name: 'a timer fires exactly at its time', timers: [{ at: 100, label: 'a' }], advance: [100], want: ['a@100'] },
    { name: 'timers fire in due order, ties in creation order', timers: [{ at: 50, label: 'b' }, { at: 10, label: 'a' }, { at: 50, label: 'c' }], advance: [60], want: ['a@10', 'b@50', 'c@50'] },
    { name: 'time adds up over several advances', timers: [{ at: 30, label: 'a' }], advance: [10, 10, 10], want: ['a@30'] },
    { name: 'a zero delay fires on the next advance, even advance(0)', timers: [{ at: 0, label: 'a' }], advance: [0], want: ['a@0'] },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const clock = new ManualClock()
      const fired: string[] = []
      for (const t of c.timers) clock.after(t.at, () => void fired.push(`${t.label}@${clock.now()}`))
      for (const ms of c.advance) await clock.advance(ms)
      assert.deepEqual(fired, c.want)
      assert.equal(clock.now(), c.advance.reduce((a, b) => a + b, 0))
    })
  }

  it('a canceled timer never fires', async () => {
    const clock = new ManualClock()
    let fired = false
    clock.after(10, () => void (fired = true)).cancel()
    await clock.advance(20)
    assert.equal(fired, false)
    assert.equal(clock.pending(), 0)
  })

  it('timers set by a timer fire in the same advance when due', async () => {
    const clock = new ManualClock()
    const fired: number[] = []
    const tick = (): void => {
      fired.push(clock.now())
      clock.after(10, tick)
    }
    clock.after(10, tick)
    await clock.advance(35)
    assert.deepEqual(fired, [10, 20, 30])
  })

  it('advance() waits for the work a timer returns (a Ticker run)', async () => {
    const clock = new ManualClock()
    let finished = 0
    const t = new Ticker(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      finished++
      return undefined
    }, 100, clock, (e) => assert.fail(String(e)))
    t.start()
    await clock.advance(250)
    assert.equal(finished, 2)
    await t.stop()
  })

  it('refuses to go backwards', () => {
    assert.throws(() => new ManualClock().advance(-1), RangeError)
  })
})
