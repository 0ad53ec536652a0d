// Mirrors etcd auth/store.go (3.4): users, roles, key permissions, the enabled flag and the auth revision,
// persisted through AuthBackend; password checks and tokens. The request checks over this state are in
// permission-check.ts.
// Deviations are listed in docs/DEVIATIONS.md.
import type { Backend } from '../backend/backend.js'
import { equalBytes } from '../pkg/bytes.js'
import { EtcdError } from '../pkg/errors.js'
import { AuthBackend } from './auth-backend.js'
import { bcryptCostOrDefault, hashPassword, passwordMatches } from './password.js'
import { checkAdminPermitted, checkOpPermitted, checkUserPresent, type AuthState } from './permission-check.js'
import {
  hasRootRole, ROOT_ROLE, ROOT_USER, withPermission, type AuthInfo, type Permission, type Role, type User, type UserAddRequest,
  type UserChangePasswordRequest,
} from './permission.js'
import { RangePermCache } from './range-perm-cache.js'
import { newTokenProvider, type TokenOptions, type TokenProvider } from './token.js'

const EMPTY = new Uint8Array(0)

const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8')
/** Go's string order: by UTF-8 bytes (JS `<` compares UTF-16 units, which differs above U+FFFF). */
const compareNames = (a: string, b: string): number => Buffer.compare(utf8(a), utf8(b))

export interface AuthStoreOptions extends TokenOptions {
  /** bcrypt cost of new password hashes (--bcrypt-cost); outside 4..31 it is 10, as etcd's NewAuthStore. */
  readonly bcryptCost: number
}

/**
 * The auth store. Everything lives in memory and is written through to the backend's `auth`, `authUsers`
 * and `authRoles` buckets.
 *
 * Every mutation hashes first (the only slow step, done in slices by bcryptjs), then runs ONE synchronous
 * section (check, buffer the writes, bump the revision where etcd does, rebuild the permission cache), and
 * then awaits `backend.commit()` (etcd's ForceCommit) as its only await after that: two mutations never
 * interleave, and a check made after the hash sees every earlier mutation. Errors come in etcd's order.
 *
 * The auth revision goes up by one with every change of users, roles or permissions and with disable
 * (not with enable, as in etcd). Clear-text passwords are never stored or logged: a user holds a bcrypt hash.
 */
export class AuthStore {
  private readonly backend: AuthBackend
  private readonly bcryptCost: number
  private readonly tokens: TokenProvider
  private readonly state: AuthState = { enabled: false, revision: 0, users: new Map(), roles: new Map(), permCache: new RangePermCache() }

  private constructor(backend: Backend, opts: AuthStoreOptions, tokens: TokenProvider) {
    this.backend = new AuthBackend(backend)
    this.bcryptCost = bcryptCostOrDefault(opts.bcryptCost)
    this.tokens = tokens
  }

  /**
   * Load the store (etcd's NewAuthStore): the enabled flag, the revision, every user and role. A store that
   * has no revision yet gets revision 1, buffered in the backend: the caller commits.
   */
  static async open(backend: Backend, opts: AuthStoreOptions): Promise<AuthStore> {
    const s = new AuthStore(backend, opts, await newTokenProvider(opts))
    const stored = await s.backend.read()
    s.state.enabled = stored.enabled
    s.state.revision = stored.revision
    for (const u of stored.users) s.state.users.set(u.name, u)
    for (const r of stored.roles) s.state.roles.set(r.name, r)
    if (s.state.enabled) s.tokens.enable()
    if (s.state.revision === 0) s.commitRevision()
    s.refreshPermCache()
    return s
  }

  /** Whether authentication is enabled. */
  get enabled(): boolean {
    return this.state.enabled
  }

  /** The auth revision (>= 1 once opened). */
  revision(): number {
    return this.state.revision
  }

  /**
   * Turn authentication on (etcd's AuthEnable). A no-op when already on. Needs a user `root` that holds the
   * role `root`: AUTH_ROOT_USER_NOT_EXIST, AUTH_ROOT_ROLE_NOT_EXIST. Does not bump the revision.
   */
  async enable(): Promise<void> {
    if (!this.state.enabled) {
      const root = this.state.users.get(ROOT_USER)
      if (root === undefined) throw new EtcdError('AUTH_ROOT_USER_NOT_EXIST')
      if (!hasRootRole(root)) throw new EtcdError('AUTH_ROOT_ROLE_NOT_EXIST')
      this.backend.saveEnabled(true)
      this.state.enabled = true
      this.tokens.enable()
      this.refreshPermCache()
    }
    // Also on the no-op path: a concurrent enable() may still be committing the flag.
    await this.backend.commit()
  }

  /** Turn authentication off (etcd's AuthDisable): bumps the revision, drops every token. A no-op when off. */
  async disable(): Promise<void> {
    if (this.state.enabled) {
      this.backend.saveEnabled(false)
      this.commitRevision()
      this.state.enabled = false
      this.tokens.disable()
    }
    await this.backend.commit()
  }

  /**
   * Add a user (etcd's UserAdd). USER_EMPTY for an empty name; the password is hashed (unless the user has
   * none, or `hashedPassword` is given); then USER_ALREADY_EXIST.
   */
  async userAdd(r: UserAddRequest): Promise<void> {
    if (r.name === '') throw new EtcdError('USER_EMPTY')
    const noPassword = r.noPassword === true
    const password = noPassword ? '' : await this.hashOrGiven(r.password, r.hashedPassword)
    if (this.state.users.has(r.name)) throw new EtcdError('USER_ALREADY_EXIST')
    this.putUser({ name: r.name, password, roles: [], noPassword })
    this.commitRevision()
    this.refreshPermCache()
    await this.backend.commit()
  }

  /**
   * Delete a user (etcd's UserDelete) and invalidate its tokens. INVALID_AUTH_MGMT for `root` while auth is
   * enabled; USER_NOT_FOUND.
   */
  async userDelete(name: string): Promise<void> {
    if (this.state.enabled && name === ROOT_USER) throw new EtcdError('INVALID_AUTH_MGMT')
    if (!this.state.users.has(name)) throw new EtcdError('USER_NOT_FOUND')
    this.state.users.delete(name)
    this.backend.deleteUser(name)
    this.commitRevision()
    this.refreshPermCache()
    this.tokens.invalidateUser(name)
    await this.backend.commit()
  }

  /**
   * Change a user's password (etcd 3.4's UserChangePassword) and invalidate its tokens. The new password is
   * hashed first, then USER_NOT_FOUND (3.4's order). A no-password user keeps its option (and so still
   * cannot authenticate with a password), as in 3.4.
   */
  async userChangePassword(r: UserChangePasswordRequest): Promise<void> {
    const password = await this.hashOrGiven(r.password, r.hashedPassword)
    const u = this.state.users.get(r.name)
    if (u === undefined) throw new EtcdError('USER_NOT_FOUND')
    this.putUser({ ...u, password })
    this.commitRevision()
    this.refreshPermCache()
    this.tokens.invalidateUser(r.name)
    await this.backend.commit()
  }

  /**
   * Grant a role to a user (etcd's UserGrantRole). USER_NOT_FOUND; ROLE_NOT_FOUND unless the role exists or
   * is `root` (which needs no stored role). Granting a role the user has succeeds without a change.
   */
  async userGrantRole(user: string, role: string): Promise<void> {
    const u = this.state.users.get(user)
    if (u === undefined) throw new EtcdError('USER_NOT_FOUND')
    if (role !== ROOT_ROLE && !this.state.roles.has(role)) throw new EtcdError('ROLE_NOT_FOUND')
    if (!u.roles.includes(role)) {
      this.putUser({ ...u, roles: [...u.roles, role].sort(compareNames) })
      this.commitRevision()
      this.refreshPermCache()
    }
    await this.backend.commit()
  }

  /**
   * Revoke a role from a user (etcd's UserRevokeRole). INVALID_AUTH_MGMT for root's `root` role while auth is
   * enabled; USER_NOT_FOUND; ROLE_NOT_GRANTED.
   */
  async userRevokeRole(name: string, role: string): Promise<void> {
    if (this.state.enabled && name === ROOT_USER && role === ROOT_ROLE) throw new EtcdError('INVALID_AUTH_MGMT')
    const u = this.state.users.get(name)
    if (u === undefined) throw new EtcdError('USER_NOT_FOUND')
    const roles = u.roles.filter((r) => r !== role)
    if (roles.length === u.roles.length) throw new EtcdError('ROLE_NOT_GRANTED')
    this.putUser({ ...u, roles })
    this.commitRevision()
    this.refreshPermCache()
    await this.backend.commit()
  }

  /** A user's roles, sorted (etcd's UserGet). USER_NOT_FOUND. */
  userGet(name: string): readonly string[] {
    const u = this.state.users.get(name)
    if (u === undefined) throw new EtcdError('USER_NOT_FOUND')
    return [...u.roles]
  }

  /** Every user name, sorted by their bytes (etcd's UserList). */
  userList(): readonly string[] {
    return [...this.state.users.keys()].sort(compareNames)
  }

  /** Add a role (etcd's RoleAdd). ROLE_EMPTY, ROLE_ALREADY_EXIST. A role named `root` is a stored role like any other. */
  async roleAdd(name: string): Promise<void> {
    if (name === '') throw new EtcdError('ROLE_EMPTY')
    if (this.state.roles.has(name)) throw new EtcdError('ROLE_ALREADY_EXIST')
    this.putRole({ name, keyPermission: [] })
    this.commitRevision()
    // etcd does not refresh the permission cache here: a new role has no permissions.
    await this.backend.commit()
  }

  /**
   * Delete a role and revoke it from every user (etcd's RoleDelete). INVALID_AUTH_MGMT for `root` while auth
   * is enabled; ROLE_NOT_FOUND.
   */
  async roleDelete(name: string): Promise<void> {
    if (this.state.enabled && name === ROOT_ROLE) throw new EtcdError('INVALID_AUTH_MGMT')
    if (!this.state.roles.has(name)) throw new EtcdError('ROLE_NOT_FOUND')
    this.state.roles.delete(name)
    this.backend.deleteRole(name)
    for (const u of [...this.state.users.values()]) {
      const roles = u.roles.filter((r) => r !== name)
      if (roles.length !== u.roles.length) this.putUser({ ...u, roles })
    }
    this.commitRevision()
    this.refreshPermCache()
    await this.backend.commit()
  }

  /** A role's permissions in stored order, sorted by key (etcd's RoleGet). ROLE_NOT_FOUND. */
  roleGet(name: string): readonly Permission[] {
    const r = this.state.roles.get(name)
    if (r === undefined) throw new EtcdError('ROLE_NOT_FOUND')
    return [...r.keyPermission]
  }

  /** Every role name, sorted by their bytes (etcd's RoleList). */
  roleList(): readonly string[] {
    return [...this.state.roles.keys()].sort(compareNames)
  }

  /** Grant a permission to a role (etcd's RoleGrantPermission, see withPermission). ROLE_NOT_FOUND. */
  async roleGrantPermission(name: string, perm: Permission): Promise<void> {
    const role = this.state.roles.get(name)
    if (role === undefined) throw new EtcdError('ROLE_NOT_FOUND')
    this.putRole({ name: role.name, keyPermission: withPermission(role.keyPermission, perm) })
    this.commitRevision()
    this.refreshPermCache()
    await this.backend.commit()
  }

  /**
   * Revoke every permission of a role with exactly this key and range end (etcd's RoleRevokePermission).
   * ROLE_NOT_FOUND; PERMISSION_NOT_GRANTED when none matches.
   */
  async roleRevokePermission(role: string, key: Uint8Array, rangeEnd: Uint8Array): Promise<void> {
    const r = this.state.roles.get(role)
    if (r === undefined) throw new EtcdError('ROLE_NOT_FOUND')
    const kept = r.keyPermission.filter((p) => !equalBytes(p.key, key) || !equalBytes(p.rangeEnd, rangeEnd))
    if (kept.length === r.keyPermission.length) throw new EtcdError('PERMISSION_NOT_GRANTED')
    this.putRole({ name: r.name, keyPermission: kept })
    this.commitRevision()
    this.refreshPermCache()
    await this.backend.commit()
  }

  /**
   * Check a user's password (etcd's CheckPassword) and return the auth revision read before the (slow) hash
   * comparison. AUTH_NOT_ENABLED; AUTH_FAILED for an unknown user; NO_PASSWORD_USER; AUTH_FAILED for a
   * wrong password.
   */
  async checkPassword(name: string, password: string): Promise<number> {
    if (!this.state.enabled) throw new EtcdError('AUTH_NOT_ENABLED')
    const u = this.state.users.get(name)
    if (u === undefined) throw new EtcdError('AUTH_FAILED')
    if (u.noPassword) throw new EtcdError('NO_PASSWORD_USER')
    const rev = this.state.revision
    if (!(await passwordMatches(password, u.password))) throw new EtcdError('AUTH_FAILED')
    return rev
  }

  /**
   * Hand a checked user a new simple token `<16 letters>.<index>` (etcd's Authenticate, after CheckPassword).
   * AUTH_NOT_ENABLED; AUTH_FAILED when the user is gone or has no password.
   */
  assignToken(name: string, index: number): string {
    if (!this.state.enabled) throw new EtcdError('AUTH_NOT_ENABLED')
    const u = this.state.users.get(name)
    if (u === undefined || u.noPassword) throw new EtcdError('AUTH_FAILED')
    return this.tokens.assign(name, this.state.revision, index)
  }

  /**
   * Who a token belongs to, at the current revision (simple tokens carry none), restarting its TTL; undefined
   * when it is malformed, unknown or expired.
   */
  authInfoFromToken(token: string): AuthInfo | undefined {
    return this.tokens.info(token, this.state.revision)
  }

  /** Read on `key` (rangeEnd empty), or on [key, rangeEnd) ("\0": to the end of the keyspace). */
  isRangePermitted(ai: AuthInfo | undefined, key: Uint8Array, rangeEnd: Uint8Array): void {
    checkOpPermitted(this.state, ai, key, rangeEnd, 'READ')
  }

  /** Write on `key`. */
  isPutPermitted(ai: AuthInfo | undefined, key: Uint8Array): void {
    checkOpPermitted(this.state, ai, key, EMPTY, 'WRITE')
  }

  /** Write on `key` (rangeEnd empty), or on [key, rangeEnd) ("\0": to the end of the keyspace). */
  isDeleteRangePermitted(ai: AuthInfo | undefined, key: Uint8Array, rangeEnd: Uint8Array): void {
    checkOpPermitted(this.state, ai, key, rangeEnd, 'WRITE')
  }

  /** A user, with no permission needed (see checkUserPresent). */
  isUserPresent(ai: AuthInfo | undefined): void {
    checkUserPresent(this.state, ai)
  }

  /** The root role (see checkAdminPermitted). */
  isAdminPermitted(ai: AuthInfo | undefined): void {
    checkAdminPermitted(this.state, ai)
  }

  /** Whether a user exists and holds a role (etcd's HasRole). */
  hasRole(user: string, role: string): boolean {
    return this.state.users.get(user)?.roles.includes(role) ?? false
  }

  /** Stop the token sweeper (awaited). Tokens are gone afterwards. Idempotent. */
  async close(): Promise<void> {
    await this.tokens.close()
  }

  /** The stored form of a password: `hashedPassword` as given when non-empty, else a bcrypt hash. */
  private async hashOrGiven(password: string, hashedPassword: string | undefined): Promise<string> {
    if (hashedPassword !== undefined && hashedPassword !== '') return hashedPassword
    return hashPassword(password, this.bcryptCost)
  }

  private putUser(u: User): void {
    this.state.users.set(u.name, u)
    this.backend.putUser(u)
  }

  private putRole(r: Role): void {
    this.state.roles.set(r.name, r)
    this.backend.putRole(r)
  }

  /** etcd's commitRevision: one more, stored 8-byte big-endian. */
  private commitRevision(): void {
    this.state.revision++
    this.backend.saveRevision(this.state.revision)
  }

  private refreshPermCache(): void {
    this.state.permCache.refresh(this.state.users.values(), (name) => this.state.roles.get(name))
  }
}
