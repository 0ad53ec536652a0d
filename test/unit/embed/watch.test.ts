// The embedded watch API: one-watcher iterables (break, cancel, AbortSignal, compaction, close), progress
// notifications at the configured interval, and bounded buffering for a consumer that stops reading.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { WATCH_STREAM_BUFFER, type Watcher } from '../../../src/embed/watch.js'
import { CompactedError, EmptyWatcherRangeError } from '../../../src/mvcc/errors.js'
import type { WatchResponse } from '../../../src/etcdserver/types/watch.js'
import type { WatchId } from '../../../src/pkg/watch-id.js'

const b = (s: string): Uint8Array => Buffer.from(s)
const str = (u: Uint8Array): string => Buffer.from(u).toString()

/** The next response of an iterator, or a failure after `ms` (never a silent hang). */
async function next(w: Watcher, ms = 5000): Promise<IteratorResult<WatchResponse, undefined>> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no response in ${ms} ms`)), ms)))
  try {
    return await Promise.race([w.next(), timeout])
  } finally {
    clearTimeout(timer)
  }
}

async function withEtcd(fn: (etcd: Etcd) => Promise<void>, opts: { watchProgressNotifyIntervalMs?: number } = {}): Promise<void> {
  const etcd = await openEtcd({ memory: true, ...opts })
  try {
    await fn(etcd)
  } finally {
    await etcd.close()
  }
}

describe('etcd.watch()', () => {
  it('yields event responses (not the created one) and ends with closed = canceled on cancel()', () =>
    withEtcd(async (etcd) => {
      const w = etcd.watch({ key: b('a') })
      await etcd.put({ key: b('a'), value: b('1') })
      const r = await next(w)
      assert.equal(r.done, false)
      assert.deepEqual(r.value?.events.map((e) => `${e.type} ${str(e.kv.key)}=${str(e.kv.value)}@${e.kv.modRevision}`), ['PUT a=1@2'])
      await w.cancel()
      assert.deepEqual(await w.closed, { reason: 'canceled' })
      assert.equal((await next(w)).done, true)
    }))

  it('an AbortSignal ends it with reason aborted; an already aborted signal ends it at once', () =>
    withEtcd(async (etcd) => {
      const ac = new AbortController()
      const w = etcd.watch({ key: b('a'), signal: ac.signal })
      ac.abort()
      assert.deepEqual(await w.closed, { reason: 'aborted' })
      assert.equal((await next(w)).done, true)
      const w2 = etcd.watch({ key: b('a'), signal: AbortSignal.abort() })
      assert.deepEqual(await w2.closed, { reason: 'aborted' })
    }))

  it('a start revision below the compacted one yields the compacted response, then ends', () =>
    withEtcd(async (etcd) => {
      for (const v of ['1', '2', '3']) await etcd.put({ key: b('a'), value: b(v) })
      await etcd.compact({ revision: 3, physical: true })
      const w = etcd.watch({ key: b('a'), startRevision: 2 })
      const r = await next(w)
      assert.equal(r.value?.compactRevision, 3)
      assert.equal(r.value?.canceled, true)
      assert.deepEqual(await w.closed, { reason: 'compacted', compactRevision: 3 })
      assert.equal((await next(w)).done, true)
    }))

  it('prefix, prevKv and filters', () =>
    withEtcd(async (etcd) => {
      const w = etcd.watch({ key: b('p/'), prefix: true, prevKv: true, filters: ['NOPUT'] })
      await etcd.put({ key: b('p/x'), value: b('1') })
      await etcd.put({ key: b('q'), value: b('1') })
      await etcd.deleteRange({ key: b('p/x') })
      const r = await next(w)
      assert.deepEqual(r.value?.events.map((e) => `${e.type} ${str(e.kv.key)}@${e.kv.modRevision} prev=${e.prevKv === undefined ? '-' : str(e.prevKv.value)}`), ['DELETE p/x@4 prev=1'])
      await w.cancel()
    }))

  it('etcd.close() ends it with reason closed', async () => {
    const etcd = await openEtcd({ memory: true })
    const w = etcd.watch({ key: b('a') })
    await etcd.close()
    assert.deepEqual(await w.closed, { reason: 'closed' })
  })

  it('bad input throws etcd errors at once', () =>
    withEtcd(async (etcd) => {
      assert.throws(() => etcd.watch({ key: b('b'), rangeEnd: b('a') }), EmptyWatcherRangeError)
      assert.throws(() => etcd.watch({ key: b('a'), startRevision: -1 }), CompactedError)
      await Promise.resolve()
    }))

  it('progressNotify: an idle watcher hears the current revision at the configured interval', () =>
    withEtcd(
      async (etcd) => {
        await etcd.put({ key: b('x'), value: b('1') })
        const w = etcd.watch({ key: b('a'), progressNotify: true })
        const r = await next(w)
        assert.deepEqual([r.value?.events.length, r.value?.header.revision], [0, 2])
        await w.cancel()
      },
      { watchProgressNotifyIntervalMs: 100 },
    ))

  it('requestProgress() answers once the watcher is caught up', () =>
    withEtcd(async (etcd) => {
      for (const v of ['1', '2']) await etcd.put({ key: b('a'), value: b(v) })
      const w = etcd.watch({ key: b('a'), startRevision: 2 })
      w.requestProgress()
      const first = await next(w)
      assert.deepEqual(first.value?.events.map((e) => e.kv.modRevision), [2, 3])
      const progress = await next(w)
      assert.deepEqual([progress.value?.watchId, progress.value?.events.length, progress.value?.header.revision], [-1, 0, 3])
      await w.cancel()
    }))
})

describe('etcd.watchStream() with a consumer that stops reading', () => {
  it('writes keep going, buffering stays bounded, and once read every event arrives exactly once in order', () =>
    withEtcd(async (etcd) => {
      const ws = etcd.watchStream()
      const watchers = 4
      for (let i = 0; i < watchers; i++) ws.send({ type: 'create', request: { key: b('k') } })
      const created: WatchResponse[] = []
      for (let i = 0; i < watchers; i++) {
        const r = await ws.next()
        if (r.done === true) throw new Error('stream ended')
        created.push(r.value)
      }
      // Nobody reads while 300 writes x 4 watchers = 1200 responses would be produced.
      const writes = 300
      for (let i = 0; i < writes; i++) await etcd.put({ key: b('k'), value: b(String(i)) })
      const seen = new Map<WatchId, number[]>()
      let responses = 0
      for (;;) {
        const r = await ws.next()
        if (r.done === true) throw new Error('stream ended')
        responses++
        const revs = seen.get(r.value.watchId) ?? []
        for (const e of r.value.events) revs.push(e.kv.modRevision)
        seen.set(r.value.watchId, revs)
        if ([...seen.values()].every((v) => v.length === writes) && seen.size === watchers) break
      }
      const want = Array.from({ length: writes }, (_, i) => i + 2)
      for (const [id, revs] of seen) assert.deepEqual(revs, want, `watcher ${id}`)
      // Victims caught up in batches: far fewer responses than one per event, and never more buffered than the cap.
      assert.ok(responses < watchers * writes, `${responses} responses`)
      assert.ok(WATCH_STREAM_BUFFER <= 128)
      ws.close()
    }))
})
