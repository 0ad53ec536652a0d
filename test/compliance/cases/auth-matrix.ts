// The permission matrix: principals (users whose roles grant READ, WRITE or READWRITE over one key, the
// range [a, c), the prefix p/ or every key from x on, a few combinations, root, and no credentials at all)
// times the operations of every service (auth-ops.ts); each cell expects 'ok' or etcd's exact error, as
// the model (auth-model.ts) derives it. A failing matrix lists every differing cell at once.
import type { PermissionType } from '../../../src/etcdserver/types/auth.js'
import type { Feature } from '../harness/client.js'
import { b, cmp, opDel, opPut, opRange, puts, type Case, type KvStep, type MatrixCell, type MatrixRow, type Step } from '../harness/case.js'
import { isRoot, rowCells, type Grant, type Op, type Principal, type RoleSpec, type UserSpec, type World } from './auth-model.js'
import {
  ADMIN_OPS, alarmGetOp, compactOp, deleteOp, leaseGrantOp, leaseKeepAliveOp, leaseLeasesOp, leaseRevokeOp, memberAddOp,
  memberListOp, moveLeaderOp, putOp, rangeOp, roleGetOp, SEED_KEYS, statusOp, txnOp, userGetOp, watchOp,
} from './auth-ops.js'

// The users

const rw = (type: PermissionType, key: string, end?: string): Grant => (end === undefined ? { type, key } : { type, key, end })
const one = (name: string, ...grants: Grant[]): UserSpec => ({ name, roles: [{ name: `${name}-role`, grants }] })
const SCOPES = [
  { scope: 'key', key: 'k', end: undefined },
  { scope: 'range', key: 'a', end: 'c' },
  { scope: 'prefix', key: 'p/', end: 'p0' },
  { scope: 'from', key: 'x', end: '\x00' },
] as const
const TYPES = [['r', 'READ'], ['w', 'WRITE'], ['rw', 'READWRITE']] as const

export const ROOT: UserSpec = { name: 'root', roles: [{ name: 'root', grants: [] }] }
/** Every user of the matrix: one per permission type and scope, then the combinations. */
export const USERS: readonly UserSpec[] = [
  ...SCOPES.flatMap(({ scope, key, end }) => TYPES.map(([t, type]) => one(`${t}-${scope}`, rw(type, key, end)))),
  one('none'),
  { name: 'split', roles: [{ name: 'split-1', grants: [rw('READWRITE', 'a', 'b')] }, { name: 'split-2', grants: [rw('READWRITE', 'b', 'c')] }] },
  one('gap', rw('READWRITE', 'a', 'b'), rw('READWRITE', 'b\x00', 'c')),
  one('mixed', rw('READ', 'a', 'c'), rw('WRITE', 'k')),
  // etcd reads a permission key "" as +infinity: this grants nothing (etcdctl sends "\0" for an empty key).
  one('empty-from', rw('READWRITE', '', '\x00')),
  one('all', rw('READWRITE', '\x00', '\x00')),
]

export const password = (u: UserSpec): string => `pw-${u.name}`

/** Create root and `users` with their roles, run `seed` (no auth yet), enable auth, log every user in. */
export function authSetup(users: readonly UserSpec[], seed: readonly Step[] = []): Step[] {
  const roles = [...new Map(users.flatMap((u) => u.roles).map((r) => [r.name, r])).values()]
  return [
    { userAdd: { name: 'root', password: password(ROOT) } },
    { userGrantRole: { user: 'root', role: 'root' } },
    ...roles.flatMap((r): Step[] => [
      { roleAdd: { name: r.name } },
      ...r.grants.map((g): Step => ({ roleGrantPermission: { name: r.name, perm: { permType: g.type, key: b(g.key), rangeEnd: b(g.end ?? '') } } })),
    ]),
    ...users.flatMap((u): Step[] => [
      { userAdd: { name: u.name, password: password(u) } },
      ...u.roles.map((r): Step => ({ userGrantRole: { user: u.name, role: r.name } })),
    ]),
    ...seed,
    { authEnable: true },
    { login: 'root', password: password(ROOT) },
    ...users.map((u): Step => ({ login: u.name, password: password(u) })),
  ]
}

/** The rows of every principal: each user, root, and no credentials (in that order). */
function rows(users: readonly UserSpec[], ops: readonly Op[], w: World): MatrixRow[] {
  return [
    ...users.map((u) => ({ as: u.name, cells: rowCells({ kind: 'user', user: u }, ops, w) })),
    { as: 'root', cells: rowCells({ kind: 'user', user: ROOT }, ops, w) },
    { cells: rowCells({ kind: 'anon' }, ops, w) },
  ]
}

const SEED = puts(...SEED_KEYS.map((k): [string, string] => [k, `v-${k}`]))
const freshWorld = (): World => ({ leases: new Map(), compacted: false })

/** A matrix case over every user: setup, then every principal runs `ops`. */
export function matrixCase(name: string, ops: readonly Op[]): Case {
  return { name: `permission matrix: ${name}`, requires: ['auth'], steps: [...authSetup(USERS, SEED), { matrix: rows(USERS, ops, freshWorld()) }] }
}

const RANGE_OPS: readonly Op[] = [
  ...['k', 'a', 'b', 'c', 'p/1', 'p', 'x', 'z', 'o', '\x00'].map((k) => rangeOp(k)),
  rangeOp('a', 'c'), rangeOp('a', 'b'), rangeOp('b', 'c'), rangeOp('a', 'd'), rangeOp('b', 'b\x00'),
  rangeOp('p/', 'p0'), rangeOp('p/1', 'p/2'), rangeOp('p/', 'q'),
  rangeOp('x', '\x00'), rangeOp('y', '\x00'), rangeOp('w', '\x00'), rangeOp('\x00', '\x00'),
]
const WRITE_OPS: readonly Op[] = [
  ...['k', 'a', 'b', 'c', 'p/1', 'p', 'x', 'z', 'o'].map((k) => putOp(k)),
  putOp('k', { prevKv: true }), putOp('a', { prevKv: true }), putOp('x', { prevKv: true }),
  deleteOp('k'), deleteOp('o'), deleteOp('a', 'c'), deleteOp('a', 'd'), deleteOp('p/', 'p0'), deleteOp('x', '\x00'),
  deleteOp('k', undefined, true), deleteOp('a', 'c', true), deleteOp('p/', 'p0', true),
]
const TXN_OPS: readonly Op[] = [
  txnOp('with nothing in it', {}),
  txnOp('compare "k"', { compare: [cmp('k', 'VERSION', 'GREATER', -1)] }),
  txnOp('compare [a, c)', { compare: [cmp('a', 'VERSION', 'GREATER', -1, 'c')] }),
  txnOp('compare [a, d)', { compare: [cmp('a', 'VERSION', 'GREATER', -1, 'd')] }),
  txnOp('success range [a, c)', { success: [opRange({ key: b('a'), rangeEnd: b('c') })] }),
  txnOp('success range from "x"', { success: [opRange({ key: b('x'), rangeEnd: b('\x00') })] }),
  txnOp('success put "k"', { success: [opPut('k', 'v')] }),
  txnOp('success delete prefix p/', { success: [opDel('p/', 'p0')] }),
  txnOp('success delete "k" prev_kv', { success: [opDel('k', undefined, { prevKv: true })] }),
  txnOp('failure put "a" (not taken)', { failure: [opPut('a', 'v')] }),
  txnOp('success range "k", failure put "o"', { success: [opRange({ key: b('k') })], failure: [opPut('o', 'v')] }),
  txnOp('compare "a", success put "k", failure delete prefix p/', {
    compare: [cmp('a', 'VERSION', 'GREATER', -1)], success: [opPut('k', 'v')], failure: [opDel('p/', 'p0')],
  }),
]
const WATCH_OPS: readonly Op[] = [
  ...['k', 'a', 'b', 'c', 'o', 'p/1', 'x'].map((k) => watchOp(k)),
  watchOp('a', 'c'), watchOp('a', 'd'), watchOp('p/', 'p0'), watchOp('p/1', 'p/2'), watchOp('p/', 'q'),
  // From-key watches only where etcd 3.4's point check on the first key and the real check agree (auth.ts).
  watchOp('x', '\x00'), watchOp('y', '\x00'), watchOp('\x00', '\x00'),
]
const maintenanceOps = (h: boolean): readonly Op[] => [statusOp(h), memberListOp(h), moveLeaderOp(h), alarmGetOp(h), compactOp]
/** The supports flag a case written for etcd's rules before (legacy) or after (hardened) the CVE-2026-33413 fix needs. */
const rules = (h: boolean): Feature => (h ? 'authHardened' : 'authLegacy')
const rulesLabel = (h: boolean): string => (h ? ' [after the CVE-2026-33413 hardening]' : ' [etcd 3.4.23]')

/** The ops whose need depends on who runs them (UserGet and RoleGet of oneself). */
function selfOps(u: UserSpec | undefined): Op[] {
  // Role root exists only as a name users hold: root gets another user's role instead.
  const role = u === undefined || isRoot(u) ? 'r-key-role' : (u.roles[0]?.name ?? 'r-key-role')
  return [userGetOp(u?.name ?? 'r-key'), userGetOp('r-range'), roleGetOp(role), roleGetOp('w-from-role')]
}

/**
 * The admin matrix: every principal runs the admin ops plus UserGet/RoleGet of itself and of others, and the
 * maintenance and cluster calls that need no permission (one server for both: setting up every user is what
 * costs time on the real etcd).
 */
function adminCase(h: boolean): Case {
  const w = freshWorld()
  const row = (p: Principal, u: UserSpec | undefined): MatrixCell[] => rowCells(p, [...selfOps(u), ...ADMIN_OPS, ...maintenanceOps(h)], w)
  return {
    name: `permission matrix: auth administration (root only; a user may get itself and its own roles); compaction, status, alarms, member list, move leader${rulesLabel(h)}`,
    requires: ['auth', 'maintenance', rules(h)],
    steps: [
      ...authSetup(USERS, SEED),
      {
        matrix: [
          ...USERS.map((u) => ({ as: u.name, cells: row({ kind: 'user', user: u }, u) })),
          { as: 'root', cells: row({ kind: 'user', user: ROOT }, ROOT) },
          { cells: row({ kind: 'anon' }, undefined) },
        ],
      },
    ],
  }
}

// Leases: each principal gets its own server (a key is attached to one lease at a time, so the rows would
// move each other's keys). Lease 1 holds nothing, 2 holds "k", 3 "a", 4 "o", 5 "y".
const L_EMPTY = 1n
const L_K = 2n
const L_A = 3n
const L_O = 4n
const L_Y = 5n
const LEASE_SEED: readonly Step[] = [
  ...[L_EMPTY, L_K, L_A, L_O, L_Y].map((id): Step => ({ leaseGrant: { id, ttl: 600 } })),
  ...([['k', L_K], ['a', L_A], ['o', L_O], ['y', L_Y]] as const).map(([key, lease]): Step => ({ put: { key: b(key), value: b('v'), lease } })),
]
const LEASE_USERS: readonly string[] = ['none', 'r-key', 'w-key', 'rw-key', 'w-range', 'rw-range', 'w-from', 'gap', 'mixed', 'all']
const leaseOps = (h: boolean): readonly Op[] => [
  leaseGrantOp(h), leaseLeasesOp(h), leaseKeepAliveOp(L_EMPTY, 'of an empty lease', h),
  putOp('k', { lease: L_K }), putOp('b', { lease: L_A }), putOp('y', { lease: L_Y }), putOp('k', { lease: L_O }),
  leaseRevokeOp(L_EMPTY, 'of an empty lease', h), leaseRevokeOp(L_K, 'of the lease of "k"', h), leaseRevokeOp(L_A, 'of the lease of "a"', h),
  leaseRevokeOp(L_O, 'of the lease of "o"', h), leaseRevokeOp(L_Y, 'of the lease of "y"', h),
]
function leaseCase(p: Principal, label: string, h: boolean): Case {
  const w: World = { leases: new Map([[L_EMPTY, new Set()], [L_K, new Set(['k'])], [L_A, new Set(['a'])], [L_O, new Set(['o'])], [L_Y, new Set(['y'])]]), compacted: false }
  const users = p.kind === 'user' && !isRoot(p.user) ? [p.user] : []
  const as = p.kind === 'user' ? { as: p.user.name } : {}
  return {
    name: `permission matrix: leases as ${label} (revoke and attach need write on every key of the lease)${rulesLabel(h)}`,
    requires: ['auth', 'lease', rules(h)],
    steps: [...authSetup(users, [...SEED, ...LEASE_SEED]), { matrix: [{ ...as, cells: rowCells(p, leaseOps(h), w) }] }],
  }
}

/** A garbage token: every call that reads the token fails, whatever it asks for; the others go on. */
function badTokenCase(enabled: boolean, h: boolean): Case {
  // With auth off, Status, MemberList, LeaseLeases and keep-alives do not read the token under either rules.
  const on = h && enabled
  const ops = [
    rangeOp('k'), rangeOp('a', 'c'), putOp('k'), deleteOp('k'), txnOp('with nothing in it', {}), txnOp('success put "k"', { success: [opPut('k', 'v')] }),
    watchOp('k'), compactOp, statusOp(on), memberListOp(on), moveLeaderOp(h), leaseGrantOp(h), leaseLeasesOp(on), leaseKeepAliveOp(L_EMPTY, 'of an empty lease', on),
    leaseRevokeOp(L_EMPTY, 'of an empty lease', h), userGetOp('r-key'), roleGetOp('r-key-role'), ...ADMIN_OPS,
  ]
  const w: World = { leases: new Map([[L_EMPTY, new Set()]]), compacted: false }
  const setup: Step[] = enabled ? authSetup([], [...SEED, { leaseGrant: { id: L_EMPTY, ttl: 600 } }]) : [...SEED, { leaseGrant: { id: L_EMPTY, ttl: 600 } }]
  return {
    name: (enabled
      ? 'permission matrix: a garbage token fails every call that reads the token with INVALID_AUTH_TOKEN'
      : 'a token sent while auth is disabled is still checked: a garbage one fails every call that reads it') + rulesLabel(h),
    requires: ['auth', 'authToken', 'lease', 'maintenance', rules(h)],
    steps: [...setup, { useToken: 'bogus.1', name: 'bad' }, { matrix: [{ as: 'bad', cells: rowCells({ kind: 'badToken' }, ops, w) }] }],
  }
}

export const MATRIX_CASES: readonly Case[] = [
  // One server for the KV calls: setting up every user is what costs time on the real etcd.
  matrixCase(
    'range; put and delete (prev_kv needs read as well); txn (every compare and the ops of both branches); watch create (a refusal is a canceled response)',
    [...RANGE_OPS, ...WRITE_OPS, ...TXN_OPS, ...WATCH_OPS],
  ),
  ...[false, true].map(adminCase),
  {
    name: 'permission matrix: member add needs root',
    requires: ['auth', 'memberAdd'],
    // Not as root: the real etcd would add the member and lose its quorum.
    steps: [...authSetup(USERS, SEED), {
      matrix: [...USERS.map((u) => ({ as: u.name, cells: rowCells({ kind: 'user', user: u }, [memberAddOp], freshWorld()) })), { cells: rowCells({ kind: 'anon' }, [memberAddOp], freshWorld()) }],
    }],
  },
  // Only users whose permissions touch the keys the leases hold (each lease case is a server of its own).
  ...[false, true].flatMap((h) => [
    ...USERS.filter((u) => LEASE_USERS.includes(u.name)).map((u) => leaseCase({ kind: 'user', user: u }, u.name, h)),
    leaseCase({ kind: 'user', user: ROOT }, 'root', h),
    leaseCase({ kind: 'anon' }, 'no credentials', h),
    badTokenCase(true, h),
    badTokenCase(false, h),
  ]),
]

// Builders for the auth cases

/** A user with these roles. */
export const user = (name: string, ...roles: RoleSpec[]): UserSpec => ({ name, roles })
/** A role with these grants. */
export const role = (name: string, ...grants: Grant[]): RoleSpec => ({ name, grants })
/** A KV step run as a principal. */
export const as = (principal: string, step: KvStep): Step => ({ as: principal, step })
export const get = (key: string): { readonly range: { readonly key: Uint8Array } } => ({ range: { key: b(key) } })
export const put = (key: string, value = 'v'): { readonly put: { readonly key: Uint8Array; readonly value: Uint8Array } } => ({ put: { key: b(key), value: b(value) } })
