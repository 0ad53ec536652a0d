// AutoCompactor (src/etcdserver/auto-compactor.ts) on a ManualClock over a real EtcdServer: etcd's retention
// syntax and its error texts, periodic mode (samples every tenth of the period, first compaction after one
// period at the oldest sample, then every min(period, 1 h)), revision mode (every 5 minutes, rev - N, skipped
// when unchanged), COMPACTED ignored, other failures reported and retried, stop() ends the loop.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { EtcdServer } from '../../../src/etcdserver/etcd-server.js'
import {
  AutoCompactor, InvalidRetentionError, parseRetention, type AutoCompactionMode, type Compactable, type CompactionRetention,
} from '../../../src/etcdserver/auto-compactor.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { memoryBackend } from '../../helpers/memory-backend.js'

const MIN = 60_000
const HOUR = 60 * MIN

describe('parseRetention: etcd --auto-compaction-retention syntax', () => {
  const ok: Array<{ mode: AutoCompactionMode; in: string; want: CompactionRetention | undefined }> = [
    { mode: 'periodic', in: '0', want: undefined },
    { mode: 'periodic', in: '', want: undefined },
    { mode: 'periodic', in: '0s', want: undefined },
    { mode: 'periodic', in: '-0', want: undefined },
    { mode: 'revision', in: '0', want: undefined },
    { mode: 'periodic', in: '1', want: { mode: 'periodic', periodMs: HOUR } },
    { mode: 'periodic', in: '+2', want: { mode: 'periodic', periodMs: 2 * HOUR } },
    { mode: 'periodic', in: '30m', want: { mode: 'periodic', periodMs: 30 * MIN } },
    { mode: 'periodic', in: '1h30m', want: { mode: 'periodic', periodMs: 90 * MIN } },
    { mode: 'periodic', in: '1.5h', want: { mode: 'periodic', periodMs: 90 * MIN } },
    { mode: 'periodic', in: '500ms', want: { mode: 'periodic', periodMs: 500 } },
    { mode: 'periodic', in: '.5s', want: { mode: 'periodic', periodMs: 500 } },
    { mode: 'periodic', in: '250us', want: { mode: 'periodic', periodMs: 0.25 } },
    { mode: 'revision', in: '1000', want: { mode: 'revision', revisions: 1000 } },
  ]
  for (const c of ok) {
    it(`${c.mode} ${JSON.stringify(c.in)} -> ${JSON.stringify(c.want)}`, () => assert.deepEqual(parseRetention(c.mode, c.in), c.want))
  }

  // The first four texts are the real etcd 3.4.23's (etcd --auto-compaction-retention X prints them).
  const bad: Array<{ mode: AutoCompactionMode; in: string; msg: string }> = [
    { mode: 'periodic', in: 'abc', msg: 'error parsing CompactionRetention: time: invalid duration "abc"' },
    { mode: 'periodic', in: '1.5', msg: 'error parsing CompactionRetention: time: missing unit in duration "1.5"' },
    { mode: 'periodic', in: '1d', msg: 'error parsing CompactionRetention: time: unknown unit "d" in duration "1d"' },
    { mode: 'periodic', in: '-1', msg: 'error parsing CompactionRetention: time: missing unit in duration "-1"' },
    { mode: 'periodic', in: '.s', msg: 'error parsing CompactionRetention: time: invalid duration ".s"' },
    { mode: 'periodic', in: '-5m', msg: 'error parsing CompactionRetention: negative retention "-5m"' },
    { mode: 'revision', in: '5m', msg: 'error parsing CompactionRetention: revision mode takes a revision count, not a duration: "5m"' },
    { mode: 'revision', in: '-3', msg: 'error parsing CompactionRetention: time: missing unit in duration "-3"' },
  ]
  for (const c of bad) {
    it(`${c.mode} ${JSON.stringify(c.in)} is refused`, () => {
      assert.throws(() => parseRetention(c.mode, c.in), (e: unknown) => e instanceof InvalidRetentionError && e.message === c.msg)
    })
  }
})

interface Rig {
  readonly server: EtcdServer
  readonly clock: ManualClock
  readonly errors: unknown[]
  /** Revisions the compactor asked for, in order. */
  readonly calls: number[]
  readonly compactor: AutoCompactor
  readonly put: (n?: number) => Promise<void>
}

/** A server on memory-level and an AutoCompactor over it; `failWith` makes compact() throw instead. */
async function withRig(retention: string, mode: AutoCompactionMode, fn: (r: Rig) => Promise<void>, failWith?: () => Error | undefined): Promise<void> {
  const clock = new ManualClock()
  const be = await memoryBackend()
  const server = await EtcdServer.open(be, { clock })
  const errors: unknown[] = []
  const calls: number[] = []
  const ctx: Compactable = {
    rev: () => server.kv.rev(),
    compact: async (rev) => {
      calls.push(rev)
      const err = failWith?.()
      if (err !== undefined) throw err
      return server.kvService.compact({ revision: rev })
    },
  }
  const parsed = parseRetention(mode, retention)
  assert.ok(parsed !== undefined)
  const compactor = new AutoCompactor(ctx, { retention: parsed, clock, onError: (e) => errors.push(e) })
  let i = 0
  const put = async (n = 1): Promise<void> => {
    for (let k = 0; k < n; k++) await server.kvService.put({ key: Buffer.from(`k${i++}`), value: Buffer.from('v') })
  }
  try {
    await fn({ server, clock, errors, calls, compactor, put })
  } finally {
    await compactor.stop()
    await server.close()
  }
}

describe('AutoCompactor: revision mode', () => {
  it('every 5 minutes compacts at rev - retention, skipping rev <= 0 and an unchanged target', async () => {
    await withRig('3', 'revision', async ({ server, clock, errors, calls, compactor, put }) => {
      await put(2) // rev 3: 3 - 3 = 0, nothing to do
      compactor.start()
      await clock.advance(5 * MIN)
      assert.deepEqual(calls, [])
      await put(5) // rev 8
      await clock.advance(5 * MIN - 1)
      assert.equal(server.kv.compactRev(), -1, 'not before 5 minutes')
      await clock.advance(1)
      assert.equal(server.kv.compactRev(), 5)
      await clock.advance(5 * MIN) // no writes: same target, skipped
      assert.deepEqual(calls, [5])
      await put(2) // rev 10
      await clock.advance(5 * MIN)
      assert.equal(server.kv.compactRev(), 7)
      assert.deepEqual(calls, [5, 7])
      assert.deepEqual(errors, [])
    })
  })

  it('a target already compacted (COMPACTED) is not an error and is not retried', async () => {
    await withRig('2', 'revision', async ({ server, clock, errors, calls, compactor, put }) => {
      await put(9) // rev 10
      await server.kvService.compact({ revision: 9 })
      compactor.start()
      await clock.advance(5 * MIN) // target 8 <= 9: COMPACTED
      await clock.advance(5 * MIN)
      assert.deepEqual(calls, [8])
      assert.equal(server.kv.compactRev(), 9)
      assert.deepEqual(errors, [])
    })
  })
})

describe('AutoCompactor: periodic mode', () => {
  it('retention 10m: samples every minute, compacts at the oldest sample after 10m, then every 10m', async () => {
    await withRig('10m', 'periodic', async ({ server, clock, errors, compactor, put }) => {
      await put(2) // rev 3 at the start
      compactor.start()
      // One write in each minute: the sample taken at minute k is 3 + k.
      const steps: Array<{ toMin: number; want: number }> = [
        { toMin: 9, want: -1 },
        { toMin: 10, want: 3 }, // the sample of minute 0
        { toMin: 19, want: 3 },
        { toMin: 20, want: 12 }, // the oldest of the 11 samples kept: minute 9
        { toMin: 30, want: 22 },
      ]
      let minute = 0
      for (const s of steps) {
        while (minute < s.toMin) {
          await put()
          await clock.advance(MIN)
          minute++
        }
        assert.equal(server.kv.compactRev(), s.want, `at minute ${minute}`)
      }
      assert.deepEqual(errors, [])
    })
  })

  it('retention 3h: samples every 6 minutes, first compaction after 3h, then hourly', async () => {
    await withRig('3', 'periodic', async ({ server, clock, calls, compactor, put }) => {
      await put() // rev 2
      compactor.start()
      await clock.advance(3 * HOUR - 1)
      assert.deepEqual(calls, [])
      await put()
      await clock.advance(1)
      assert.deepEqual(calls, [2])
      await clock.advance(HOUR - 1)
      assert.deepEqual(calls, [2], 'nothing before the next hour')
      await clock.advance(1)
      assert.equal(calls.length, 2)
      assert.equal(server.kv.compactRev(), calls[1])
    })
  })

  it('a failed compaction is reported and retried at the next sample', async () => {
    let fail = true
    await withRig('10m', 'periodic', async ({ clock, errors, calls, compactor }) => {
      compactor.start()
      await clock.advance(10 * MIN)
      assert.equal(errors.length, 1)
      fail = false
      await clock.advance(MIN)
      assert.deepEqual(calls, [1, 1])
      await clock.advance(9 * MIN)
      assert.equal(calls.length, 2, 'the next one comes a whole period after the success')
      await clock.advance(MIN)
      assert.equal(calls.length, 3)
      assert.equal(errors.length, 1)
    }, () => (fail ? new Error('boom') : undefined))
  })

  it('stop() ends the loop: time no longer compacts', async () => {
    await withRig('1m', 'periodic', async ({ clock, calls, compactor }) => {
      compactor.start()
      await compactor.stop()
      await clock.advance(10 * MIN)
      assert.deepEqual(calls, [])
    })
  })
})
