// The operations of the permission matrix: each call, what it needs (auth-model.ts Need), what it answers
// when permitted, how it moves the model's world (lease keys, compaction) and how to make it on a client.
// Calls where etcd 3.4.23 has a bug fixed later (a txn put's prev_kv or lease, a nested txn, a from-key
// watch outside the first key, LeaseTimeToLive, the codes of maintenance refusals) are left out here:
// auth-fixes.ts covers each with a case marked with the fixing release.
import { inspect } from 'node:util'
import type { RequestOp, TxnRequest } from '../../../src/etcdserver/types/kv.js'
import type { WatchCreateRequest } from '../../../src/etcdserver/types/watch.js'
import type { EtcdTestClient } from '../harness/client.js'
import { b, ERR } from '../harness/case.js'
import { watchRefusal, type Need, type Op, type Req } from './auth-model.js'

const keyName = (key: string, end?: string): string =>
  end === undefined ? JSON.stringify(key) : end === '\x00' ? `from ${JSON.stringify(key)}` : `[${JSON.stringify(key)}, ${JSON.stringify(end)})`
const range = (key: string, end?: string): { key: Uint8Array; rangeEnd?: Uint8Array } =>
  end === undefined ? { key: b(key) } : { key: b(key), rangeEnd: b(end) }
const read = (key: string, end?: string): Req => (end === undefined ? { access: 'READ', key } : { access: 'READ', key, end })
const write = (key: string, end?: string): Req => (end === undefined ? { access: 'WRITE', key } : { access: 'WRITE', key, end })
const fixed = (need: Need) => (): Need => need
const kvNeed = (...reqs: Req[]): (() => Need) => fixed({ kind: 'kv', reqs })

/** The keys seeded before auth is enabled (inside and outside every granted range). */
export const SEED_KEYS = ['a', 'b', 'c', 'k', 'o', 'p/1', 'p/2', 'x', 'y', 'z'] as const

export const rangeOp = (key: string, end?: string): Op =>
  ({ name: `range ${keyName(key, end)}`, need: kvNeed(read(key, end)), run: async (c) => void (await c.range(range(key, end))) })

export function putOp(key: string, o: { readonly prevKv?: boolean; readonly lease?: bigint } = {}): Op {
  const lease = o.lease
  return {
    name: `put ${keyName(key)}${o.prevKv === true ? ' prev_kv' : ''}${lease === undefined ? '' : ` lease ${lease}`}`,
    need: (w) => ({
      kind: 'kv',
      reqs: [write(key), ...(lease === undefined ? [] : [...(w.leases.get(lease) ?? [])].map((k) => write(k))), ...(o.prevKv === true ? [read(key)] : [])],
    }),
    apply: (w) => {
      if (lease === undefined) return
      for (const keys of w.leases.values()) keys.delete(key)
      w.leases.get(lease)?.add(key)
    },
    run: async (c) => void (await c.put({ key: b(key), value: b('v'), ...(o.prevKv === true ? { prevKv: true } : {}), ...(lease === undefined ? {} : { lease }) })),
  }
}

export const deleteOp = (key: string, end?: string, prevKv = false): Op => ({
  name: `delete ${keyName(key, end)}${prevKv ? ' prev_kv' : ''}`,
  need: kvNeed(write(key, end), ...(prevKv ? [read(key, end)] : [])),
  run: async (c) => void (await c.deleteRange({ ...range(key, end), ...(prevKv ? { prevKv: true } : {}) })),
})

/** The checks a txn op needs (etcd's checkTxnReqsPermission: a put needs write only, even with prev_kv). */
function opReqs(op: RequestOp): Req[] {
  switch (op.type) {
    case 'range': return [read(String.fromCharCode(...op.request.key), op.request.rangeEnd === undefined ? undefined : String.fromCharCode(...op.request.rangeEnd))]
    case 'put': return [write(String.fromCharCode(...op.request.key))]
    case 'deleteRange': {
      const key = String.fromCharCode(...op.request.key)
      const end = op.request.rangeEnd === undefined ? undefined : String.fromCharCode(...op.request.rangeEnd)
      return [write(key, end), ...(op.request.prevKv === true ? [read(key, end)] : [])]
    }
    case 'txn': throw new Error('nested txns are not in the matrix (etcd 3.4 does not check them)')
    case 'empty': return []
  }
}

export function txnOp(name: string, t: TxnRequest): Op {
  const reqs = [
    ...(t.compare ?? []).map((c) => read(String.fromCharCode(...c.key), c.rangeEnd === undefined ? undefined : String.fromCharCode(...c.rangeEnd))),
    ...(t.success ?? []).flatMap(opReqs),
    ...(t.failure ?? []).flatMap(opReqs),
  ]
  return { name: `txn ${name}`, need: kvNeed(...reqs), run: async (c) => void (await c.txn(t)) }
}

/** How long a watch cell waits for its created (or refused) response; it only bounds a failing cell. */
const WATCH_TIMEOUT_MS = 5000

/** Create one watcher on a fresh stream: ok when created, the refusal (as ClientError) when canceled. */
export async function watchCreate(c: EtcdTestClient, request: WatchCreateRequest): Promise<void> {
  const s = c.watch()
  try {
    s.send({ type: 'create', request })
    const r = await s.next(WATCH_TIMEOUT_MS)
    if (r.canceled) throw watchRefusal(r.cancelReason)
    if (!r.created || r.watchId < 0) throw new Error(`not a created response: ${inspect(r)}`)
  } finally {
    s.close()
  }
}

export const watchOp = (key: string, end?: string): Op =>
  ({ name: `watch ${keyName(key, end)}`, need: kvNeed(read(key, end)), run: (c) => watchCreate(c, range(key, end)) })

export const compactOp: Op = {
  name: 'compact revision 1',
  need: fixed({ kind: 'token' }),
  allowed: (w) => (w.compacted ? ERR.compacted : 'ok'),
  apply: (w) => void (w.compacted = true),
  run: async (c) => void (await c.compact({ revision: 1 })),
}

// `hardened`: the rules after etcd's CVE-2026-33413 fix (supports.authHardened), else 3.4.23's.

// Leases: the model knows which keys each holds.
export const leaseRevokeOp = (id: bigint, label: string, hardened: boolean): Op => ({
  name: `lease revoke ${label}`,
  need: (w) => ({ kind: 'kv', reqs: [...(w.leases.get(id) ?? [])].map((k) => write(k)), user: hardened }),
  allowed: (w) => (w.leases.has(id) ? 'ok' : ERR.leaseNotFound),
  apply: (w) => void w.leases.delete(id),
  run: async (c) => void (await c.leaseRevoke({ id })),
})
/** LeaseGrant reads the token in either case (it goes through raft). */
export const leaseGrantOp = (hardened: boolean): Op =>
  ({ name: 'lease grant', need: fixed({ kind: hardened ? 'user' : 'token' }), run: async (c) => void (await c.leaseGrant({ ttl: 600 })) })
/** `hardened` only with auth on: with auth off the token of these calls is not read either way. */
export const leaseLeasesOp = (hardened: boolean): Op =>
  ({ name: 'lease leases', need: fixed({ kind: hardened ? 'user' : 'none' }), run: async (c) => void (await c.leaseLeases()) })
export const leaseKeepAliveOp = (id: bigint, label: string, hardened: boolean): Op =>
  ({ name: `lease keep-alive ${label}`, need: fixed({ kind: hardened ? 'user' : 'none' }), run: async (c) => void (await c.leaseKeepAlive([{ id }])) })

// Maintenance and Cluster.
export const statusOp = (hardened: boolean): Op =>
  ({ name: 'status', need: fixed({ kind: hardened ? 'user' : 'none' }), run: async (c) => void (await c.status()) })
export const memberListOp = (hardened: boolean): Op =>
  ({ name: 'member list', need: fixed({ kind: hardened ? 'user' : 'none' }), run: async (c) => void (await c.memberList()) })
export const moveLeaderOp = (hardened: boolean): Op => ({
  name: 'move leader to an unknown member',
  need: fixed({ kind: hardened ? 'admin' : 'none' }),
  allowed: () => ERR.badLeaderTransferee,
  run: async (c) => void (await c.moveLeader({ targetId: 12345n })),
})
export const alarmGetOp = (hardened: boolean): Op => ({
  name: 'alarm get',
  need: fixed({ kind: hardened ? 'user' : 'token' }),
  run: async (c) => void (await c.alarm({ action: 'GET', memberId: 0n, alarm: 'NONE' })),
})
export const memberAddOp: Op = {
  name: 'member add',
  need: fixed({ kind: 'admin' }),
  run: async (c) => void (await c.memberAdd({ peerUrls: ['http://127.0.0.1:1'] })),
}

// Auth administration, on a throwaway user and role ('m-new') that root creates and removes again.
const admin = (name: string, run: (c: EtcdTestClient) => Promise<unknown>): Op =>
  ({ name, need: fixed({ kind: 'admin' }), run: async (c) => void (await run(c)) })
export const ADMIN_OPS: readonly Op[] = [
  admin('user list', (c) => c.userList()),
  admin('role list', (c) => c.roleList()),
  admin('auth enable (already on)', (c) => c.authEnable()),
  admin('user add m-new', (c) => c.userAdd({ name: 'm-new', password: 'pw' })),
  admin('role add m-new', (c) => c.roleAdd({ name: 'm-new' })),
  admin('user grant role m-new', (c) => c.userGrantRole({ user: 'm-new', role: 'm-new' })),
  admin('role grant permission m-new', (c) => c.roleGrantPermission({ name: 'm-new', perm: { permType: 'READ', key: b('m'), rangeEnd: b('') } })),
  admin('role revoke permission m-new', (c) => c.roleRevokePermission({ role: 'm-new', key: b('m'), rangeEnd: b('') })),
  admin('user revoke role m-new', (c) => c.userRevokeRole({ name: 'm-new', role: 'm-new' })),
  admin('user change password m-new', (c) => c.userChangePassword({ name: 'm-new', password: 'pw2' })),
  admin('user delete m-new', (c) => c.userDelete({ name: 'm-new' })),
  admin('role delete m-new', (c) => c.roleDelete({ role: 'm-new' })),
]
export const userGetOp = (name: string): Op =>
  ({ name: `user get ${name}`, need: fixed({ kind: 'userGet', user: name }), run: async (c) => void (await c.userGet({ name })) })
export const roleGetOp = (role: string): Op =>
  ({ name: `role get ${role}`, need: fixed({ kind: 'roleGet', role }), run: async (c) => void (await c.roleGet({ role })) })
