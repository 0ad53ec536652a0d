// Crash test: the etcdlite CLI on one data dir, 8 concurrent writers, SIGKILL at a random moment, restart,
// and prove that nothing acknowledged was lost and nothing was torn. Repeated over many cycles on the same
// data dir, so the state (and the revision log) accumulates across crashes.
//
// What is checked after every restart:
// - the store opens and serves (the CLI prints its ready line);
// - the current revision is >= every acknowledged revision;
// - every revision written since the last check, read at that revision and compared with the revision
//   before it, holds the changes of exactly one write that was sent: all of that write's puts (and the
//   deletes that found a key), nothing else, never the same write twice; when the write was acknowledged,
//   at exactly its acknowledged revision and on its acknowledged branch (txn succeeded or not). So there
//   are no gaps, no empty revisions, no torn txns and no lost or reordered acknowledged writes;
// - an acknowledged compaction survives (reads below it fail with "compacted");
// - the latest value of every key is the one of its last acknowledged write, or of a later one that was
//   sent but not acknowledged.
// Replay the same op choices and kill delays with CRASH_SEED=<seed> (timing itself is not replayable).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as delay } from 'node:timers/promises'
import { rawClient, type RawClient } from '../helpers/grpc-client.js'
import { spawnEtcdlite, type CliProcess } from '../helpers/cli-process.js'
import { Prng } from '../helpers/prng.js'
import { tempDir } from '../helpers/tmp.js'

const CYCLES = Number(process.env['CRASH_CYCLES'] ?? (process.env['CI'] !== undefined && process.env['CI'] !== '' ? 20 : 5))
const SEED = Number(process.env['CRASH_SEED'] ?? 20240611)
const WRITERS = 8
const SHARED_KEYS = ['s/0', 's/1']
/**
 * A background index checkpoint after every few log entries, so that kills land before, during and after
 * one, and restarts read it and replay the log past it (or rebuild from the log after a compaction).
 */
const CHECKPOINT_FLAGS = ['--index-checkpoint-entries', '8']
/** The start-up log line (info level) of a store whose index came from a checkpoint plus a replay of the log past it. */
const RESTORED_FROM_CHECKPOINT = /"kvstore restored".*"index-from":"checkpoint","log-entries-read":[1-9]/
/** An error-level log line or a fatal error on the server's stderr. */
const SERVER_ERROR = /"level":"error"|fatal/

const b = (s: string): Buffer => Buffer.from(s, 'utf8')

/** A key's intended effect: its new value, or null for a delete. */
type Effects = Map<string, string | null>

interface Write {
  readonly id: string
  readonly success: Effects
  /** Effects of the failure branch (txns only). */
  readonly failure: Effects | undefined
  acked?: { readonly rev: number; readonly succeeded: boolean }
  /** Revision where the verifier found it applied. */
  appliedAt?: number
}

interface History {
  readonly writes: Write[]
  readonly byValue: Map<string, Write>
  readonly ackedByRev: Map<number, Write>
  /** Highest acknowledged compaction. */
  ackedCompact: number
  /** Highest compaction ever sent (it may have been applied without an acknowledgement). */
  sentCompact: number
  /** Every revision up to here has been verified. */
  verifiedUpTo: number
}

function record(h: History, w: Write): void {
  h.writes.push(w)
  for (const eff of [w.success, w.failure]) {
    for (const v of eff?.values() ?? []) if (v !== null) h.byValue.set(v, w)
  }
}

function ack(h: History, w: Write, res: Record<string, unknown>, succeeded: boolean): void {
  const header = res['header'] as Record<string, unknown> | null | undefined
  const rev = Number(header?.['revision'])
  assert.ok(Number.isSafeInteger(rev) && rev > 1, `write ${w.id}: bad header revision ${String(header?.['revision'])}`)
  assert.equal(h.ackedByRev.get(rev), undefined, `two acknowledged writes at revision ${rev}`)
  w.acked = { rev, succeeded }
  h.ackedByRev.set(rev, w)
}

interface Snapshot {
  readonly kvs: Map<string, { value: string; mod: number }>
}

async function stateAt(c: RawClient, rev: number): Promise<Snapshot> {
  const res = await c.kv.Range({ key: b('\0'), range_end: b('\0'), revision: String(rev) })
  const kvs = new Map<string, { value: string; mod: number }>()
  for (const kv of res['kvs'] as Record<string, unknown>[]) {
    kvs.set((kv['key'] as Buffer).toString(), { value: (kv['value'] as Buffer).toString(), mod: Number(kv['mod_revision']) })
  }
  return { kvs }
}

async function currentRev(c: RawClient): Promise<number> {
  const res = await c.kv.Range({ key: b('health') })
  return Number((res['header'] as Record<string, unknown>)['revision'])
}

function diff(before: Snapshot, after: Snapshot): Effects {
  const d: Effects = new Map()
  for (const [k, v] of after.kvs) {
    const old = before.kvs.get(k)
    if (old === undefined || old.mod !== v.mod || old.value !== v.value) d.set(k, v.value)
  }
  for (const k of before.kvs.keys()) if (!after.kvs.has(k)) d.set(k, null)
  return d
}

/** Does revision diff `d` apply exactly the effects `e` (deletes of absent keys leave no trace)? */
function matches(d: Effects, e: Effects): boolean {
  for (const [k, v] of e) if (v !== null && d.get(k) !== v) return false
  for (const [k, v] of d) {
    if (!e.has(k)) return false
    if (v === null && e.get(k) !== null) return false
  }
  return true
}

const showEffects = (e: Effects | undefined): string => JSON.stringify(e === undefined ? null : [...e])

/** Verify every revision in (verifiedUpTo, current] and the acknowledged facts; returns the current revision. */
async function verify(c: RawClient, h: History, where: string): Promise<number> {
  const rev = await currentRev(c)
  const maxAcked = Math.max(0, ...h.ackedByRev.keys())
  assert.ok(rev >= maxAcked, `${where}: current revision ${rev} < acknowledged revision ${maxAcked} (acknowledged writes lost)`)
  if (h.ackedCompact > 1) {
    await assert.rejects(
      c.kv.Range({ key: b('\0'), range_end: b('\0'), revision: String(h.ackedCompact - 1) }),
      (e: unknown) => (e as { details?: string }).details === 'etcdserver: mvcc: required revision has been compacted',
      `${where}: acknowledged compaction at ${h.ackedCompact} was lost`,
    )
  }
  let prev = await stateAt(c, h.verifiedUpTo)
  for (let r = h.verifiedUpTo + 1; r <= rev; r++) {
    const cur = await stateAt(c, r)
    const d = diff(prev, cur)
    const at = `${where}: revision ${r}`
    const firstPut = [...d.values()].find((v): v is string => v !== null)
    assert.ok(firstPut !== undefined, `${at} changes nothing that any write could have (gap or empty revision): ${showEffects(d)}`)
    const w = h.byValue.get(firstPut)
    assert.ok(w !== undefined, `${at} holds a value no writer sent: ${firstPut}`)
    assert.equal(w.appliedAt, undefined, `${at}: write ${w.id} was already applied at revision ${String(w.appliedAt)}`)
    const okSuccess = matches(d, w.success)
    const okFailure = w.failure !== undefined && matches(d, w.failure)
    assert.ok(okSuccess || okFailure, `${at} is torn: ${showEffects(d)} vs write ${w.id} ${showEffects(w.success)} / ${showEffects(w.failure)}`)
    const acked = h.ackedByRev.get(r)
    if (acked !== undefined) assert.equal(acked.id, w.id, `${at}: acknowledged write ${acked.id} is not there (found ${w.id})`)
    if (w.acked !== undefined) {
      assert.equal(w.acked.rev, r, `${at}: write ${w.id} was acknowledged at revision ${w.acked.rev}`)
      assert.ok(w.acked.succeeded ? okSuccess : okFailure, `${at}: write ${w.id} applied the wrong branch`)
    }
    w.appliedAt = r
    prev = cur
  }
  h.verifiedUpTo = rev
  return rev
}

/**
 * Latest value per key: that of the key's last acknowledged write, or of a later write (one applied at a
 * higher revision, acknowledged or not); a key that is gone was deleted by one of those.
 */
async function verifyLatest(c: RawClient, h: History, rev: number): Promise<void> {
  const now = await stateAt(c, rev)
  const branch = (w: Write): Effects => (w.acked?.succeeded === false ? (w.failure ?? w.success) : w.success)
  const lastAcked = new Map<string, Write>()
  for (const w of h.writes) {
    if (w.acked === undefined) continue
    for (const k of branch(w).keys()) {
      const l = lastAcked.get(k)
      if (l?.acked === undefined || l.acked.rev < w.acked.rev) lastAcked.set(k, w)
    }
  }
  for (const [k, w] of lastAcked) {
    const ackedRev = w.acked?.rev ?? 0
    const want = branch(w).get(k)
    const got = now.kvs.get(k)
    if (got === undefined) {
      const deleter = h.writes.find((x) => x.appliedAt !== undefined && x.appliedAt >= ackedRev && [x.success, x.failure].some((e) => e?.get(k) === null))
      assert.ok(want === null || deleter !== undefined, `key ${k}: gone, but neither its last acknowledged write (${w.id} at ${ackedRev}) nor a later one deleted it`)
    } else if (got.mod === ackedRev) {
      assert.equal(got.value, want, `key ${k}: value at its last acknowledged revision ${ackedRev}`)
    } else {
      assert.ok(got.mod > ackedRev, `key ${k}: latest revision ${got.mod} is older than its last acknowledged write at ${ackedRev}`)
      const later = h.byValue.get(got.value)
      assert.ok(later?.appliedAt === got.mod, `key ${k}: value ${got.value} at ${got.mod} is not a later write`)
    }
  }
}

interface LoadResult {
  readonly killedAfterMs: number
  readonly acked: number
  readonly sent: number
}

/** 8 writers until SIGKILL after `killAfterMs`; records every write before sending and every ack. */
async function loadAndKill(server: CliProcess, h: History, r: Prng, cycle: number, killAfterMs: number): Promise<LoadResult> {
  let killed = false
  let sent = 0
  let acked = 0
  const failures: string[] = []
  let firstAck: () => void = () => undefined
  const loadFlowing = new Promise<void>((resolve) => (firstAck = resolve))
  // Only revisions already verified are compacted, so the next verification can read all the new ones.
  const compactAt = r.chance(0.5) && h.verifiedUpTo > h.sentCompact + 1 ? r.between(h.sentCompact + 1, h.verifiedUpTo) : 0
  const physical = r.chance(0.5)
  const writer = async (i: number, wr: Prng): Promise<void> => {
    const c = rawClient(server.endpoint)
    try {
      for (let seq = 0; !killed; seq++) {
        const v = (slot: string): string => `c${cycle}.w${i}.${seq}.${slot}`
        const own = (n: string): string => `w${i}/${n}`
        const kind = i === 0 && seq === 3 && compactAt > 0 ? 'compact' : wr.weighted<string>([[50, 'put'], [35, 'txn'], [15, 'txnDelete']])
        try {
          sent++
          if (kind === 'compact') {
            h.sentCompact = compactAt
            await c.kv.Compact({ revision: String(compactAt), physical })
            h.ackedCompact = Math.max(h.ackedCompact, compactAt)
          } else if (kind === 'put') {
            const key = wr.chance(0.2) ? wr.pick(SHARED_KEYS) : own(wr.pick(['a', 'b', 'c']))
            const w: Write = { id: `c${cycle}.w${i}.${seq}`, success: new Map([[key, v('p')]]), failure: undefined }
            record(h, w)
            const res = await c.kv.Put({ key: b(key), value: b(v('p')) })
            ack(h, w, res, true)
          } else if (kind === 'txn') {
            // then: two puts; else: one put (the compare fails only before the key's first put).
            const w: Write = {
              id: `c${cycle}.w${i}.${seq}`,
              success: new Map([[own('a'), v('s1')], [own('b'), v('s2')]]),
              failure: new Map([[own('a'), v('f1')]]),
            }
            record(h, w)
            const res = await c.kv.Txn({
              compare: [{ key: b(own('a')), target: 'VERSION', result: 'GREATER', version: '0' }],
              success: [{ request_put: { key: b(own('a')), value: b(v('s1')) } }, { request_put: { key: b(own('b')), value: b(v('s2')) } }],
              failure: [{ request_put: { key: b(own('a')), value: b(v('f1')) } }],
            })
            ack(h, w, res, res['succeeded'] === true)
          } else {
            const shared = wr.pick(SHARED_KEYS)
            const w: Write = { id: `c${cycle}.w${i}.${seq}`, success: new Map<string, string | null>([[own('c'), null], [shared, v('d')]]), failure: undefined }
            record(h, w)
            const res = await c.kv.Txn({
              success: [{ request_delete_range: { key: b(own('c')) } }, { request_put: { key: b(shared), value: b(v('d')) } }],
            })
            ack(h, w, res, true)
          }
          acked++
          firstAck()
        } catch (e) {
          // Only a failed call ends a writer quietly; a failed check (AssertionError) is a test failure.
          if (typeof (e as { code?: unknown }).code !== 'number') throw e
          if (!killed) failures.push(`writer ${i} op ${seq} (${kind}) failed before the kill: ${(e as Error).message}`)
          return
        }
      }
    } finally {
      c.close()
    }
  }
  const writers = Array.from({ length: WRITERS }, (_, i) => writer(i, new Prng(r.u32())))
  // Once writes are being acknowledged, the load runs for a random time (the point of the test), then the
  // server is killed mid-flight. A writer that fails before the kill ends the wait too.
  await Promise.race([loadFlowing, Promise.all(writers)])
  await delay(killAfterMs)
  const diedEarly = server.exit()
  killed = true
  await server.stop('SIGKILL')
  await Promise.all(writers)
  const why = `\nserver stderr:\n${server.stderr()}`
  assert.equal(diedEarly, undefined, `the server exited on its own during the load: ${JSON.stringify(diedEarly)}${why}`)
  assert.deepEqual(failures, [], `no request may fail while the server is up${why}`)
  assert.doesNotMatch(server.stderr(), SERVER_ERROR, `the server reported errors during the load${why}`)
  return { killedAfterMs: killAfterMs, acked, sent }
}

describe('crash safety of the etcdlite CLI under SIGKILL', () => {
  it(`${CYCLES} kill/restart cycles with 8 concurrent writers lose no acknowledged write (seed ${SEED})`, { timeout: 180_000 }, async (t) => {
    const dir = await tempDir('etcdlite-crash-')
    const r = new Prng(SEED)
    const h: History = { writes: [], byValue: new Map(), ackedByRev: new Map(), ackedCompact: 0, sentCompact: 0, verifiedUpTo: 1 }
    let server: CliProcess | undefined
    let c: RawClient | undefined
    let fromCheckpoint = 0
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        server = await spawnEtcdlite(['--data-dir', dir.path, ...CHECKPOINT_FLAGS])
        if (RESTORED_FROM_CHECKPOINT.test(server.stderr())) fromCheckpoint++
        c = rawClient(server.endpoint)
        try {
          await verify(c, h, `seed ${SEED} cycle ${cycle} (after restart)`)
        } finally {
          c.close()
        }
        assert.doesNotMatch(server.stderr(), SERVER_ERROR, `cycle ${cycle}: the server reported errors after restart:\n${server.stderr()}`)
        const res = await loadAndKill(server, h, r, cycle, r.between(50, 300))
        t.diagnostic(`cycle ${cycle}: killed ${res.killedAfterMs} ms after the first acknowledgement; ${res.acked}/${res.sent} acknowledged`)
        server = undefined
      }
      server = await spawnEtcdlite(['--data-dir', dir.path, ...CHECKPOINT_FLAGS])
      if (RESTORED_FROM_CHECKPOINT.test(server.stderr())) fromCheckpoint++
      c = rawClient(server.endpoint)
      const rev = await verify(c, h, `seed ${SEED} final restart`)
      await verifyLatest(c, h, rev)
      const ackedTotal = h.writes.filter((w) => w.acked !== undefined).length
      const applied = h.writes.filter((w) => w.appliedAt !== undefined).length
      t.diagnostic(`final revision ${rev}: ${h.writes.length} writes sent, ${ackedTotal} acknowledged, ${applied} applied, compacted at ${h.ackedCompact}`)
      t.diagnostic(`${fromCheckpoint} of ${CYCLES} starts after a crash read a background index checkpoint and replayed the log past it`)
      assert.ok(ackedTotal > 0, 'the load acknowledged nothing')
      assert.ok(fromCheckpoint > 0, 'no restart after a crash read a background index checkpoint')
      c.close()
      c = undefined
      assert.equal(await server.stop('SIGTERM'), 'SIGTERM', 'clean shutdown after the last check (ended by the signal, as etcd)')
    } finally {
      c?.close()
      await server?.stop('SIGKILL')
      await dir.remove()
    }
  })
})
