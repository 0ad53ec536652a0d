// Lease expiry on a ManualClock (the embedded `clock` option): time moves only when a case says so, so
// expiry is instant and exact. Each case is a timeline of steps on a fresh in-memory etcdlite; after every
// step its expectations hold. What a case may rely on (etcd lease/lessor.go): a lease is never revoked
// before its TTL has passed; it is revoked within one expiry check (500 ms) after; its keys go in one
// revision; a renewal restarts the TTL; TimeToLive truncates the time left to whole seconds.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import type { EtcdOptions } from '../../../src/embed/options.js'
import type { WatchResponse } from '../../../src/etcdserver/types/watch.js'
import { ManualClock } from '../../../src/pkg/clock.js'

const b = (s: string): Uint8Array => Buffer.from(s)
const str = (u: Uint8Array): string => Buffer.from(u).toString('latin1')

/** etcd's expiry loop looks every 500 ms; a lease is gone at most this long after its TTL. */
const CHECK_MS = 500

type Step =
  | { readonly grant: bigint; readonly ttl: number; readonly granted?: number }
  | { readonly put: string; readonly lease?: bigint }
  | { readonly advance: number }
  /** TimeToLive: the lease exists with exactly `ttl` whole seconds left (and `keys`, sorted, if given). */
  | { readonly alive: bigint; readonly ttl: number; readonly keys?: readonly string[] }
  /** TimeToLive answers -1: the lease is gone. */
  | { readonly gone: bigint }
  /** The store holds exactly these keys, at this revision. */
  | { readonly keys: readonly string[]; readonly rev: number }
  /** One keep-alive message; `ttl` is what it answers (0: the lease is gone). */
  | { readonly keepAlive: bigint; readonly ttl: number }
  /** LeaseLeases lists exactly these IDs (sorted). */
  | { readonly leases: readonly bigint[] }
  /** The watcher on every key (opened when the case starts) gets its next response: these deletes at `rev`. */
  | { readonly deletes: readonly string[]; readonly rev: number }

interface Case {
  readonly name: string
  readonly opts?: EtcdOptions
  readonly steps: readonly Step[]
}

const cases: readonly Case[] = [
  {
    name: 'a lease lives its TTL, then it and its keys go in one revision, seen by a watcher as one response',
    steps: [
      { grant: 1n, ttl: 5 },
      { put: 'b', lease: 1n },
      { put: 'a', lease: 1n },
      { put: 'c' },
      { advance: 4_999 },
      { alive: 1n, ttl: 0, keys: ['a', 'b'] },
      { keys: ['a', 'b', 'c'], rev: 4 },
      { advance: 1 + CHECK_MS },
      { gone: 1n },
      { keys: ['c'], rev: 5 },
      { deletes: ['a', 'b'], rev: 5 },
    ],
  },
  {
    name: 'time-to-live counts down in whole seconds, truncated',
    steps: [
      { grant: 1n, ttl: 10 },
      { alive: 1n, ttl: 10 },
      { advance: 1 },
      { alive: 1n, ttl: 9 },
      { advance: 2_499 },
      { alive: 1n, ttl: 7 },
      { advance: 7_499 },
      { alive: 1n, ttl: 0 },
    ],
  },
  {
    name: 'a keep-alive restarts the TTL',
    steps: [
      { grant: 1n, ttl: 5 },
      { put: 'a', lease: 1n },
      { advance: 4_000 },
      { keepAlive: 1n, ttl: 5 },
      { alive: 1n, ttl: 5 },
      { advance: 4_000 },
      { alive: 1n, ttl: 1, keys: ['a'] },
      { advance: 999 },
      { alive: 1n, ttl: 0 },
      { advance: 1 + CHECK_MS },
      { gone: 1n },
      { keys: [], rev: 3 },
    ],
  },
  {
    name: 'a keep-alive after the TTL passed answers 0 and the lease is gone',
    steps: [{ grant: 1n, ttl: 5 }, { put: 'a', lease: 1n }, { advance: 5_000 + CHECK_MS }, { keepAlive: 1n, ttl: 0 }, { gone: 1n }, { keys: [], rev: 3 }],
  },
  {
    name: 'a TTL below the minimum is raised to 2 s, and the lease lives that long',
    steps: [{ grant: 1n, ttl: 1, granted: 2 }, { advance: 1_999 }, { alive: 1n, ttl: 0 }, { advance: 1 + CHECK_MS }, { gone: 1n }],
  },
  {
    name: 'the minimum TTL is an option',
    opts: { minLeaseTtl: 5 },
    steps: [{ grant: 1n, ttl: 1, granted: 5 }, { grant: 2n, ttl: 6 }, { advance: 4_999 }, { alive: 1n, ttl: 0 }, { advance: 1 + CHECK_MS }, { gone: 1n }, { alive: 2n, ttl: 0 }],
  },
  {
    name: 'leases expire in TTL order, each with its own keys in its own revision',
    steps: [
      { grant: 1n, ttl: 10 },
      { grant: 2n, ttl: 5 },
      { grant: 3n, ttl: 20 },
      { put: 'x1', lease: 1n },
      { put: 'x2', lease: 2n },
      { put: 'y2', lease: 2n },
      { put: 'x3', lease: 3n },
      { leases: [1n, 2n, 3n] },
      { advance: 5_000 + CHECK_MS },
      { deletes: ['x2', 'y2'], rev: 6 },
      { gone: 2n },
      { leases: [1n, 3n] },
      { alive: 1n, ttl: 4 },
      { advance: 5_000 },
      { deletes: ['x1'], rev: 7 },
      { gone: 1n },
      { leases: [3n] },
      { alive: 3n, ttl: 9 },
      { keys: ['x3'], rev: 7 },
    ],
  },
  {
    name: 'a key moved to another lease, or put without one, outlives the first lease',
    steps: [
      { grant: 1n, ttl: 5 },
      { grant: 2n, ttl: 60 },
      { put: 'a', lease: 1n },
      { put: 'b', lease: 1n },
      { put: 'c', lease: 1n },
      { put: 'a', lease: 2n },
      { put: 'b' },
      { advance: 5_000 + CHECK_MS },
      { deletes: ['c'], rev: 7 },
      { keys: ['a', 'b'], rev: 7 },
      { alive: 2n, ttl: 54, keys: ['a'] },
    ],
  },
  {
    name: 'a lease without keys expires without taking a revision',
    steps: [{ put: 'a' }, { grant: 1n, ttl: 5 }, { advance: 5_000 + CHECK_MS }, { gone: 1n }, { keys: ['a'], rev: 2 }],
  },
]

/** The next watch response, or a failure (never a silent hang). */
async function nextResponse(it: AsyncIterator<WatchResponse>): Promise<WatchResponse> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no watch response within 5 s')), 5000)))
  try {
    const r = await Promise.race([it.next(), timeout])
    if (r.done === true) assert.fail('the watcher ended')
    return r.value
  } finally {
    clearTimeout(timer)
  }
}

async function run(etcd: Etcd, clock: ManualClock, watcher: AsyncIterator<WatchResponse>, s: Step, where: string): Promise<void> {
  if ('grant' in s) {
    const r = await etcd.leaseGrant({ id: s.grant, ttl: s.ttl })
    assert.deepEqual([r.id, r.ttl], [s.grant, s.granted ?? s.ttl], `${where}: grant`)
  } else if ('put' in s) {
    await etcd.put({ key: b(s.put), value: b('v'), lease: s.lease ?? 0n })
  } else if ('advance' in s) {
    await clock.advance(s.advance)
  } else if ('alive' in s) {
    const r = await etcd.leaseTimeToLive({ id: s.alive, keys: true })
    assert.equal(r.ttl, s.ttl, `${where}: time left`)
    if (s.keys !== undefined) assert.deepEqual(r.keys.map(str).sort(), s.keys, `${where}: keys`)
  } else if ('gone' in s) {
    const r = await etcd.leaseTimeToLive({ id: s.gone })
    assert.equal(r.ttl, -1, `${where}: lease ${s.gone} still exists (${r.ttl} s left)`)
  } else if ('keys' in s) {
    const r = await etcd.range({ key: b('\0'), rangeEnd: b('\0') })
    assert.deepEqual([r.kvs.map((kv) => str(kv.key)), r.header.revision], [s.keys, s.rev], `${where}: keys and revision`)
  } else if ('leases' in s) {
    const r = await etcd.leaseLeases()
    assert.deepEqual(r.leases.map((l) => l.id).sort((x, y) => (x < y ? -1 : 1)), s.leases, `${where}: leases`)
  } else if ('keepAlive' in s) {
    const r = await etcd.leaseKeepAliveOnce({ id: s.keepAlive })
    assert.equal(r.ttl, s.ttl, `${where}: keep-alive TTL`)
  } else {
    const r = await nextResponse(watcher)
    const got = r.events.map((e) => `${e.type} ${str(e.kv.key)} @${e.kv.modRevision}`)
    assert.deepEqual(got, s.deletes.map((k) => `DELETE ${k} @${s.rev}`), `${where}: one response with the deletes`)
  }
}

describe('lease expiry on a manual clock', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const clock = new ManualClock()
      const etcd = await openEtcd({ memory: true, ...c.opts, clock })
      const watcher = etcd.watch({ key: b('\0'), rangeEnd: b('\0'), filters: ['NOPUT'] })[Symbol.asyncIterator]()
      try {
        for (const [i, s] of c.steps.entries()) await run(etcd, clock, watcher, s, `step ${i + 1}`)
      } finally {
        await watcher.return?.()
        await etcd.close()
      }
    })
  }

  it('leaseKeepAlive() renews every TTL/3 on the server clock until canceled; then the lease expires', async () => {
    const clock = new ManualClock()
    const etcd = await openEtcd({ memory: true, clock })
    try {
      await etcd.leaseGrant({ id: 1n, ttl: 6 })
      const ka = etcd.leaseKeepAlive({ id: 1n })
      // The first renewal goes out at once; each later one after TTL/3 = 2 s. Ten renewals: 20 s, three
      // TTLs, and the lease still has its full TTL after each.
      for (let i = 0; i < 10; i++) {
        const r = await ka.next()
        assert.deepEqual([r.done, r.value?.ttl], [false, 6], `renewal ${i + 1}`)
        assert.equal((await etcd.leaseTimeToLive({ id: 1n })).ttl, 6, `time left after renewal ${i + 1}`)
        await clock.advance(2_000)
      }
      ka.cancel()
      assert.deepEqual(await ka.closed, { reason: 'canceled' })
      await clock.advance(6_000 + CHECK_MS)
      assert.equal((await etcd.leaseTimeToLive({ id: 1n })).ttl, -1)
    } finally {
      await etcd.close()
    }
  })

  it('leaseKeepAlive() ends by itself when the lease is revoked', async () => {
    const clock = new ManualClock()
    const etcd = await openEtcd({ memory: true, clock })
    try {
      await etcd.leaseGrant({ id: 1n, ttl: 6 })
      const ka = etcd.leaseKeepAlive({ id: 1n })
      assert.equal((await ka.next()).value?.ttl, 6)
      await etcd.leaseRevoke({ id: 1n })
      await clock.advance(2_000)
      assert.deepEqual(await ka.closed, { reason: 'lease-not-found' })
      assert.equal((await ka.next()).done, true)
    } finally {
      await etcd.close()
    }
  })
})
