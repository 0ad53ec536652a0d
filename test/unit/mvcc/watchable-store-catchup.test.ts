// CatchUpLog (src/mvcc/watchable-store-catchup.ts) and WatchableStore over a fake WatchSource: the watchable
// store needs nothing of the store under it but the WatchSource contract, and catch-up reads the revision
// log only when memory does not hold what a round wants, once per span while watchers catch up over it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { until } from '../../helpers/until.js'
import { realClock } from '../../../src/pkg/clock.js'
import type { Change, Event, LogRead, TxnObserver, WatchSource } from '../../../src/mvcc/kv.js'
import { CatchUpLog } from '../../../src/mvcc/watchable-store-catchup.js'
import { WatchableStore } from '../../../src/mvcc/watchable-store.js'
import { WatcherGroup } from '../../../src/mvcc/watcher-group.js'
import { NO_FILTERS, Watcher, type StoreWatchResponse, type WatchStream } from '../../../src/mvcc/watcher.js'

const b = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))
const str = (u: Uint8Array): string => Buffer.from(u).toString('latin1')
const put = (key: string, rev: number): Event => ({
  type: 'PUT',
  kv: { key: b(key), value: b(`v${rev}`), createRevision: rev, modRevision: rev, version: 1, lease: 0n },
})
const show = (evs: readonly Event[]): string[] => evs.map((e) => `${str(e.kv.key)}@${e.kv.modRevision}`)

/** A store with a revision log in memory: revision r (2..upTo) puts key `k${r % 3}`. Counts its log reads. */
class FakeSource implements WatchSource {
  readonly log: Event[] = []
  reads = 0
  private current: number
  private readonly observers: TxnObserver[] = []

  constructor(upTo: number) {
    for (let r = 2; r <= upTo; r++) this.log.push(put(`k${r % 3}`, r))
    this.current = upTo
  }

  rev(): number {
    return this.current
  }
  durableRev(): number {
    return this.current
  }
  compactRev(): number {
    return -1
  }
  observe(o: TxnObserver): void {
    this.observers.push(o)
  }
  readLog(from: number, to: number, limit: number): Promise<LogRead> {
    this.reads++
    const events = this.log.filter((e) => e.kv.modRevision >= from && e.kv.modRevision <= to).slice(0, limit)
    const upTo = events.length === limit ? (events[events.length - 1] as Event).kv.modRevision : to
    return Promise.resolve({ upTo, events, bytes: events.reduce((n, e) => n + e.kv.value.length, 0) })
  }

  /** Write one put at the next revision and make it durable at once. */
  write(key: string): void {
    const ev = put(key, ++this.current)
    this.log.push(ev)
    const changes: Change[] = [{ type: 'put', kv: ev.kv }]
    for (const o of this.observers) o.txnEnded(this.current, changes)
    for (const o of this.observers) o.durable(this.current)
  }
}

/** A group of single-key watchers; CatchUpLog reads only their keys, never their streams. */
function group(...keys: string[]): WatcherGroup {
  const g = new WatcherGroup()
  keys.forEach((k, i) => g.add(new Watcher(i + 1, b(k), undefined, 0, NO_FILTERS, {} as WatchStream)))
  return g
}

describe('CatchUpLog', () => {
  const cases: Array<{ name: string; run: (src: FakeSource, log: CatchUpLog) => Promise<void> }> = [
    {
      name: 'a span read once serves the next rounds over it, other watchers and later starts, with the same event objects',
      run: async (src, log) => {
        const first = await log.read(2, 10, group('k0'))
        assert.deepEqual(show(first?.events ?? []), ['k0@3', 'k0@6', 'k0@9'])
        const second = await log.read(5, 10, group('k1'))
        assert.deepEqual(show(second?.events ?? []), ['k1@7', 'k1@10'])
        assert.equal(src.reads, 1)
        assert.equal(second?.events[0], src.log.find((e) => e.kv.modRevision === 7), 'the decoded event itself, not a copy')
      },
    },
    {
      name: 'a round starting below the cached span reads the log again; so does one after dropCache()',
      run: async (src, log) => {
        await log.read(5, 10, group('k0'))
        await log.read(2, 10, group('k0'))
        assert.equal(src.reads, 2)
        log.dropCache()
        await log.read(2, 10, group('k0'))
        assert.equal(src.reads, 3)
      },
    },
    {
      name: 'remembered revisions are served from memory, without a log read',
      run: async (src, log) => {
        const evs = [put('k1', 11), put('k2', 11)]
        log.remember(11, evs, evs.map((e) => str(e.kv.key)))
        const got = await log.read(11, 11, group('k2'))
        assert.deepEqual(show(got?.events ?? []), ['k2@11'])
        assert.equal(src.reads, 0)
      },
    },
    {
      name: 'a cached span grows by the remembered revisions after it',
      run: async (src, log) => {
        await log.read(2, 10, group('k0'))
        const evs = [put('k0', 11)]
        log.remember(11, evs, ['k0'])
        const got = await log.read(8, 11, group('k0'))
        assert.deepEqual(show(got?.events ?? []), ['k0@9', 'k0@11'])
        assert.equal(got?.upTo, 11)
        assert.equal(src.reads, 1)
      },
    },
    {
      name: 'a read that finds the log closed under it gives up',
      run: async (_src, log) => {
        const p = log.read(2, 10, group('k0'))
        log.close()
        assert.equal(await p, undefined)
      },
    },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const src = new FakeSource(10)
      await c.run(src, new CatchUpLog(src, 10, 1 << 20, 1000))
    })
  }
})

describe('WatchableStore over a fake WatchSource', () => {
  it('a watcher from an old revision catches up from the source log, then gets live events', async () => {
    const src = new FakeSource(10)
    const store = new WatchableStore(src, { syncIntervalMs: 5, victimIntervalMs: 2, clock: realClock, onError: (e) => assert.fail(String(e)) })
    try {
      const got: StoreWatchResponse[] = []
      const ws = store.newWatchStream({ trySend: (r) => got.push(r) > 0 })
      ws.watch(0, b('k1'), undefined, 4)
      await until(() => store.counts().synced === 1, 'the catch-up')
      src.write('k1')
      src.write('k2')
      assert.deepEqual(show(got.flatMap((r) => r.events)), ['k1@4', 'k1@7', 'k1@10', 'k1@11'])
      assert.equal(src.reads, 1)
      ws.close()
    } finally {
      await store.close()
    }
  })
})
