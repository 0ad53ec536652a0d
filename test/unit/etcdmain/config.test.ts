import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseArgs, parseDuration, UsageError } from '../../../src/etcdmain/config.js'

describe('parseDuration reads Go time.Duration strings', () => {
  const cases: ReadonlyArray<readonly [string, number | undefined]> = [
    ['10m0s', 600_000], ['1.5s', 1500], ['100ms', 100], ['0', 0], ['1h2m3s', 3_723_000], ['250us', 0.25], ['-1s', -1000],
    ['.5s', 500], ['5', undefined], ['abc', undefined], ['', undefined], ['1x', undefined], ['s', undefined],
  ]
  for (const [input, want] of cases) {
    it(`"${input}" -> ${want === undefined ? 'error' : want}`, () => {
      if (want === undefined) assert.throws(() => parseDuration(input, 'f'), UsageError)
      else assert.equal(parseDuration(input, 'f'), want)
    })
  }
})

describe('--experimental-watch-progress-notify-interval', () => {
  const cases: ReadonlyArray<readonly [readonly string[], number]> = [
    [[], 600_000],
    [['--experimental-watch-progress-notify-interval', '2s'], 2000],
    // etcd raises positive values below 100ms to 100ms, and keeps the default for zero or negative ones.
    [['--experimental-watch-progress-notify-interval=10ms'], 100],
    [['--experimental-watch-progress-notify-interval=0'], 600_000],
    [['--experimental-watch-progress-notify-interval=-5s'], 600_000],
  ]
  for (const [args, want] of cases) {
    it(`${args.join(' ') || '(default)'} -> ${want} ms`, () => {
      const r = parseArgs(args)
      assert.equal(r.kind, 'run')
      if (r.kind === 'run') assert.equal(r.config.watchProgressNotifyIntervalMs, want)
    })
  }
})
