// The zap logger in etcd's configuration (src/pkg/logger.ts) and the held logger (src/pkg/held-logger.ts):
// levels, sampling, callers, stacktraces.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createLogger, LOG_LEVELS, parseLogLevel, UnrecognizedLevelError, ZapLogger, type LogLevel } from '../../../src/pkg/logger.js'
import { HeldLogger } from '../../../src/pkg/held-logger.js'

interface Line {
  level: string
  ts: string
  caller: string
  msg: string
  [k: string]: unknown
}

/** A logger writing into an array, on a clock the test sets. */
function capture(level: LogLevel, opts: { sampling?: boolean } = {}): { lg: ZapLogger; lines: Line[]; at: { now: number } } {
  const lines: Line[] = []
  const at = { now: Date.UTC(2024, 0, 1) }
  const lg = new ZapLogger({
    level,
    sinks: [{ write: (l) => void lines.push(JSON.parse(l) as Line) }],
    now: () => at.now,
    tzOffsetMinutes: () => 0,
    ...(opts.sampling === undefined ? {} : { sampling: opts.sampling }),
  })
  return { lg, lines, at }
}

describe('ZapLogger', () => {
  it('logs at its level and above, in zap order', () => {
    for (const level of LOG_LEVELS) {
      const { lg, lines } = capture(level)
      for (const l of LOG_LEVELS) lg.log(l, `at ${l}`, {}, 'x/y.go:1')
      assert.deepEqual(lines.map((l) => l.level), LOG_LEVELS.slice(LOG_LEVELS.indexOf(level)), level)
    }
  })

  it("names the given caller, or else the code that logged (zap's short dir/file:line)", () => {
    const { lg, lines } = capture('info')
    lg.info('given', {}, 'embed/etcd.go:311')
    lg.info('derived')
    assert.equal(lines[0]?.caller, 'embed/etcd.go:311')
    assert.match(lines[1]?.caller ?? '', /^pkg\/logger\.test\.js:\d+$/)
  })

  it('adds a stacktrace from error level up, as Go prints one (function, then tab and file:line)', () => {
    const { lg, lines } = capture('info')
    lg.warn('w', {}, 'a/b.go:1')
    lg.error('e', { error: new Error('boom') }, 'a/b.go:2')
    assert.equal(lines[0]?.['stacktrace'], undefined)
    const st = lines[1]?.['stacktrace']
    assert.equal(typeof st, 'string')
    assert.match(String(st), /\n\t\S*logger\.test\.js:\d+/)
    assert.deepEqual(Object.keys(lines[1] ?? {}), ['level', 'ts', 'caller', 'msg', 'error', 'stacktrace'])
    assert.equal(lines[1]?.['error'], 'boom')
  })

  it("samples as etcd does: per second and message, the first 100, then every 100th", () => {
    const { lg, lines, at } = capture('info')
    for (let i = 0; i < 350; i++) lg.info('flood', { i })
    lg.info('other')
    // Entries 1-100, then 200 and 300.
    assert.deepEqual(lines.filter((l) => l.msg === 'flood').map((l) => l['i']), [...Array.from({ length: 100 }, (_, i) => i), 199, 299])
    assert.equal(lines.filter((l) => l.msg === 'other').length, 1)
    at.now += 1000
    lg.info('flood', { i: 'next second' })
    assert.equal(lines.at(-1)?.['i'], 'next second')
  })

  it('writes every entry with sampling off (the journal core)', () => {
    const { lg, lines } = capture('info', { sampling: false })
    for (let i = 0; i < 150; i++) lg.info('flood')
    assert.equal(lines.length, 150)
  })

  it('createLogger writes JSON lines in etcd shape to the given writer', () => {
    const out: string[] = []
    const lg = createLogger('warn', (l) => void out.push(l))
    lg.info('dropped')
    lg.warn('kept', { n: 1 })
    assert.equal(out.length, 1)
    assert.match(out[0] ?? '', /^\{"level":"warn","ts":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d{4})","caller":"[^"]+","msg":"kept","n":1\}\n$/)
  })
})

describe("zap's level names (etcd's --log-level)", () => {
  const good: ReadonlyArray<[string, LogLevel]> = [['debug', 'debug'], ['INFO', 'info'], ['', 'info'], ['Warn', 'warn'], ['error', 'error'], ['dpanic', 'dpanic'], ['PANIC', 'panic'], ['fatal', 'fatal']]
  for (const [text, want] of good) it(`${JSON.stringify(text)} is ${want}`, () => assert.equal(parseLogLevel(text), want))
  it('anything else is zap\'s "unrecognized level" error', () => {
    assert.throws(() => parseLogLevel('verbose'), (e: unknown) => e instanceof UnrecognizedLevelError && e.message === 'unrecognized level: "verbose"')
  })
})

describe('HeldLogger', () => {
  it('holds entries until released, keeping their call site, then passes everything straight on', () => {
    const { lg, lines } = capture('info')
    const held = new HeldLogger(lg)
    held.info('first', { a: 1 }, 'mvcc/kvstore.go:423')
    held.warn('second')
    lg.info('direct')
    assert.deepEqual(lines.map((l) => l.msg), ['direct'])
    held.release()
    held.info('third')
    assert.deepEqual(lines.map((l) => l.msg), ['direct', 'first', 'second', 'third'])
    assert.equal(lines[1]?.caller, 'mvcc/kvstore.go:423')
    assert.equal(lines[1]?.['a'], 1)
    assert.match(lines[2]?.caller ?? '', /^pkg\/logger\.test\.js:\d+$/)
  })
})
