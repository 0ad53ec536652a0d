// The compliance suite: one set of cases, run over every front end (Level's suite({ test, factory }) plus
// a supports manifest; etcd's tests/common over a Client). Each case gets a fresh server and closes it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ResponseHeader } from '../../../src/etcdserver/types/header.js'
import { ClientError, type Adapter, type EtcdTestClient } from './client.js'
import { FRESH_RAFT_TERM, type Case, type KvStep, type Step, type WantError } from './case.js'
import { KV_CASES } from '../cases/kv.js'
import { KV_WRITE_CASES } from '../cases/kv-write.js'
import { TXN_CASES } from '../cases/txn.js'
import { TXN_RULE_CASES } from '../cases/txn-rules.js'
import { WATCH_CASES } from '../cases/watch.js'
import { isWatchStep, WatchSession } from './watch-steps.js'
import { CallSession, isCallStep } from './call-steps.js'
import { LEASE_CASES } from '../cases/lease.js'
import { MAINTENANCE_CASES } from '../cases/maintenance.js'
import { DOWNGRADE_CASES } from '../cases/downgrade.js'
// Auth
import { AUTH_CASES } from '../cases/auth.js'
import { AuthSession, isAuthStep } from './auth-steps.js'

/** Every case, grouped as the report shows them. */
export const GROUPS: ReadonlyArray<readonly [string, readonly Case[]]> = [
  ['range', KV_CASES],
  ['put, delete, compact, headers', KV_WRITE_CASES],
  ['txn', TXN_CASES],
  ['txn request rules', TXN_RULE_CASES],
  ['watch', WATCH_CASES],
  ['lease', LEASE_CASES],
  ['maintenance', MAINTENANCE_CASES],
  ['downgrade', DOWNGRADE_CASES],
  // Auth
  ['auth', AUTH_CASES],
]

/** Bytes -> latin1 strings, drop undefined fields, plain objects only: what deepStrictEqual compares. */
export function view(x: unknown): unknown {
  if (x instanceof Uint8Array) return Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('latin1')
  if (Array.isArray(x)) return x.map(view)
  if (typeof x === 'object' && x !== null) {
    const o: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(x)) if (v !== undefined) o[k] = view(v)
    return o
  }
  return x
}

/** Checks every outer header against the first one seen by the case: one member, one cluster, one term. */
class HeaderIdentity {
  private first: ResponseHeader | undefined
  check(h: ResponseHeader, where: string): void {
    assert.notEqual(h.clusterId, 0n, `${where}: cluster_id is 0`)
    assert.notEqual(h.memberId, 0n, `${where}: member_id is 0`)
    assert.equal(h.raftTerm, FRESH_RAFT_TERM, `${where}: raft_term`)
    this.first ??= h
    assert.deepEqual([h.clusterId, h.memberId, h.raftTerm], [this.first.clusterId, this.first.memberId, this.first.raftTerm], `${where}: header identity changed`)
  }
}

type Outcome = { readonly ok: unknown } | { readonly err: WantError }

async function outcome(p: Promise<{ readonly header: ResponseHeader }>, ids: HeaderIdentity, where: string): Promise<Outcome> {
  let resp: { readonly header: ResponseHeader }
  try {
    resp = await p
  } catch (e) {
    if (e instanceof ClientError) return { err: { code: e.code, message: e.message } }
    throw e
  }
  ids.check(resp.header, where)
  const { header, ...rest } = resp
  return { ok: { ...(view(rest) as object), rev: header.revision } }
}

function send(c: EtcdTestClient, s: KvStep): { name: string; p: Promise<{ readonly header: ResponseHeader }> } {
  if ('range' in s) return { name: 'range', p: c.range(s.range) }
  if ('put' in s) return { name: 'put', p: c.put(s.put) }
  if ('deleteRange' in s) return { name: 'deleteRange', p: c.deleteRange(s.deleteRange) }
  if ('txn' in s) return { name: 'txn', p: c.txn(s.txn) }
  return { name: 'compact', p: c.compact(s.compact) }
}

/**
 * Run the steps in order; the first mismatch fails the case and names the step. Watch streams the steps
 * open are closed at the end, and must not hold responses that no step expected.
 */
export async function runSteps(c: EtcdTestClient, steps: readonly Step[]): Promise<void> {
  const ids = new HeaderIdentity()
  const watches = new WatchSession(c, view, (h, where) => ids.check(h, where))
  const calls = new CallSession(c, view, (h, where) => ids.check(h, where))
  // Auth
  const auth = new AuthSession(c, view, (h, where) => ids.check(h, where), (client, s, where) => runKvStep(client, s, ids, where))
  try {
    for (const [i, s] of steps.entries()) {
      // Auth
      if (isAuthStep(s)) {
        await auth.run(s, `step ${i + 1}`)
        continue
      }
      if (isWatchStep(s)) {
        await watches.run(s, `step ${i + 1} (watch stream ${s.stream})`)
        continue
      }
      if (isCallStep(s)) {
        await calls.run(s, `step ${i + 1}`)
        continue
      }
      const { name, p } = send(c, s)
      const where = `step ${i + 1} (${name})`
      const got = await outcome(p, ids, where)
      if (s.err !== undefined) assert.deepStrictEqual(got, { err: s.err }, `${where}: want error`)
      else if (s.want !== undefined) assert.deepStrictEqual(got, { ok: s.want }, `${where}: want response`)
      else if ('err' in got) assert.fail(`${where}: seed step failed: ${got.err.code} ${got.err.message}`)
    }
    watches.assertDrained()
    // Auth
    auth.assertDrained()
  } finally {
    watches.close()
    // Auth
    await auth.close()
  }
}

/** One KV step on `c` (a principal's client), checked exactly as runSteps checks one on the case's client. */
async function runKvStep(c: EtcdTestClient, s: KvStep, ids: HeaderIdentity, where: string): Promise<void> {
  const { name, p } = send(c, s)
  const at = `${where} (${name})`
  const got = await outcome(p, ids, at)
  if (s.err !== undefined) assert.deepStrictEqual(got, { err: s.err }, `${at}: want error`)
  else if (s.want !== undefined) assert.deepStrictEqual(got, { ok: s.want }, `${at}: want response`)
  else if ('err' in got) assert.fail(`${at}: seed step failed: ${got.err.code} ${got.err.message}`)
}

/** a < b for dotted release numbers ("3.4.23" < "3.4.25"). */
function olderThan(a: string, b: string): boolean {
  const x = a.split('.').map(Number)
  const y = b.split('.').map(Number)
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0)
    if (d !== 0) return d < 0
  }
  return false
}

/** Why this adapter skips the case, or undefined. */
function skipReason(opts: Adapter, c: Case): string | undefined {
  const missing = (c.requires ?? []).filter((f) => !opts.supports[f])
  if (missing.length > 0) return `${opts.name} does not support ${missing.join(', ')}`
  // Auth
  if (c.deviation !== undefined && opts.oracle === true) return `a deliberate etcdlite deviation: ${c.deviation}`
  const v = opts.etcdVersion
  if (c.fixedIn !== undefined && v !== undefined && olderThan(v, c.fixedIn.version)) {
    return `etcd ${v} predates ${c.fixedIn.version}: ${c.fixedIn.why}`
  }
  return undefined
}

export interface SuiteOptions extends Adapter {
  /** Run only these groups/cases (for debugging); default all. */
  readonly groups?: ReadonlyArray<readonly [string, readonly Case[]]>
}

/** Register the whole suite for one adapter with node:test. */
export function runComplianceSuite(opts: SuiteOptions): void {
  const { name, factory } = opts
  // Groups run one after another; the cases inside a group run up to `concurrency` at once.
  describe(`compliance: ${name}`, opts.skip === undefined ? {} : { skip: opts.skip }, () => {
    for (const [group, cases] of opts.groups ?? GROUPS) {
      describe(group, { concurrency: opts.concurrency ?? 1 }, () => {
        for (const c of cases) {
          const skip = skipReason(opts, c)
          const todo = opts.oracle === true ? undefined : c.todo
          it(c.name, { ...(skip === undefined ? {} : { skip }), ...(todo === undefined ? {} : { todo }) }, async () => {
            const client = await factory(c.server)
            try {
              await runSteps(client, c.steps)
            } finally {
              await client.close()
            }
          })
        }
      })
    }
  })
}
