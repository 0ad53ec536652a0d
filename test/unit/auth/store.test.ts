// The auth store (src/auth/store.ts) over a LevelBackend on memory-level, on a ManualClock, bcrypt cost 4:
// every method's errors in etcd's order, the revision bumped exactly where etcd bumps it, the root rules
// with auth enabled and disabled, passwords and tokens, permission checks, and persistence across a reopen.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { hash } from 'bcryptjs'
import { decodeUser } from '../../../src/wire/authpb.js'
import type { AuthInfo, Permission, PermissionType } from '../../../src/auth/permission.js'
import { AuthStore } from '../../../src/auth/store.js'
import { LevelBackend } from '../../../src/backend/level-backend.js'
import type { LevelDb } from '../../../src/embed/options.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { isEtcdError, type ErrorCode } from '../../../src/pkg/errors.js'
import { memoryDb } from '../../helpers/memory-backend.js'

const enc = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))
const none = new Uint8Array(0)
const perm = (permType: PermissionType, key: string, rangeEnd = ''): Permission => ({ permType, key: enc(key), rangeEnd: enc(rangeEnd) })
const show = (ps: readonly Permission[]): string[] =>
  ps.map((p) => `${p.permType} ${Buffer.from(p.key).toString('latin1')}..${Buffer.from(p.rangeEnd).toString('latin1')}`)

interface Env {
  readonly db: LevelDb
  readonly be: LevelBackend
  readonly s: AuthStore
  readonly clock: ManualClock
}

const newDb = (): LevelDb => memoryDb()

async function open(db = newDb(), clock = new ManualClock(), bcryptCost = 4): Promise<Env> {
  const be = await LevelBackend.open(db, { syncWrites: false })
  const s = await AuthStore.open(be, { bcryptCost, tokenTtlMs: 60_000, clock, onError: (e) => assert.fail(`background: ${String(e)}`) })
  await be.commit()
  return { db, be, s, clock }
}

async function close(e: Env): Promise<void> {
  await e.s.close()
  await e.be.close()
}

async function withStore(fn: (e: Env) => Promise<void>): Promise<void> {
  const e = await open()
  try {
    await fn(e)
  } finally {
    await close(e)
  }
}

/** root with the root role (the role itself need not be stored), and auth enabled if asked. */
async function withRoot(s: AuthStore, enable: boolean): Promise<void> {
  await s.userAdd({ name: 'root', password: 'rootpw' })
  await s.userGrantRole('root', 'root')
  if (enable) await s.enable()
}

/** Run `op`, expecting `want` (an error code, or success), and return how much the revision moved. */
async function outcome(s: AuthStore, op: () => unknown, want: ErrorCode | undefined): Promise<number> {
  const before = s.revision()
  let err: unknown
  try {
    await op()
  } catch (e) {
    err = e
  }
  if (want === undefined) assert.equal(err, undefined, `unexpected error ${String(err)}`)
  else assert.ok(isEtcdError(err, want), `want ${want}, got ${String(err)}`)
  return s.revision() - before
}

interface Case {
  readonly name: string
  /** Enable auth (with root/root) before the setup. */
  readonly enabled?: boolean
  readonly setup?: (s: AuthStore) => Promise<void>
  readonly op: (s: AuthStore) => unknown
  readonly want?: ErrorCode
  /** Revision change; default 1 on success, 0 on error. */
  readonly bump?: number
  readonly check?: (s: AuthStore) => void | Promise<void>
}

function runCases(title: string, cases: readonly Case[]): void {
  describe(title, () => {
    for (const c of cases) {
      it(c.name, () =>
        withStore(async ({ s }) => {
          if (c.enabled === true) await withRoot(s, true)
          await c.setup?.(s)
          const bump = await outcome(s, () => c.op(s), c.want)
          assert.equal(bump, c.bump ?? (c.want === undefined ? 1 : 0), 'revision change')
          await c.check?.(s)
        }),
      )
    }
  })
}

const addUser = (name: string, roles: string[] = []) => async (s: AuthStore): Promise<void> => {
  await s.userAdd({ name, password: `${name}pw` })
  for (const r of roles) {
    if (r !== 'root' && !s.roleList().includes(r)) await s.roleAdd(r)
    await s.userGrantRole(name, r)
  }
}

runCases('users', [
  { name: 'userAdd: an empty name -> USER_EMPTY', op: (s) => s.userAdd({ name: '', password: 'x' }), want: 'USER_EMPTY' },
  { name: 'userAdd: an existing name -> USER_ALREADY_EXIST', setup: addUser('u'), op: (s) => s.userAdd({ name: 'u', password: 'x' }), want: 'USER_ALREADY_EXIST' },
  {
    name: 'userAdd: adds a user with no roles',
    op: (s) => s.userAdd({ name: 'u', password: 'x' }),
    check: (s) => {
      assert.deepEqual(s.userList(), ['u'])
      assert.deepEqual(s.userGet('u'), [])
    },
  },
  { name: 'userDelete: root while enabled -> INVALID_AUTH_MGMT', enabled: true, op: (s) => s.userDelete('root'), want: 'INVALID_AUTH_MGMT' },
  { name: 'userDelete: root while disabled is allowed', setup: addUser('root', ['root']), op: (s) => s.userDelete('root') },
  { name: 'userDelete: an unknown user -> USER_NOT_FOUND', op: (s) => s.userDelete('nobody'), want: 'USER_NOT_FOUND' },
  { name: 'userDelete: deletes', setup: addUser('u'), op: (s) => s.userDelete('u'), check: (s) => assert.deepEqual(s.userList(), []) },
  { name: 'userChangePassword: an unknown user -> USER_NOT_FOUND', op: (s) => s.userChangePassword({ name: 'nobody', password: 'x' }), want: 'USER_NOT_FOUND' },
  {
    name: 'userChangePassword: keeps the roles',
    setup: addUser('u', ['r']),
    op: (s) => s.userChangePassword({ name: 'u', password: 'new' }),
    check: (s) => assert.deepEqual(s.userGet('u'), ['r']),
  },
  { name: 'userGrantRole: an unknown user comes before an unknown role -> USER_NOT_FOUND', op: (s) => s.userGrantRole('nobody', 'norole'), want: 'USER_NOT_FOUND' },
  { name: 'userGrantRole: an unknown role -> ROLE_NOT_FOUND', setup: addUser('u'), op: (s) => s.userGrantRole('u', 'norole'), want: 'ROLE_NOT_FOUND' },
  {
    name: 'userGrantRole: root needs no stored role',
    setup: addUser('u'),
    op: (s) => s.userGrantRole('u', 'root'),
    check: (s) => {
      assert.deepEqual(s.userGet('u'), ['root'])
      assert.deepEqual(s.roleList(), [])
    },
  },
  { name: 'userGrantRole: a role already held succeeds without a change', setup: addUser('u', ['r']), op: (s) => s.userGrantRole('u', 'r'), bump: 0 },
  {
    name: 'userGrantRole: roles stay sorted by their bytes',
    setup: async (s) => {
      await addUser('u', ['m', 'b', 'z', 'B'])(s)
      await s.roleAdd('\u{1F600}')
      await s.roleAdd('\uFFFD')
    },
    op: (s) => s.userGrantRole('u', '\u{1F600}'),
    check: async (s) => {
      await s.userGrantRole('u', '\uFFFD')
      // UTF-8 order: U+FFFD (ef bf bd) before U+1F600 (f0 9f 98 80); UTF-16 order would put it after.
      assert.deepEqual(s.userGet('u'), ['B', 'b', 'm', 'z', '\uFFFD', '\u{1F600}'])
    },
  },
  { name: 'userRevokeRole: root/root while enabled -> INVALID_AUTH_MGMT', enabled: true, op: (s) => s.userRevokeRole('root', 'root'), want: 'INVALID_AUTH_MGMT' },
  { name: 'userRevokeRole: root/root while disabled is allowed', setup: addUser('root', ['root']), op: (s) => s.userRevokeRole('root', 'root') },
  { name: 'userRevokeRole: an unknown user -> USER_NOT_FOUND', op: (s) => s.userRevokeRole('nobody', 'r'), want: 'USER_NOT_FOUND' },
  { name: 'userRevokeRole: a role not held -> ROLE_NOT_GRANTED', setup: addUser('u', ['r']), op: (s) => s.userRevokeRole('u', 'q'), want: 'ROLE_NOT_GRANTED' },
  { name: 'userRevokeRole: revokes', setup: addUser('u', ['q', 'r']), op: (s) => s.userRevokeRole('u', 'q'), check: (s) => assert.deepEqual(s.userGet('u'), ['r']) },
  { name: 'userGet: an unknown user -> USER_NOT_FOUND', op: (s) => s.userGet('nobody'), want: 'USER_NOT_FOUND' },
  {
    name: 'userList: sorted by bytes',
    setup: async (s) => {
      for (const n of ['b', 'a', 'B', 'ab']) await s.userAdd({ name: n, password: 'x', noPassword: true })
    },
    op: (s) => assert.deepEqual(s.userList(), ['B', 'a', 'ab', 'b']),
    bump: 0,
  },
])

runCases('roles', [
  { name: 'roleAdd: an empty name -> ROLE_EMPTY', op: (s) => s.roleAdd(''), want: 'ROLE_EMPTY' },
  { name: 'roleAdd: an existing name -> ROLE_ALREADY_EXIST', setup: (s) => s.roleAdd('r'), op: (s) => s.roleAdd('r'), want: 'ROLE_ALREADY_EXIST' },
  { name: 'roleAdd: root is an ordinary stored role', op: (s) => s.roleAdd('root'), check: (s) => assert.deepEqual(s.roleGet('root'), []) },
  { name: 'roleDelete: root while enabled -> INVALID_AUTH_MGMT', enabled: true, setup: (s) => s.roleAdd('root'), op: (s) => s.roleDelete('root'), want: 'INVALID_AUTH_MGMT' },
  { name: 'roleDelete: root while enabled, even when not stored -> INVALID_AUTH_MGMT', enabled: true, op: (s) => s.roleDelete('root'), want: 'INVALID_AUTH_MGMT' },
  { name: 'roleDelete: root while disabled is allowed', setup: (s) => s.roleAdd('root'), op: (s) => s.roleDelete('root') },
  { name: 'roleDelete: an unknown role -> ROLE_NOT_FOUND', op: (s) => s.roleDelete('r'), want: 'ROLE_NOT_FOUND' },
  {
    name: 'roleDelete: revokes the role from every user, in one revision',
    setup: async (s) => {
      await addUser('u1', ['r', 'q'])(s)
      await addUser('u2', ['r'])(s)
      await addUser('u3', ['q'])(s)
    },
    op: (s) => s.roleDelete('r'),
    check: (s) => {
      assert.deepEqual([s.userGet('u1'), s.userGet('u2'), s.userGet('u3')], [['q'], [], ['q']])
      assert.deepEqual(s.roleList(), ['q'])
    },
  },
  { name: 'roleGet: an unknown role -> ROLE_NOT_FOUND', op: (s) => s.roleGet('r'), want: 'ROLE_NOT_FOUND' },
  {
    name: 'roleList: sorted by bytes',
    setup: async (s) => {
      for (const n of ['b', 'a', 'B', 'root']) await s.roleAdd(n)
    },
    op: (s) => assert.deepEqual(s.roleList(), ['B', 'a', 'b', 'root']),
    bump: 0,
  },
  { name: 'roleGrantPermission: an unknown role -> ROLE_NOT_FOUND', op: (s) => s.roleGrantPermission('r', perm('READ', 'a')), want: 'ROLE_NOT_FOUND' },
  {
    name: 'roleGrantPermission: sorted by key',
    setup: async (s) => {
      await s.roleAdd('r')
      await s.roleGrantPermission('r', perm('READ', 'm'))
      await s.roleGrantPermission('r', perm('WRITE', 'z', '\0'))
    },
    op: (s) => s.roleGrantPermission('r', perm('READWRITE', 'a', 'c')),
    check: (s) => assert.deepEqual(show(s.roleGet('r')), ['READWRITE a..c', 'READ m..', 'WRITE z..\0']),
  },
  {
    name: 'roleGrantPermission: the same key and range end updates the type (and still bumps the revision)',
    setup: async (s) => {
      await s.roleAdd('r')
      await s.roleGrantPermission('r', perm('READ', 'a', 'c'))
    },
    op: (s) => s.roleGrantPermission('r', perm('READ', 'a', 'c')),
    check: async (s) => {
      await s.roleGrantPermission('r', perm('WRITE', 'a', 'c'))
      assert.deepEqual(show(s.roleGet('r')), ['WRITE a..c'])
    },
  },
  {
    name: 'roleGrantPermission: an equal key goes after the equal keys (Go sort of a short list)',
    setup: async (s) => {
      await s.roleAdd('r')
      await s.roleGrantPermission('r', perm('READ', 'a', 'c'))
      await s.roleGrantPermission('r', perm('READ', 'b'))
    },
    op: (s) => s.roleGrantPermission('r', perm('WRITE', 'a', 'b')),
    check: (s) => assert.deepEqual(show(s.roleGet('r')), ['READ a..c', 'WRITE a..b', 'READ b..']),
  },
  {
    name: 'roleGrantPermission: etcd compares only the first permission with the key, so a second one is duplicated',
    setup: async (s) => {
      await s.roleAdd('r')
      await s.roleGrantPermission('r', perm('READ', 'a', 'c'))
      await s.roleGrantPermission('r', perm('READ', 'a', 'b'))
    },
    op: (s) => s.roleGrantPermission('r', perm('WRITE', 'a', 'b')),
    check: (s) => assert.deepEqual(show(s.roleGet('r')), ['READ a..c', 'READ a..b', 'WRITE a..b']),
  },
  { name: 'roleRevokePermission: an unknown role -> ROLE_NOT_FOUND', op: (s) => s.roleRevokePermission('r', enc('a'), none), want: 'ROLE_NOT_FOUND' },
  {
    name: 'roleRevokePermission: no exact match (key and range end) -> PERMISSION_NOT_GRANTED',
    setup: async (s) => {
      await s.roleAdd('r')
      await s.roleGrantPermission('r', perm('READ', 'a', 'c'))
    },
    op: (s) => s.roleRevokePermission('r', enc('a'), none),
    want: 'PERMISSION_NOT_GRANTED',
  },
  {
    name: 'roleRevokePermission: removes every exact match at once',
    setup: async (s) => {
      await s.roleAdd('r')
      await s.roleGrantPermission('r', perm('READ', 'a', 'c'))
      await s.roleGrantPermission('r', perm('READ', 'a', 'b'))
      await s.roleGrantPermission('r', perm('WRITE', 'a', 'b'))
    },
    op: (s) => s.roleRevokePermission('r', enc('a'), enc('b')),
    check: (s) => assert.deepEqual(show(s.roleGet('r')), ['READ a..c']),
  },
])

runCases('enable and disable', [
  { name: 'enable: no user root -> AUTH_ROOT_USER_NOT_EXIST', setup: (s) => s.roleAdd('root'), op: (s) => s.enable(), want: 'AUTH_ROOT_USER_NOT_EXIST' },
  { name: 'enable: root without the root role -> AUTH_ROOT_ROLE_NOT_EXIST', setup: addUser('root', ['r']), op: (s) => s.enable(), want: 'AUTH_ROOT_ROLE_NOT_EXIST' },
  { name: 'enable: does not bump the revision', setup: addUser('root', ['root']), op: (s) => s.enable(), bump: 0, check: (s) => assert.equal(s.enabled, true) },
  { name: 'enable: a second enable is a no-op', enabled: true, op: (s) => s.enable(), bump: 0 },
  { name: 'disable: bumps the revision', enabled: true, op: (s) => s.disable(), check: (s) => assert.equal(s.enabled, false) },
  { name: 'disable: a no-op while disabled', op: (s) => s.disable(), bump: 0 },
])

runCases('passwords and tokens', [
  { name: 'checkPassword: disabled -> AUTH_NOT_ENABLED', setup: addUser('root', ['root']), op: (s) => s.checkPassword('root', 'rootpw'), want: 'AUTH_NOT_ENABLED' },
  { name: 'checkPassword: an unknown user -> AUTH_FAILED', enabled: true, op: (s) => s.checkPassword('nobody', 'x'), want: 'AUTH_FAILED' },
  {
    name: 'checkPassword: a no-password user -> NO_PASSWORD_USER (before any password check)',
    enabled: true,
    setup: (s) => s.userAdd({ name: 'np', password: 'ignored', noPassword: true }),
    op: (s) => s.checkPassword('np', 'ignored'),
    want: 'NO_PASSWORD_USER',
  },
  { name: 'checkPassword: a wrong password -> AUTH_FAILED', enabled: true, op: (s) => s.checkPassword('root', 'wrong'), want: 'AUTH_FAILED' },
  { name: 'checkPassword: an empty password is just wrong -> AUTH_FAILED', enabled: true, op: (s) => s.checkPassword('root', ''), want: 'AUTH_FAILED' },
  {
    name: 'checkPassword: the right password returns the current revision',
    enabled: true,
    op: async (s) => assert.equal(await s.checkPassword('root', 'rootpw'), s.revision()),
    bump: 0,
  },
  { name: 'assignToken: disabled -> AUTH_NOT_ENABLED', setup: addUser('u'), op: (s) => s.assignToken('u', 1), want: 'AUTH_NOT_ENABLED' },
  { name: 'assignToken: an unknown user -> AUTH_FAILED', enabled: true, op: (s) => s.assignToken('nobody', 1), want: 'AUTH_FAILED' },
  {
    name: 'assignToken: a no-password user -> AUTH_FAILED',
    enabled: true,
    setup: (s) => s.userAdd({ name: 'np', password: '', noPassword: true }),
    op: (s) => s.assignToken('np', 1),
    want: 'AUTH_FAILED',
  },
  {
    name: 'assignToken: a token that names the user at the current revision',
    enabled: true,
    op: (s) => {
      const t = s.assignToken('root', 9)
      assert.match(t, /^[a-zA-Z]{16}\.9$/)
      assert.deepEqual(s.authInfoFromToken(t), { username: 'root', revision: s.revision() })
    },
    bump: 0,
  },
  {
    name: 'userAdd with hashedPassword stores it as is',
    enabled: true,
    op: async (s) => s.userAdd({ name: 'h', password: 'ignored', hashedPassword: await hash('secret', 4) }),
    check: async (s) => {
      assert.equal(typeof (await s.checkPassword('h', 'secret')), 'number')
      await assert.rejects(s.checkPassword('h', 'ignored'), (e: unknown) => isEtcdError(e, 'AUTH_FAILED'))
    },
  },
  {
    name: 'userChangePassword: the new password works, the old one fails',
    enabled: true,
    op: (s) => s.userChangePassword({ name: 'root', password: 'next' }),
    check: async (s) => {
      assert.equal(typeof (await s.checkPassword('root', 'next')), 'number')
      await assert.rejects(s.checkPassword('root', 'rootpw'), (e: unknown) => isEtcdError(e, 'AUTH_FAILED'))
    },
  },
  {
    name: 'userChangePassword of a no-password user: still no password login (etcd 3.4 keeps the option)',
    enabled: true,
    setup: (s) => s.userAdd({ name: 'np', password: '', noPassword: true }),
    op: (s) => s.userChangePassword({ name: 'np', password: 'x' }),
    check: async (s) => {
      await assert.rejects(s.checkPassword('np', 'x'), (e: unknown) => isEtcdError(e, 'NO_PASSWORD_USER'))
    },
  },
])

describe('tokens and changes to users', () => {
  const cases: Array<{ name: string; change: (s: AuthStore) => Promise<void>; rootValid: boolean; uValid: boolean }> = [
    { name: 'userDelete invalidates that user\'s tokens', change: (s) => s.userDelete('u'), rootValid: true, uValid: false },
    { name: 'userChangePassword invalidates that user\'s tokens', change: (s) => s.userChangePassword({ name: 'u', password: 'n' }), rootValid: true, uValid: false },
    { name: 'disable invalidates every token', change: (s) => s.disable(), rootValid: false, uValid: false },
    { name: 'a role change keeps tokens valid (simple tokens carry the current revision)', change: (s) => s.roleAdd('x'), rootValid: true, uValid: true },
  ]
  for (const c of cases) {
    it(c.name, () =>
      withStore(async ({ s }) => {
        await withRoot(s, true)
        await s.userAdd({ name: 'u', password: 'pw' })
        const rt = s.assignToken('root', 1)
        const ut = s.assignToken('u', 2)
        await c.change(s)
        assert.equal(s.authInfoFromToken(rt) !== undefined, c.rootValid, 'root token')
        assert.equal(s.authInfoFromToken(ut) !== undefined, c.uValid, 'u token')
        if (c.uValid) assert.equal(s.authInfoFromToken(ut)?.revision, s.revision())
      }),
    )
  }

  it('a token expires after the TTL without use, and a lookup extends it', () =>
    withStore(async ({ s, clock }) => {
      await withRoot(s, true)
      const t = s.assignToken('root', 1)
      await clock.advance(59_000)
      assert.ok(s.authInfoFromToken(t))
      await clock.advance(60_000)
      assert.ok(s.authInfoFromToken(t))
      await clock.advance(60_001)
      assert.equal(s.authInfoFromToken(t), undefined)
      assert.equal(s.authInfoFromToken('not a token'), undefined)
    }))
})

describe('permission checks', () => {
  /** root, user `u` with role r (READ a..c, WRITE x), user `n` with no roles, user `r2` holding root. */
  async function setup(s: AuthStore): Promise<void> {
    await withRoot(s, false)
    await s.roleAdd('r')
    await s.roleGrantPermission('r', perm('READ', 'a', 'c'))
    await s.roleGrantPermission('r', perm('WRITE', 'x'))
    await addUser('u', ['r'])(s)
    await addUser('n')(s)
    await addUser('r2', ['root'])(s)
    await s.enable()
  }
  const ai = (s: AuthStore, username: string): AuthInfo => ({ username, revision: s.revision() })
  type Check = (s: AuthStore) => void
  const cases: Array<{ name: string; check: Check; want?: ErrorCode }> = [
    { name: 'range: no user -> USER_EMPTY', check: (s) => s.isRangePermitted(undefined, enc('a'), none), want: 'USER_EMPTY' },
    { name: 'range: revision 0 -> USER_EMPTY', check: (s) => s.isRangePermitted({ username: 'u', revision: 0 }, enc('a'), none), want: 'USER_EMPTY' },
    { name: 'range: an older revision -> AUTH_OLD_REVISION', check: (s) => s.isRangePermitted({ username: 'u', revision: s.revision() - 1 }, enc('a'), none), want: 'AUTH_OLD_REVISION' },
    { name: 'range: a newer revision is fine', check: (s) => s.isRangePermitted({ username: 'u', revision: s.revision() + 1 }, enc('a'), none) },
    { name: 'range: an unknown user -> PERMISSION_DENIED', check: (s) => s.isRangePermitted(ai(s, 'ghost'), enc('a'), none), want: 'PERMISSION_DENIED' },
    { name: 'range: the root role may read anything', check: (s) => s.isRangePermitted(ai(s, 'r2'), enc('zzz'), enc('\0')) },
    { name: 'range: inside the permission', check: (s) => s.isRangePermitted(ai(s, 'u'), enc('a'), enc('c')) },
    { name: 'range: past the permission -> PERMISSION_DENIED', check: (s) => s.isRangePermitted(ai(s, 'u'), enc('a'), enc('d')), want: 'PERMISSION_DENIED' },
    { name: 'range: a user without roles -> PERMISSION_DENIED', check: (s) => s.isRangePermitted(ai(s, 'n'), enc('a'), none), want: 'PERMISSION_DENIED' },
    { name: 'put: the WRITE key', check: (s) => s.isPutPermitted(ai(s, 'u'), enc('x')) },
    { name: 'put: a READ key -> PERMISSION_DENIED', check: (s) => s.isPutPermitted(ai(s, 'u'), enc('a')), want: 'PERMISSION_DENIED' },
    { name: 'deleteRange: the single WRITE key', check: (s) => s.isDeleteRangePermitted(ai(s, 'u'), enc('x'), none) },
    { name: 'deleteRange: a range around it -> PERMISSION_DENIED', check: (s) => s.isDeleteRangePermitted(ai(s, 'u'), enc('x'), enc('y')), want: 'PERMISSION_DENIED' },
    { name: 'admin: no user -> USER_EMPTY', check: (s) => s.isAdminPermitted(undefined), want: 'USER_EMPTY' },
    { name: 'admin: an empty user name -> USER_EMPTY', check: (s) => s.isAdminPermitted({ username: '', revision: 5 }), want: 'USER_EMPTY' },
    { name: 'admin: an unknown user -> USER_NOT_FOUND', check: (s) => s.isAdminPermitted(ai(s, 'ghost')), want: 'USER_NOT_FOUND' },
    { name: 'admin: without the root role -> PERMISSION_DENIED', check: (s) => s.isAdminPermitted(ai(s, 'u')), want: 'PERMISSION_DENIED' },
    { name: 'admin: a user holding the root role', check: (s) => s.isAdminPermitted(ai(s, 'r2')) },
    { name: 'admin: ignores the revision (an old one is fine)', check: (s) => s.isAdminPermitted({ username: 'root', revision: 1 }) },
  ]
  for (const c of cases) {
    it(c.name, () =>
      withStore(async ({ s }) => {
        await setup(s)
        if (c.want === undefined) c.check(s)
        else assert.throws(() => c.check(s), (e: unknown) => isEtcdError(e, c.want))
      }),
    )
  }

  it('while disabled every check passes, even without a user', () =>
    withStore(async ({ s }) => {
      await setup(s)
      await s.disable()
      s.isRangePermitted(undefined, enc('zzz'), none)
      s.isPutPermitted(undefined, enc('zzz'))
      s.isDeleteRangePermitted({ username: 'ghost', revision: 0 }, enc('a'), enc('\0'))
      s.isAdminPermitted(undefined)
    }))

  it('permission changes take effect at once', () =>
    withStore(async ({ s }) => {
      await setup(s)
      const check = (): void => s.isRangePermitted(ai(s, 'u'), enc('m'), none)
      assert.throws(check, (e: unknown) => isEtcdError(e, 'PERMISSION_DENIED'))
      await s.roleGrantPermission('r', perm('READWRITE', 'm'))
      check()
      await s.userRevokeRole('u', 'r')
      assert.throws(check, (e: unknown) => isEtcdError(e, 'PERMISSION_DENIED'))
      await s.userGrantRole('u', 'r')
      check()
      await s.roleRevokePermission('r', enc('m'), none)
      assert.throws(check, (e: unknown) => isEtcdError(e, 'PERMISSION_DENIED'))
      await s.roleGrantPermission('r', perm('READ', 'm'))
      await s.roleDelete('r')
      assert.throws(check, (e: unknown) => isEtcdError(e, 'PERMISSION_DENIED'))
      await s.roleAdd('r')
      await s.roleGrantPermission('r', perm('READ', 'm'))
      assert.throws(check, (e: unknown) => isEtcdError(e, 'PERMISSION_DENIED'), 'a re-added role is not granted again')
    }))

  it('hasRole', () =>
    withStore(async ({ s }) => {
      await setup(s)
      assert.deepEqual([s.hasRole('u', 'r'), s.hasRole('u', 'root'), s.hasRole('r2', 'root'), s.hasRole('ghost', 'r')], [true, false, true, false])
    }))
})

describe('persistence and the backend', () => {
  it('a fresh store is at revision 1; open buffers it and does not commit', async () => {
    const db = newDb()
    const be = await LevelBackend.open(db, { syncWrites: false })
    const s = await AuthStore.open(be, { bcryptCost: 4, tokenTtlMs: 0, clock: new ManualClock(), onError: () => undefined })
    assert.equal(s.revision(), 1)
    assert.deepEqual([...(be.get('auth', enc('authRevision')) ?? [])], [0, 0, 0, 0, 0, 0, 0, 1])
    assert.equal(be.get('auth', enc('authEnabled')), undefined)
    assert.deepEqual(await be.scan('auth', none, new Uint8Array([0xff]), 10), [], 'nothing committed yet')
    await s.close()
    await be.close()
  })

  it('users, roles, permission order, the flag and the revision survive a reopen; tokens do not', async () => {
    const e1 = await open()
    const s = e1.s
    await withRoot(s, false)
    await s.roleAdd('r')
    for (const p of [perm('READ', 'b'), perm('WRITE', 'a', 'c'), perm('READWRITE', 'a', 'b'), perm('READ', 'z', '\0')]) await s.roleGrantPermission('r', p)
    await s.userAdd({ name: 'u', password: 'upw' })
    await s.userGrantRole('u', 'r')
    await s.userAdd({ name: 'np', password: '', noPassword: true })
    await s.enable()
    const token = s.assignToken('u', 3)
    const want = { users: s.userList(), roles: s.roleList(), perms: show(s.roleGet('r')), uRoles: s.userGet('u'), rev: s.revision() }
    await close(e1)

    const e2 = await open(e1.db)
    try {
      const t = e2.s
      assert.deepEqual(
        { users: t.userList(), roles: t.roleList(), perms: show(t.roleGet('r')), uRoles: t.userGet('u'), rev: t.revision() },
        want,
      )
      assert.equal(t.enabled, true)
      assert.equal(t.authInfoFromToken(token), undefined, 'tokens live in memory only')
      assert.equal(typeof (await t.checkPassword('u', 'upw')), 'number')
      await assert.rejects(t.checkPassword('np', ''), (e: unknown) => isEtcdError(e, 'NO_PASSWORD_USER'))
      assert.ok(t.authInfoFromToken(t.assignToken('u', 4)), 'tokens work again after the reopen')
      // READWRITE [a, b) and READ b meet: [a, b\0) is covered; WRITE [a, c) gives no read.
      t.isRangePermitted({ username: 'u', revision: t.revision() }, enc('a'), enc('b\0'))
      t.isDeleteRangePermitted({ username: 'u', revision: t.revision() }, enc('a'), enc('c'))
      t.isRangePermitted({ username: 'u', revision: t.revision() }, enc('zzz'), enc('\0'))
      await t.disable()
      await t.userDelete('root')
    } finally {
      await close(e2)
    }
    const e3 = await open(e1.db)
    try {
      assert.equal(e3.s.enabled, false)
      assert.equal(e3.s.revision(), want.rev + 2)
      assert.deepEqual(e3.s.userList(), ['np', 'u'])
    } finally {
      await close(e3)
    }
  })

  it('the stored user holds only the bcrypt 2a hash at the given cost, never the password', () =>
    withStore(async ({ s, be }) => {
      await s.userAdd({ name: 'u', password: 'clear-text-secret' })
      const raw = be.get('authUsers', enc('u'))
      assert.ok(raw !== undefined)
      assert.equal(Buffer.from(raw).includes('clear-text-secret'), false)
      const u = decodeUser(raw)
      assert.match(u.password, /^\$2a\$04\$.{53}$/)
      assert.deepEqual({ name: u.name, roles: u.roles, noPassword: u.noPassword }, { name: 'u', roles: [], noPassword: false })
    }))

  it('a bcrypt cost outside 4..31 falls back to 10', async () => {
    for (const cost of [3, 32]) {
      const e = await open(newDb(), new ManualClock(), cost)
      try {
        await e.s.userAdd({ name: 'u', password: 'x' })
        assert.match(decodeUser(e.be.get('authUsers', enc('u')) ?? none).password, /^\$2a\$10\$/)
      } finally {
        await close(e)
      }
    }
  })

  it('concurrent adds of one name: one wins, the other gets USER_ALREADY_EXIST, one revision', () =>
    withStore(async ({ s }) => {
      const before = s.revision()
      const results = await Promise.allSettled([s.userAdd({ name: 'u', password: 'a' }), s.userAdd({ name: 'u', password: 'b' })])
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
      const rejected = results.find((r) => r.status === 'rejected')
      assert.ok(rejected !== undefined && isEtcdError(rejected.reason, 'USER_ALREADY_EXIST'))
      assert.equal(s.revision(), before + 1)
    }))
})
