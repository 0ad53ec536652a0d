// The v2 store on its own, with time in hand: indexes, errors and statistics as etcd's store gives them
// (its quirks included), TTLs and expiry, hidden keys, the event history and watchers, and the changes
// it hands over for persisting.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { V2Store, StoreError, type TtlOptionSet } from '../../../src/etcdserver/api/v2store/store.js'
import { V2Error } from '../../../src/etcdserver/api/v2error/error.js'
import { eventJson } from '../../../src/etcdserver/api/v2store/event.js'
import { goJsonMarshal } from '../../../src/pkg/go-json.js'
import type { Watcher } from '../../../src/etcdserver/api/v2store/watcher.js'

const S = 1_000_000_000n
/** 2026-01-01T00:00:00Z. */
const T0 = 1_767_225_600n * S

function newStore(): { st: V2Store; clock: { now: bigint } } {
  const clock = { now: T0 }
  return { st: new V2Store(() => clock.now, ['/0', '/1']), clock }
}

const NONE: TtlOptionSet = { expireTime: undefined, refresh: false }
const ttl = (expireTime: bigint, refresh = false): TtlOptionSet => ({ expireTime, refresh })

function v2error(fn: () => unknown): V2Error {
  try {
    fn()
  } catch (err) {
    if (err instanceof V2Error) return err
    throw err
  }
  assert.fail('no V2Error')
}

const json = (e: Parameters<typeof eventJson>[0]): string => goJsonMarshal(eventJson(e, '/1'))
const drain = (w: Watcher): string[] => {
  const out: string[] = []
  for (let e = w.take(); e !== undefined; e = w.take()) out.push(`${e.action} ${e.node?.key ?? ''} ${e.node?.modifiedIndex ?? 0}`)
  return out
}

describe('v2 store operations', () => {
  it('gives each write the next index, and intermediate directories the index of the write', () => {
    const { st } = newStore()
    assert.equal(json(st.set('/1/a/b/c', false, 'v', NONE)), '{"action":"set","node":{"key":"/a/b/c","value":"v","modifiedIndex":1,"createdIndex":1}}')
    assert.equal(json(st.get('/1/a', true, true)), '{"action":"get","node":{"key":"/a","dir":true,"nodes":[{"key":"/a/b","dir":true,"nodes":[{"key":"/a/b/c","value":"v","modifiedIndex":1,"createdIndex":1}],"modifiedIndex":1,"createdIndex":1}],"modifiedIndex":1,"createdIndex":1}}')
    const e = st.create('/1/q', false, 'x', true, NONE)
    assert.equal(e.node?.key, '/1/q/00000000000000000002')
    assert.equal(st.currentIndex, 2)
  })

  it('answers with etcd error codes, causes and the current index', () => {
    const { st } = newStore()
    st.set('/1/f', false, 'v', NONE)
    const cases: [() => unknown, number, string][] = [
      [() => st.get('/1/nope', false, false), 100, '/1/nope'],
      [() => st.create('/1/f', false, 'x', false, NONE), 105, '/1/f'],
      [() => st.set('/1/f/x', false, 'x', NONE), 104, '/1/f'],
      [() => st.set('/1', false, 'x', NONE), 107, '/'],
      [() => st.compareAndSwap('/1/f', 'no', 0n, 'x', NONE), 101, '[no != v]'],
      [() => st.compareAndSwap('/1/f', '', 7n, 'x', NONE), 101, '[7 != 1]'],
      [() => st.compareAndSwap('/1/f', 'no', 7n, 'x', NONE), 101, '[no != v] [7 != 1]'],
      [() => st.delete('/1', true, true), 107, '/'],
    ]
    for (const [fn, code, cause] of cases) {
      const err = v2error(fn)
      assert.deepEqual([err.errorCode, err.errorCause, err.index], [code, cause, 1])
    }
    st.set('/1/d/k', false, 'v', NONE)
    assert.equal(v2error(() => st.delete('/1/d', false, false)).errorCode, 102)
    assert.equal(v2error(() => st.delete('/1/d', true, false)).errorCode, 108)
  })

  it("counts statistics with etcd's quirks", () => {
    const { st } = newStore()
    st.set('/1/f', false, 'v', NONE)
    st.set('/1/d/k', false, 'v', NONE)
    const failures = [
      () => st.compareAndDelete('/1/f', 'no', 0n), // counted as a success
      () => st.compareAndDelete('/1/d', 'x', 0n), // NotFile: a success too
      () => st.compareAndSwap('/1', 'x', 0n, 'y', NONE), // RootROnly: a success
      () => st.update('/1', 'x', NONE), // RootROnly: a success
      () => st.update('/1/d', 'x', NONE), // NotFile: a success
      () => st.delete('/1', false, false), // RootROnly: a success
      () => st.create('/1/f/x', false, 'v', false, NONE), // NotDir: a failed create and a failed set
    ]
    for (const f of failures) assert.throws(f)
    const stats = JSON.parse(st.jsonStats()) as Record<string, number>
    assert.deepEqual(
      [stats['compareAndDeleteSuccess'], stats['compareAndDeleteFail'], stats['compareAndSwapSuccess'], stats['updateSuccess'], stats['deleteSuccess'], stats['createFail'], stats['setsFail'], stats['setsSuccess']],
      [2, 0, 1, 2, 1, 1, 1, 2],
    )
  })

  it('fails a value-less update of a directory as etcd 3.5 does (a plain error, no index used)', () => {
    const { st } = newStore()
    st.set('/1/d', true, '', NONE)
    assert.throws(() => st.update('/1/d', '', ttl(T0 + 10n * S)), (err: unknown) => err instanceof StoreError && err.message === 'nodePath /1/d : Not a file ()')
    assert.equal(st.currentIndex, 1)
  })

  it('leaves hidden nodes out of listings and sorts listings by bytes', () => {
    const { st } = newStore()
    for (const k of ['b', '_h', 'a', '\u00c3\u00a9', 'Z']) st.set(`/1/${k}`, false, '1', NONE)
    const keys = (st.get('/1', false, true).node?.nodes ?? []).map((n) => n.key)
    assert.deepEqual(keys, ['/1/Z', '/1/a', '/1/b', '/1/\u00c3\u00a9'])
    assert.equal(st.get('/1/_h', false, false).node?.value, '1')
  })
})

describe('v2 store TTLs', () => {
  it('shows the TTL rounded up, expires keys at or before the cutoff as expire events, and drops expiries before 2000', () => {
    const { st, clock } = newStore()
    const e = st.set('/1/t', false, 'v', ttl(T0 + 5n * S))
    assert.deepEqual([e.node?.ttl, e.node?.expiration], [5, T0 + 5n * S])
    clock.now = T0 + 4n * S + 1n
    assert.equal(st.get('/1/t', false, false).node?.ttl, 1)
    assert.equal(st.set('/1/old', false, 'v', ttl(946_684_799n * S)).node?.expiration, undefined)
    st.deleteExpiredKeys(T0 + 5n * S - 1n)
    assert.equal(st.hasTtlKeys(), true)
    clock.now = T0 + 5n * S
    st.deleteExpiredKeys(clock.now)
    assert.equal(st.hasTtlKeys(), false)
    assert.equal(v2error(() => st.get('/1/t', false, false)).errorCode, 100)
    const h = st.watcherHub.eventHistory.all()
    assert.equal(json(h[h.length - 1] ?? assert.fail()), '{"action":"expire","node":{"key":"/t","modifiedIndex":3,"createdIndex":1},"prevNode":{"key":"/t","value":"v","expiration":"2026-01-01T00:00:05Z","modifiedIndex":1,"createdIndex":1}}')
    assert.equal((JSON.parse(st.jsonStats()) as Record<string, number>)['expireCount'], 1)
  })

  it('refreshes a TTL keeping the value, recorded in the history but announced to no watcher; an update without TTL makes a key permanent', () => {
    const { st } = newStore()
    st.set('/1/t', false, 'v', ttl(T0 + 5n * S))
    const w = st.watch('/1/t', false, true, 0n)
    const r = st.set('/1/t', false, 'ignored', ttl(T0 + 9n * S, true))
    assert.deepEqual([r.node?.value, r.refresh, r.node?.ttl], ['v', true, 9])
    assert.deepEqual(drain(w), [])
    st.update('/1/t', 'w', NONE)
    assert.equal(st.hasTtlKeys(), false)
    assert.deepEqual(drain(w), ['update /1/t 3'])
    // History scans skip the refresh: a watch from index 2 gets the update.
    assert.deepEqual(drain(st.watch('/1/t', false, false, 2n)), ['update /1/t 3'])
  })
})

describe('v2 store watchers', () => {
  it('answers a waitIndex from history, and refuses one the history dropped', () => {
    const { st } = newStore()
    for (let i = 0; i < 1005; i++) st.set('/1/k', false, String(i), NONE)
    assert.deepEqual(drain(st.watch('/1/k', false, false, 1000n)), ['set /1/k 1000'])
    const err = v2error(() => st.watch('/1/k', false, false, 5n))
    assert.deepEqual([err.errorCode, err.errorCause, err.index, err.statusCode()], [401, 'the requested history has been cleared [6/5]', 1005, 400])
  })

  it('ends a long-poll watcher after one event; a stream watcher hears a deletion of its own key twice', () => {
    const { st } = newStore()
    st.set('/1/k', false, 'v', NONE)
    const once = st.watch('/1/k', false, false, 0n)
    const stream = st.watch('/1/k', false, true, 0n)
    assert.equal(st.watcherHub.count, 2)
    st.delete('/1/k', false, false)
    st.set('/1/k', false, 'w', NONE)
    assert.deepEqual(drain(once), ['delete /1/k 2'])
    assert.deepEqual(drain(stream), ['delete /1/k 2', 'delete /1/k 2', 'set /1/k 3'])
    assert.equal(st.watcherHub.count, 1)
    stream.remove()
    assert.equal(st.watcherHub.count, 0)
  })

  it('tells a recursive watcher of changes under it but not under a hidden name (and of its own deletion twice), and a key watcher of its directory going', () => {
    const { st } = newStore()
    const rec = st.watch('/1/d', true, true, 0n)
    st.set('/1/d/a', false, '1', NONE)
    st.set('/1/d/_h/x', false, '1', NONE)
    st.set('/1/d/b', false, '1', NONE)
    const key = st.watch('/1/d/a', false, false, 0n)
    st.delete('/1/d', true, true)
    assert.deepEqual(drain(rec), ['set /1/d/a 1', 'set /1/d/b 3', 'delete /1/d 4', 'delete /1/d 4'])
    assert.deepEqual(drain(key), ['delete /1/d 4'])
  })

  it('drops a stream watcher that falls 100 events behind; it keeps what was queued', () => {
    const { st } = newStore()
    const w = st.watch('/1/k', false, true, 0n)
    for (let i = 0; i < 101; i++) st.set('/1/k', false, String(i), NONE)
    assert.equal(st.watcherHub.count, 0)
    st.set('/1/k', false, 'late', NONE)
    assert.equal(drain(w).length, 100)
  })
})

describe('v2 store changes for persisting', () => {
  it('lists written and removed nodes, recorded events and events the history dropped', () => {
    const { st } = newStore()
    st.takeChanges()
    st.set('/1/d/a', false, '1', NONE)
    let c = st.takeChanges()
    assert.deepEqual([...c.nodes.keys()], ['/1/d', '/1/d/a'])
    assert.equal(c.events.length, 1)
    st.delete('/1/d', true, true)
    c = st.takeChanges()
    assert.deepEqual([...c.nodes], [['/1/d/a', null], ['/1/d', null]])
    for (let i = 0; i < 1000; i++) st.set('/1/k', false, String(i), NONE)
    c = st.takeChanges()
    assert.deepEqual(c.dropped, [1, 2])
  })
})
