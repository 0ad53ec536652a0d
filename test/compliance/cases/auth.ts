// Auth cases: the Auth service's own rules and errors (enable and disable, users, roles, permissions, root
// protection, passwords, who may get what), then the permission matrix (auth-matrix.ts), changes that take
// effect at once for live tokens and open watch streams and token expiry (auth-live.ts), and the calls
// where etcd 3.4.23 is wrong (auth-fixes.ts). Expectations follow etcd 3.4 auth/store.go,
// auth/simple_token.go, etcdserver/apply_auth.go, etcdserver/v3_server.go and v3rpc/watch.go, checked
// against etcd 3.4.23; AuthStatus follows etcd 3.5 (3.4 has none).
import type { Permission } from '../../../src/etcdserver/types/auth.js'
import { b, kv, puts, type Case, type Step } from '../harness/case.js'
import { AUTH_ERR } from './auth-model.js'
import { as, authSetup, get, MATRIX_CASES, password, role, ROOT, user } from './auth-matrix.js'
import { LIVE_CASES } from './auth-live.js'
import { FIXED_CASES } from './auth-fixes.js'
import { nonEmptyString, type Loose } from '../harness/match.js'

// Builders

const done = (rev = 1): { readonly want: { readonly rev: number } } => ({ want: { rev } })
/** A permission as RoleGet answers it (bytes as latin1 strings). */
const perm = (permType: Permission['permType'], key: string, rangeEnd = ''): Loose<Permission> => ({ permType, key, rangeEnd })
const ROOT_PW = password(ROOT)

// The Auth service

const ENABLE_CASES: readonly Case[] = [
  {
    name: 'auth enable needs user root holding role root; once on, enabling again needs root and changes nothing',
    steps: [
      { authEnable: true, err: AUTH_ERR.rootUserNotExist },
      { userAdd: { name: 'root', password: ROOT_PW }, ...done() },
      { authEnable: true, err: AUTH_ERR.rootRoleNotExist },
      { userGrantRole: { user: 'root', role: 'root' }, ...done() },
      { authEnable: true, ...done() },
      { authEnable: true, err: AUTH_ERR.userEmpty },
      { login: 'root', password: ROOT_PW },
      { as: 'root', authEnable: true, ...done() },
    ],
  },
  {
    name: 'role root need not exist: granting it works, but role get and role list know it only once added',
    steps: [
      { userAdd: { name: 'root', password: ROOT_PW } },
      { userGrantRole: { user: 'root', role: 'root' }, ...done() },
      { userGet: { name: 'root' }, want: { roles: ['root'], rev: 1 } },
      { roleGet: { role: 'root' }, err: AUTH_ERR.roleNotFound },
      { roleList: true, want: { roles: [], rev: 1 } },
      { roleAdd: { name: 'root' }, ...done() },
      { roleList: true, want: { roles: ['root'], rev: 1 } },
      { roleGet: { role: 'root' }, want: { perm: [], rev: 1 } },
    ],
  },
  {
    name: 'auth disable needs root; it ends every token, also across enabling again; without a token everything works while it is off',
    requires: ['authToken'],
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'READWRITE', key: 'k' }))], puts(['k', 'v'])),
      { authDisable: true, err: AUTH_ERR.userEmpty },
      { as: 'alice', authDisable: true, err: AUTH_ERR.denied },
      { as: 'root', authDisable: true, ...done(2) },
      as('alice', { ...get('k'), err: AUTH_ERR.invalidToken }),
      as('root', { ...get('k'), err: AUTH_ERR.invalidToken }),
      { range: { key: b('k') }, want: { kvs: [kv('k', 'v', 2, 2, 1)], more: false, count: 1, rev: 2 } },
      { userList: true, want: { users: ['alice', 'root'], rev: 2 } },
      { authDisable: true, ...done(2) },
      { authEnable: true, ...done(2) },
      as('root', { ...get('k'), err: AUTH_ERR.invalidToken }),
      { login: 'root', password: ROOT_PW, name: 'root-again' },
      as('root-again', { range: { key: b('k') }, want: { kvs: [kv('k', 'v', 2, 2, 1)], more: false, count: 1, rev: 2 } }),
    ],
  },
  {
    // AuthStatus goes through the applier as an admin request (etcd 3.5); AuthEnable does not bump the auth
    // revision, every other change (AuthDisable included) does; a fresh store is at auth revision 1.
    name: 'auth status: whether auth is on and the auth revision, for root only once auth is on',
    requires: ['authStatus'],
    steps: [
      { authStatus: true, want: { enabled: false, authRevision: 1, rev: 1 } },
      { userAdd: { name: 'root', password: ROOT_PW } },
      { userGrantRole: { user: 'root', role: 'root' } },
      { userGrantRole: { user: 'root', role: 'root' } },
      { authStatus: true, want: { enabled: false, authRevision: 3, rev: 1 } },
      { userAdd: { name: 'alice', password: 'pw' } },
      { authEnable: true },
      { authStatus: true, err: AUTH_ERR.userEmpty },
      { login: 'root', password: ROOT_PW },
      { login: 'alice', password: 'pw' },
      { as: 'root', authStatus: true, want: { enabled: true, authRevision: 4, rev: 1 } },
      { as: 'alice', authStatus: true, err: AUTH_ERR.denied },
      { as: 'root', authDisable: true },
      { authStatus: true, want: { enabled: false, authRevision: 5, rev: 1 } },
    ],
  },
]

const USER_ROLE_CASES: readonly Case[] = [
  {
    name: 'user add: an empty name fails, and so does a name that exists (with or without a password)',
    steps: [
      { userAdd: { name: '', password: 'pw' }, err: AUTH_ERR.userNameEmpty },
      { userAdd: { name: 'u', password: 'pw' }, ...done() },
      { userAdd: { name: 'u', password: 'other' }, err: AUTH_ERR.userExists },
      { userAdd: { name: 'u', password: '', options: { noPassword: true } }, err: AUTH_ERR.userExists },
      { userList: true, want: { users: ['u'], rev: 1 } },
    ],
  },
  {
    name: 'role add: an empty name fails, and so does a name that exists',
    steps: [
      { roleAdd: { name: '' }, err: AUTH_ERR.roleNameEmpty },
      { roleAdd: { name: 'r' }, ...done() },
      { roleAdd: { name: 'r' }, err: AUTH_ERR.roleExists },
      { roleList: true, want: { roles: ['r'], rev: 1 } },
    ],
  },
  {
    name: 'unknown users and roles: get, delete, change password, grant and revoke fail with not found',
    steps: [
      { userAdd: { name: 'u', password: 'pw' } },
      { roleAdd: { name: 'r' } },
      { userGet: { name: 'zz' }, err: AUTH_ERR.userNotFound },
      { userDelete: { name: 'zz' }, err: AUTH_ERR.userNotFound },
      { userChangePassword: { name: 'zz', password: 'x' }, err: AUTH_ERR.userNotFound },
      { userGrantRole: { user: 'zz', role: 'r' }, err: AUTH_ERR.userNotFound },
      { userGrantRole: { user: 'u', role: 'zz' }, err: AUTH_ERR.roleNotFound },
      { userRevokeRole: { name: 'zz', role: 'r' }, err: AUTH_ERR.userNotFound },
      // Revoking looks the role up in the user only.
      { userRevokeRole: { name: 'u', role: 'zz' }, err: AUTH_ERR.roleNotGranted },
      { roleGet: { role: 'zz' }, err: AUTH_ERR.roleNotFound },
      { roleDelete: { role: 'zz' }, err: AUTH_ERR.roleNotFound },
      { roleGrantPermission: { name: 'zz', perm: { permType: 'READ', key: b('a'), rangeEnd: b('') } }, err: AUTH_ERR.roleNotFound },
      { roleRevokePermission: { role: 'zz', key: b('a'), rangeEnd: b('') }, err: AUTH_ERR.roleNotFound },
    ],
  },
  {
    name: 'revoking a role that is not granted, or a permission the role does not have (same key, other end), fails',
    steps: [
      { roleAdd: { name: 'r' } },
      { roleGrantPermission: { name: 'r', perm: { permType: 'READ', key: b('a'), rangeEnd: b('c') } } },
      { userAdd: { name: 'u', password: 'pw' } },
      { userRevokeRole: { name: 'u', role: 'r' }, err: AUTH_ERR.roleNotGranted },
      { roleRevokePermission: { role: 'r', key: b('a'), rangeEnd: b('') }, err: AUTH_ERR.permNotGranted },
      { roleRevokePermission: { role: 'r', key: b('a'), rangeEnd: b('b') }, err: AUTH_ERR.permNotGranted },
      { roleRevokePermission: { role: 'r', key: b('a'), rangeEnd: b('c') }, ...done() },
      { roleRevokePermission: { role: 'r', key: b('a'), rangeEnd: b('c') }, err: AUTH_ERR.permNotGranted },
      { roleGet: { role: 'r' }, want: { perm: [], rev: 1 } },
    ],
  },
  {
    name: "a user's roles stay sorted; granting a role twice keeps one",
    steps: [
      ...['zeta', 'alpha', 'mid'].map((r): Step => ({ roleAdd: { name: r } })),
      { userAdd: { name: 'u', password: 'pw' } },
      ...['zeta', 'alpha', 'mid', 'alpha'].map((r): Step => ({ userGrantRole: { user: 'u', role: r }, ...done() })),
      { userGet: { name: 'u' }, want: { roles: ['alpha', 'mid', 'zeta'], rev: 1 } },
      { userRevokeRole: { name: 'u', role: 'mid' }, ...done() },
      { userGet: { name: 'u' }, want: { roles: ['alpha', 'zeta'], rev: 1 } },
    ],
  },
  {
    name: 'deleting a role takes it away from every user that held it',
    steps: [
      { roleAdd: { name: 'r' } },
      { roleAdd: { name: 's' } },
      { userAdd: { name: 'u', password: 'pw' } },
      { userAdd: { name: 'v', password: 'pw' } },
      { userGrantRole: { user: 'u', role: 'r' } },
      { userGrantRole: { user: 'u', role: 's' } },
      { userGrantRole: { user: 'v', role: 'r' } },
      { roleDelete: { role: 'r' }, ...done() },
      { userGet: { name: 'u' }, want: { roles: ['s'], rev: 1 } },
      { userGet: { name: 'v' }, want: { roles: [], rev: 1 } },
      { roleList: true, want: { roles: ['s'], rev: 1 } },
    ],
  },
  {
    name: 'user list and role list are sorted by name, byte by byte',
    steps: [
      ...['b', 'a', 'B', 'a-b'].map((u): Step => ({ userAdd: { name: u, password: 'pw' } })),
      ...['y', 'X', 'x'].map((r): Step => ({ roleAdd: { name: r } })),
      { userList: true, want: { users: ['B', 'a', 'a-b', 'b'], rev: 1 } },
      { roleList: true, want: { roles: ['X', 'x', 'y'], rev: 1 } },
    ],
  },
  {
    name: 'role get lists permissions by key; the same key and end again changes the type in place; another end of a key comes after it',
    steps: [
      { roleAdd: { name: 'r' } },
      ...([['READ', 'c', 'd'], ['WRITE', 'a', ''], ['READWRITE', 'a', 'b'], ['READWRITE', 'c', 'd'], ['READ', 'x', '\x00'], ['READ', '', '']] as const)
        .map(([permType, key, end]): Step => ({ roleGrantPermission: { name: 'r', perm: { permType, key: b(key), rangeEnd: b(end) } }, ...done() })),
      {
        roleGet: { role: 'r' },
        want: { perm: [perm('READ', ''), perm('WRITE', 'a'), perm('READWRITE', 'a', 'b'), perm('READWRITE', 'c', 'd'), perm('READ', 'x', '\x00')], rev: 1 },
      },
    ],
  },
  {
    name: 'with auth on, root can be neither deleted nor stripped of role root, and role root cannot be deleted',
    steps: [
      ...authSetup([]),
      { as: 'root', userDelete: { name: 'root' }, err: AUTH_ERR.invalidMgmt },
      { as: 'root', userRevokeRole: { name: 'root', role: 'root' }, err: AUTH_ERR.invalidMgmt },
      // Refused before the role is even looked up (it does not exist here).
      { as: 'root', roleDelete: { role: 'root' }, err: AUTH_ERR.invalidMgmt },
      { as: 'root', userGet: { name: 'root' }, want: { roles: ['root'], rev: 1 } },
    ],
  },
  {
    name: 'with auth off, root is an ordinary user: it can lose role root and be deleted, and role root deleted',
    steps: [
      { userAdd: { name: 'root', password: ROOT_PW } },
      { userGrantRole: { user: 'root', role: 'root' } },
      { roleDelete: { role: 'root' }, err: AUTH_ERR.roleNotFound },
      { roleAdd: { name: 'root' } },
      { userRevokeRole: { name: 'root', role: 'root' }, ...done() },
      { userGet: { name: 'root' }, want: { roles: [], rev: 1 } },
      { roleDelete: { role: 'root' }, ...done() },
      { userDelete: { name: 'root' }, ...done() },
      { userList: true, want: { users: [], rev: 1 } },
    ],
  },
]

// Authentication

const AUTHENTICATE_CASES: readonly Case[] = [
  {
    name: 'authenticate fails with AUTH_FAILED for a wrong password, an unknown user or an empty name; an empty password is a password',
    steps: [
      { userAdd: { name: 'ep', password: '' } },
      ...authSetup([user('u')]),
      { authenticate: { name: 'u', password: 'nope' }, err: AUTH_ERR.authFailed },
      { authenticate: { name: 'zz', password: 'nope' }, err: AUTH_ERR.authFailed },
      { authenticate: { name: '', password: '' }, err: AUTH_ERR.authFailed },
      { authenticate: { name: 'ep', password: 'x' }, err: AUTH_ERR.authFailed },
      { login: 'u', password: 'nope', err: AUTH_ERR.authFailed },
      { authenticate: { name: 'ep', password: '' }, want: { token: nonEmptyString, rev: 1 } },
      { authenticate: { name: 'u', password: password(user('u')) }, want: { token: nonEmptyString, rev: 1 } },
      { login: 'ep', password: '' },
      { as: 'ep', userGet: { name: 'ep' }, want: { roles: [], rev: 1 } },
    ],
  },
  {
    name: 'authenticate while auth is off fails with AUTH_NOT_ENABLED, whatever the name and password',
    steps: [
      { userAdd: { name: 'root', password: ROOT_PW } },
      { authenticate: { name: 'root', password: ROOT_PW }, err: AUTH_ERR.notEnabled },
      { authenticate: { name: 'zz', password: 'x' }, err: AUTH_ERR.notEnabled },
      { login: 'root', password: ROOT_PW, err: AUTH_ERR.notEnabled },
    ],
  },
  {
    name: 'a user without a password cannot authenticate, with or without a password given, even after a password change',
    requires: ['unknownErrors'],
    steps: [
      { userAdd: { name: 'np', password: '', options: { noPassword: true } }, ...done() },
      { userAdd: { name: 'np2', password: 'abc', options: { noPassword: true } }, ...done() },
      ...authSetup([]),
      { authenticate: { name: 'np', password: '' }, err: AUTH_ERR.noPasswordUser },
      { authenticate: { name: 'np', password: 'x' }, err: AUTH_ERR.noPasswordUser },
      { authenticate: { name: 'np2', password: 'abc' }, err: AUTH_ERR.noPasswordUser },
      { as: 'root', userChangePassword: { name: 'np', password: 'new' }, ...done() },
      { authenticate: { name: 'np', password: 'new' }, err: AUTH_ERR.noPasswordUser },
      { as: 'root', userGet: { name: 'np' }, want: { roles: [], rev: 1 } },
      { as: 'root', userList: true, want: { users: ['np', 'np2', 'root'], rev: 1 } },
    ],
  },
  {
    name: 'a user may get itself and the roles it holds; other users and roles, known or not, are denied; root gets not found',
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'READ', key: 'a', end: 'c' }), role('rb')), user('bob', role('rc'))]),
      { as: 'alice', userGet: { name: 'alice' }, want: { roles: ['ra', 'rb'], rev: 1 } },
      { as: 'alice', roleGet: { role: 'ra' }, want: { perm: [perm('READ', 'a', 'c')], rev: 1 } },
      { as: 'alice', roleGet: { role: 'rb' }, want: { perm: [], rev: 1 } },
      { as: 'alice', userGet: { name: 'bob' }, err: AUTH_ERR.denied },
      { as: 'alice', userGet: { name: 'zz' }, err: AUTH_ERR.denied },
      { as: 'alice', roleGet: { role: 'rc' }, err: AUTH_ERR.denied },
      { as: 'alice', roleGet: { role: 'zz' }, err: AUTH_ERR.denied },
      { as: 'alice', userList: true, err: AUTH_ERR.denied },
      { as: 'alice', userChangePassword: { name: 'alice', password: 'x' }, err: AUTH_ERR.denied },
      { as: 'root', userGet: { name: 'zz' }, err: AUTH_ERR.userNotFound },
      { as: 'root', roleGet: { role: 'zz' }, err: AUTH_ERR.roleNotFound },
      { userGet: { name: 'alice' }, err: AUTH_ERR.userEmpty },
    ],
  },
]

export const AUTH_CASES: readonly Case[] = [
  ...ENABLE_CASES, ...USER_ROLE_CASES, ...AUTHENTICATE_CASES, ...MATRIX_CASES, ...LIVE_CASES, ...FIXED_CASES,
].map((c) => ({ ...c, requires: [...new Set(['auth' as const, ...(c.requires ?? [])])] }))
