// Differential test of permission checks: seeded random roles (READ, WRITE, READWRITE over single keys,
// ranges, prefixes and from-key ranges, on a small alphabet with "", "\0", "\xff" and keys that touch each
// other), random users holding some of them, then random Range, Put, DeleteRange, Txn and Watch create calls
// as each user, sent to the real etcd and to etcdlite; the outcomes (ok, or the exact error) must match.
// The matrix in compliance/auth-matrix.ts covers the layouts one writes by hand; this one finds the edges
// between overlapping, adjacent and degenerate ranges. Replay a failure with DIFF_SEEDS=<seed>.
// Not sent: calls where etcd 3.4.23 has a bug etcdlite fixes (a from-key watch, a txn put with prev_kv or a
// lease, a nested txn; see compliance/auth.ts).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { PermissionType } from '../../src/etcdserver/types/auth.js'
import type { RequestOp, TxnRequest } from '../../src/etcdserver/types/kv.js'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { rawTestClient } from '../compliance/harness/adapters/raw.js'
import { ClientError, TEST_BCRYPT_COST, type EtcdTestClient } from '../compliance/harness/client.js'
import { watchCreate } from '../compliance/cases/auth-ops.js'
import { haveEtcd, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { Prng, seedsFromEnv } from '../helpers/prng.js'

const SEEDS = seedsFromEnv('DIFF_SEEDS', [1, 2, 3])
const CALLS_PER_USER = Number(process.env['DIFF_OPS'] ?? 60)
const skip = haveEtcd() ? false : 'the reference `etcd` binary is not on PATH'

/** Keys that sort next to each other in every way that matters to a byte range. */
const KEYS = ['\x00', 'a', 'a\x00', 'ab', 'b', 'b\x00', 'ba', 'c', 'z', '\xff', '\xff\xff'] as const
const TYPES: readonly PermissionType[] = ['READ', 'WRITE', 'READWRITE']
const ROLES = 5
const USERS = 4

const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))

/** The end of the prefix range of `key` ("\0" for a key of 0xff bytes only, as clientv3 computes it). */
function prefixEnd(key: string): string {
  const bs = [...Buffer.from(key, 'latin1')]
  while (bs.length > 0 && bs[bs.length - 1] === 0xff) bs.pop()
  const last = bs.pop()
  return last === undefined ? '\x00' : Buffer.from([...bs, last + 1]).toString('latin1')
}

/** A range end for `key`: none (the key), "\0" (from the key on), its prefix end, or another key of KEYS. */
function endFor(r: Prng, key: string, allowFromKey: boolean, allowBackwards: boolean): string | undefined {
  const kind = r.weighted<'single' | 'from' | 'prefix' | 'range'>([[3, 'single'], [allowFromKey ? 2 : 0, 'from'], [2, 'prefix'], [4, 'range']])
  if (kind === 'single') return undefined
  if (kind === 'from') return '\x00'
  if (kind === 'prefix') return prefixEnd(key)
  const later = KEYS.filter((k) => allowBackwards || k > key)
  return later.length === 0 ? undefined : r.pick(later)
}

interface Grant {
  readonly type: PermissionType
  readonly key: string
  readonly end: string
}

/** Random roles and users (user i holds a random subset of the roles). */
function layout(r: Prng): { roles: Grant[][]; users: number[][] } {
  const roles = Array.from({ length: ROLES }, () =>
    Array.from({ length: r.between(0, 4) }, (): Grant => {
      // A permission key may be "" too (etcd reads it as +infinity: the permission grants nothing).
      const key = r.chance(0.1) ? '' : r.pick(KEYS)
      return { type: r.pick(TYPES), key, end: endFor(r, key, true, false) ?? '' }
    }),
  )
  const users = Array.from({ length: USERS }, () => Array.from({ length: ROLES }, (_x, i) => i).filter(() => r.chance(0.5)))
  return { roles, users }
}

/** One random call: its description and how to make it on a client. */
function call(r: Prng): { what: string; run: (c: EtcdTestClient) => Promise<void> } {
  const key = r.pick(KEYS)
  const end = endFor(r, key, true, r.chance(0.1))
  const range = end === undefined ? { key: bytes(key) } : { key: bytes(key), rangeEnd: bytes(end) }
  const where = JSON.stringify(end === undefined ? [key] : [key, end])
  const op = (): RequestOp => {
    const k = r.pick(KEYS)
    const e = endFor(r, k, true, false)
    const rg = e === undefined ? { key: bytes(k) } : { key: bytes(k), rangeEnd: bytes(e) }
    return r.weighted<RequestOp>([
      [2, { type: 'range', request: rg }],
      [2, { type: 'put', request: { key: bytes(k), value: bytes('v') } }],
      [1, { type: 'deleteRange', request: { ...rg, prevKv: r.chance(0.5) } }],
    ])
  }
  switch (r.pick(['range', 'put', 'delete', 'txn', 'watch'] as const)) {
    case 'range':
      return { what: `range ${where}`, run: async (c) => void (await c.range(range)) }
    case 'put': {
      const prevKv = r.chance(0.4)
      return { what: `put ${JSON.stringify(key)}${prevKv ? ' prev_kv' : ''}`, run: async (c) => void (await c.put({ key: bytes(key), value: bytes('v'), prevKv })) }
    }
    case 'delete': {
      const prevKv = r.chance(0.4)
      return { what: `delete ${where}${prevKv ? ' prev_kv' : ''}`, run: async (c) => void (await c.deleteRange({ ...range, prevKv })) }
    }
    case 'txn': {
      const t: TxnRequest = {
        compare: r.chance(0.6) ? [{ ...range, target: 'VERSION', result: 'GREATER', version: -1 }] : [],
        success: Array.from({ length: r.between(0, 2) }, op),
        failure: Array.from({ length: r.between(0, 1) }, op),
      }
      return { what: `txn ${JSON.stringify(t, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v))}`, run: async (c) => void (await c.txn(t)) }
    }
    case 'watch': {
      // A from-key watch is checked as its first key by etcd 3.4.23 (GHSA-xg4h-6gfc-h4m8): not compared.
      const w = end === '\x00' ? { key: bytes(key) } : range
      return { what: `watch ${end === '\x00' ? JSON.stringify([key]) : where}`, run: (c) => watchCreate(c, w) }
    }
  }
}

async function outcome(p: Promise<void>): Promise<unknown> {
  try {
    await p
    return 'ok'
  } catch (e) {
    if (e instanceof ClientError) return { code: e.code, message: e.message }
    throw e
  }
}

/** Build the same auth state on one server, enable auth, and log every user in. */
async function prepare(c: EtcdTestClient, l: ReturnType<typeof layout>): Promise<EtcdTestClient[]> {
  await c.userAdd({ name: 'root', password: 'root' })
  await c.userGrantRole({ user: 'root', role: 'root' })
  for (const [i, grants] of l.roles.entries()) {
    await c.roleAdd({ name: `r${i}` })
    for (const g of grants) await c.roleGrantPermission({ name: `r${i}`, perm: { permType: g.type, key: bytes(g.key), rangeEnd: bytes(g.end) } })
  }
  for (const [i, roles] of l.users.entries()) {
    await c.userAdd({ name: `u${i}`, password: 'pw' })
    for (const role of roles) await c.userGrantRole({ user: `u${i}`, role: `r${role}` })
  }
  await c.authEnable()
  const users: EtcdTestClient[] = []
  for (let i = 0; i < l.users.length; i++) users.push((await c.login(`u${i}`, 'pw')).client)
  return users
}

async function runSeed(seed: number): Promise<number> {
  let ref: ServerProcess | undefined
  let ours: Etcd | undefined
  const clients: EtcdTestClient[] = []
  try {
    ;[ref, ours] = await Promise.all([startReferenceEtcd(['--bcrypt-cost', String(TEST_BCRYPT_COST)]), openEtcd({ memory: true, bcryptCost: TEST_BCRYPT_COST })])
    const { endpoint } = await ours.listen({ port: 0 })
    const sides = [rawTestClient(ref.endpoint, () => Promise.resolve()), rawTestClient(endpoint, () => Promise.resolve())] as const
    clients.push(...sides)
    const l = layout(new Prng(seed))
    const [refUsers, ourUsers]: EtcdTestClient[][] = await Promise.all(sides.map((s) => prepare(s, l)))
    if (refUsers === undefined || ourUsers === undefined) throw new Error('no users')
    clients.push(...refUsers, ...ourUsers)
    const r = new Prng(seed + 1_000_000)
    let calls = 0
    for (const [i, refUser] of refUsers.entries()) {
      const ourUser: EtcdTestClient | undefined = ourUsers[i]
      if (ourUser === undefined) throw new Error('user lists differ')
      for (let n = 0; n < CALLS_PER_USER; n++) {
        const c = call(r)
        const [want, got]: unknown[] = await Promise.all([outcome(c.run(refUser)), outcome(c.run(ourUser))])
        calls++
        assert.deepStrictEqual(got, want, `seed=${seed} user u${i} (roles ${JSON.stringify(l.users[i]?.map((x) => l.roles[x]))}): ${c.what}; replay with DIFF_SEEDS=${seed}`)
      }
    }
    return calls
  } finally {
    await Promise.all(clients.map((c) => c.close()))
    await Promise.all([ref?.dispose(), ours?.close()])
  }
}

describe('auth differential: random permissions and calls, etcdlite answers as etcd', { skip }, () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}`, async () => {
      const calls = await runSeed(seed)
      assert.equal(calls, USERS * CALLS_PER_USER)
    })
  }
})
