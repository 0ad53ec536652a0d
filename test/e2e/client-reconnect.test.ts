// connect()'s client across server restarts (the etcdlite CLI on disk and the real etcd, killed by SIGKILL
// and by SIGTERM and started again on the same port): a watch replaying a long history while writes go on
// delivers every revision exactly once, in order; a keep-alive outlives a restart shorter than its TTL,
// and one whose lease went away meanwhile ends with 'lease-not-found'.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { connect } from '../../src/client/connect.js'
import type { RemoteClient } from '../../src/client/client.js'
import type { WatchResponse } from '../../src/etcdserver/types/watch.js'
import { prefixEnd } from '../../src/pkg/bytes.js'
import { haveEtcd } from '../helpers/processes.js'
import { startRestartable, type RestartableServer, type ServerKind } from '../helpers/restartable-server.js'

const HISTORY = 3000
const VALUE = 'x'.repeat(1024)
const PREFIX = Buffer.from('k/')
const FAST_BACKOFF = { baseMs: 20, capMs: 300 }

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

async function seed(c: RemoteClient): Promise<void> {
  for (let i = 0; i < HISTORY; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, HISTORY - i) }, (_, j) => c.put({ key: `k/h-${i + j}`, value: VALUE })))
  }
}

/** Puts on k/w until stopped; failures (the server is down) are expected and skipped. */
function writer(c: RemoteClient): { stop(): Promise<void>; okAfter(n: number): Promise<void> } {
  let stopped = false
  let ok = 0
  const done = (async () => {
    for (let i = 0; !stopped; i++) {
      try {
        await c.put({ key: 'k/w', value: String(i) })
        ok++
      } catch {
        await sleep(20)
      }
      await sleep(2)
    }
  })()
  return {
    stop: async () => {
      stopped = true
      await done
    },
    okAfter: async (n) => {
      const target = ok + n
      while (ok < target) await sleep(10)
    },
  }
}

/** Revisions of every event in `rs`, in order. */
const revisions = (rs: readonly WatchResponse[]): number[] => rs.flatMap((r) => r.events.map((e) => e.kv.modRevision))

async function watchAcrossRestart(kind: ServerKind, signal: NodeJS.Signals): Promise<void> {
  const server = await startRestartable(kind)
  let c: RemoteClient | undefined
  try {
    c = await connect({ endpoints: [server.endpoint], backoff: FAST_BACKOFF, dialTimeoutMs: 20_000 })
    await seed(c)
    const w = writer(c)
    const watcher = c.watch({ key: PREFIX, prefix: true, startRevision: 2 })
    const got: WatchResponse[] = []
    const first = await watcher.next()
    assert.equal(first.done, false)
    got.push(first.value)
    // The consumer holds back while the server goes away: the rest of the replay is still to come.
    const atKill = revisions(got).length
    await server.kill(signal)
    await server.start()
    await w.okAfter(20)
    await w.stop()
    const end = (await c.range({ key: PREFIX, rangeEnd: prefixEnd(PREFIX), countOnly: true })).header.revision
    while (revisions(got).at(-1) !== end) {
      const r = await watcher.next()
      assert.equal(r.done, false, 'the watcher ended before the last revision')
      got.push(r.value)
    }
    const revs = revisions(got)
    assert.ok(atKill < HISTORY, `the kill came after the replay (${atKill} events delivered)`)
    assert.deepEqual(revs, Array.from({ length: end - 1 }, (_, i) => i + 2), 'every revision once, in order')
    // Spot-check contents against the store.
    for (const r of got.slice(0, 3)) {
      for (const e of r.events.slice(0, 5)) {
        const at = await c.range({ key: e.kv.key, revision: e.kv.modRevision })
        assert.deepEqual(Buffer.from(at.kvs[0]?.value ?? []), Buffer.from(e.kv.value))
      }
    }
    await watcher.cancel()
    assert.deepEqual(await watcher.closed, { reason: 'canceled' })
  } finally {
    await c?.close()
    await server.dispose()
  }
}

async function keepAliveAcrossRestart(kind: ServerKind, signal: NodeJS.Signals): Promise<void> {
  const server: RestartableServer = await startRestartable(kind)
  let c: RemoteClient | undefined
  let admin: RemoteClient | undefined
  try {
    c = await connect({ endpoints: [server.endpoint], backoff: FAST_BACKOFF, dialTimeoutMs: 20_000 })
    const { id } = await c.leaseGrant({ ttl: 30 })
    const ka = c.leaseKeepAlive({ id })
    assert.equal((await ka.next()).done, false)
    await server.kill(signal)
    await server.start()
    // Renewed on the new server, and still going.
    const after = await ka.next()
    assert.equal(after.done, false)
    assert.equal(after.value?.ttl, 30)
    assert.ok((await c.leaseTimeToLive({ id })).ttl > 0)
    // A lease revoked while the keep-alive is cut off: it ends, typed, when it reconnects.
    const slow = await connect({ endpoints: [server.endpoint], backoff: { baseMs: 1500, capMs: 1500 }, dialTimeoutMs: 20_000 })
    const lease2 = await slow.leaseGrant({ ttl: 30 })
    const ka2 = slow.leaseKeepAlive({ id: lease2.id })
    assert.equal((await ka2.next()).done, false)
    await server.kill(signal)
    await server.start()
    admin = await connect({ endpoints: [server.endpoint], dialTimeoutMs: 20_000 })
    await admin.leaseRevoke({ id: lease2.id })
    assert.deepEqual(await ka2.closed, { reason: 'lease-not-found' })
    await slow.close()
    ka.cancel()
    assert.deepEqual(await ka.closed, { reason: 'canceled' })
  } finally {
    await admin?.close()
    await c?.close()
    await server.dispose()
  }
}

const kinds: ServerKind[] = ['etcdlite', 'etcd']
for (const kind of kinds) {
  const skip = kind === 'etcd' && !haveEtcd() ? 'no etcd binary' : false
  describe(`connect() across restarts of ${kind}`, { skip }, () => {
    for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
      it(`a watch replaying history delivers every event exactly once (${signal})`, { timeout: 120_000 }, () => watchAcrossRestart(kind, signal))
      it(`keep-alive survives a restart; a lease gone meanwhile ends it typed (${signal})`, { timeout: 120_000 }, () => keepAliveAcrossRestart(kind, signal))
    }
  })
}
