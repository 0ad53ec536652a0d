// Auth changes take effect at once: for the next call of a live token (revoked permission or role, deleted
// role or user, changed password) and for new watchers on an open watch stream (existing watchers are never
// checked again, as in etcd); and tokens expire after their TTL of disuse. Checked against etcd 3.4.23.
import { b, kv, puts, type Case } from '../harness/case.js'
import { AUTH_ERR, refusalReason } from './auth-model.js'
import { as, authSetup, get, password, put, role, user } from './auth-matrix.js'
import { created, events, putEv, refused, watchKey } from '../harness/watch-steps.js'

const done = (rev = 1): { readonly want: { readonly rev: number } } => ({ want: { rev } })

// Changes take effect at once

const ALICE = user('alice', role('ra', { type: 'READWRITE', key: 'k' }))
const BOB = user('bob', role('rb', { type: 'READWRITE', key: 'k' }))
const PW_ALICE = password(ALICE)
const K_SEED = puts(['k', 'v'])

const EFFECT_CASES: readonly Case[] = [
  {
    name: "revoking a role's permission denies the very next call of a live token; granting it back allows it",
    steps: [
      ...authSetup([ALICE], K_SEED),
      as('alice', get('k')),
      { as: 'root', roleRevokePermission: { role: 'ra', key: b('k'), rangeEnd: b('') }, ...done(2) },
      as('alice', { ...get('k'), err: AUTH_ERR.denied }),
      { as: 'root', roleGrantPermission: { name: 'ra', perm: { permType: 'READ', key: b('k'), rangeEnd: b('') } } },
      as('alice', get('k')),
      as('alice', { ...put('k'), err: AUTH_ERR.denied }),
    ],
  },
  {
    name: 'revoking a role from the user, or deleting the role, denies the next call; granting a role allows it at once',
    steps: [
      ...authSetup([ALICE], [...K_SEED, { roleAdd: { name: 'other' } }, { roleGrantPermission: { name: 'other', perm: { permType: 'READ', key: b('k'), rangeEnd: b('') } } }]),
      as('alice', get('k')),
      { as: 'root', userRevokeRole: { name: 'alice', role: 'ra' } },
      as('alice', { ...get('k'), err: AUTH_ERR.denied }),
      { as: 'root', userGrantRole: { user: 'alice', role: 'ra' } },
      as('alice', get('k')),
      { as: 'root', roleDelete: { role: 'ra' } },
      as('alice', { ...get('k'), err: AUTH_ERR.denied }),
      { as: 'root', userGrantRole: { user: 'alice', role: 'other' } },
      as('alice', get('k')),
    ],
  },
  {
    name: "deleting a user ends its tokens; a new user of the same name needs a new login; others' tokens live on",
    requires: ['authToken'],
    steps: [
      ...authSetup([ALICE, BOB], K_SEED),
      { as: 'root', userDelete: { name: 'alice' } },
      as('alice', { ...get('k'), err: AUTH_ERR.invalidToken }),
      as('bob', get('k')),
      { as: 'root', userAdd: { name: 'alice', password: PW_ALICE } },
      { as: 'root', userGrantRole: { user: 'alice', role: 'ra' } },
      as('alice', { ...get('k'), err: AUTH_ERR.invalidToken }),
      { login: 'alice', password: PW_ALICE, name: 'alice-again' },
      as('alice-again', get('k')),
    ],
  },
  {
    name: 'changing a password ends the tokens of that user only; the old password fails, the new one works',
    requires: ['authToken'],
    steps: [
      ...authSetup([ALICE, BOB], K_SEED),
      { login: 'alice', password: PW_ALICE, name: 'alice-2' },
      { as: 'root', userChangePassword: { name: 'alice', password: 'new' } },
      as('alice', { ...get('k'), err: AUTH_ERR.invalidToken }),
      as('alice-2', { ...get('k'), err: AUTH_ERR.invalidToken }),
      as('bob', get('k')),
      as('root', get('k')),
      { authenticate: { name: 'alice', password: PW_ALICE }, err: AUTH_ERR.authFailed },
      { login: 'alice', password: 'new', name: 'alice-new' },
      as('alice-new', get('k')),
    ],
  },
  {
    // etcd checks permission when a watcher is created, never again: a watcher made before the change keeps
    // receiving events (etcd 3.4 to 3.6).
    name: 'open watch stream: after a permission is revoked, a new watcher is refused; the existing one still receives events',
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'READ', key: 'a', end: 'c' }))], puts(['a', '1'])),
      { as: 'alice', step: { stream: 'w', send: watchKey('a') } },
      { as: 'alice', step: { stream: 'w', expect: [created(0, 2)] } },
      { as: 'root', roleRevokePermission: { role: 'ra', key: b('a'), rangeEnd: b('c') } },
      as('root', { ...put('a', '2'), want: { rev: 3 } }),
      { as: 'alice', step: { stream: 'w', expect: [events(0, 3, putEv(kv('a', '2', 2, 3, 2)))] } },
      { as: 'alice', step: { stream: 'w', send: watchKey('b') } },
      { as: 'alice', step: { stream: 'w', expect: [refused(3, refusalReason(AUTH_ERR.denied))] } },
      as('alice', { ...get('a'), err: AUTH_ERR.denied }),
    ],
  },
  {
    name: 'open watch stream: after the password changes, a new watcher is refused with invalid auth token; the existing one still receives events',
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'READ', key: 'a', end: 'c' }))], puts(['a', '1'])),
      { as: 'alice', step: { stream: 'w', send: watchKey('a') } },
      { as: 'alice', step: { stream: 'w', expect: [created(0, 2)] } },
      { as: 'root', userChangePassword: { name: 'alice', password: 'new' } },
      as('root', { ...put('a', '2'), want: { rev: 3 } }),
      { as: 'alice', step: { stream: 'w', expect: [events(0, 3, putEv(kv('a', '2', 2, 3, 2)))] } },
      { as: 'alice', step: { stream: 'w', send: watchKey('b') } },
      { as: 'alice', step: { stream: 'w', expect: [refused(3, refusalReason(AUTH_ERR.invalidToken))] } },
    ],
  },
  {
    name: 'a watcher refused for lack of permission leaves the stream open for permitted ones',
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'READ', key: 'a', end: 'c' }))], puts(['a', '1'])),
      { as: 'alice', step: { stream: 'w', send: watchKey('k') } },
      { as: 'alice', step: { stream: 'w', expect: [refused(2, refusalReason(AUTH_ERR.denied))] } },
      { as: 'alice', step: { stream: 'w', send: watchKey('a', 'c') } },
      { as: 'alice', step: { stream: 'w', expect: [created(0, 2)] } },
      as('root', { ...put('b', '1'), want: { rev: 3 } }),
      { as: 'alice', step: { stream: 'w', expect: [events(0, 3, putEv(kv('b', '1', 3, 3, 1)))] } },
    ],
  },
]

// Token expiry

const TTL_CASES: readonly Case[] = [
  {
    name: 'a token unused for the TTL expires (INVALID_AUTH_TOKEN); logging in again works',
    requires: ['authToken'],
    server: { authTokenTtl: 1 },
    steps: [
      ...authSetup([ALICE], K_SEED),
      as('alice', get('k')),
      { expireToken: 'alice', user: 'alice', password: PW_ALICE, ttl: 1 },
      as('alice', { ...get('k'), err: AUTH_ERR.invalidToken }),
      { login: 'alice', password: PW_ALICE, name: 'alice-again' },
      as('alice-again', get('k')),
    ],
  },
  {
    name: "using a token keeps it alive: the TTL counts from the token's last use",
    requires: ['manualClock'],
    server: { authTokenTtl: 10 },
    steps: [
      ...authSetup([ALICE], K_SEED),
      { advanceMs: 6000 },
      as('alice', get('k')),
      { advanceMs: 6000 },
      as('alice', get('k')),
      { advanceMs: 12000 },
      as('alice', { ...get('k'), err: AUTH_ERR.invalidToken }),
    ],
  },
]

export const LIVE_CASES: readonly Case[] = [...EFFECT_CASES, ...TTL_CASES]
