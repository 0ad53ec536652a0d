// Mirrors etcd auth/store.go (3.4): users, roles, key permissions, the enabled flag and the auth revision,
// persisted in the backend's auth buckets; password checks, simple tokens and permission checks.
// Deviations are listed in README "Deviations".
// bcryptjs (pure JavaScript, so it installs on every platform): its async calls work in slices between
// other callbacks, so a password check (tens of ms at cost 10) never holds the event loop for long. It loads
// with the first password hashed or checked.
import type { Backend } from '../backend/backend.js'
import { readU64, u64 } from '../backend/meta-u64.js'
import { compareBytes, equalBytes } from '../pkg/bytes.js'
import type { Clock } from '../pkg/clock.js'
import { EtcdError } from '../pkg/errors.js'
import { invariant } from '../pkg/verify.js'
import { decodeRole, decodeUser, encodeRole, encodeUser } from './auth-codec.js'
import { goSort } from './go-sort.js'
import type { AuthInfo, Permission, Role, User } from './permission.js'
import { RangePermCache, type AccessType } from './range-perm-cache.js'
import { SimpleTokenProvider } from './simple-token.js'
import { JwtTokenProvider, type JwtOptions } from './jwt-token.js'
import { simpleTokenProvider, type TokenProvider } from './token.js'

const ROOT_USER = 'root'
const ROOT_ROLE = 'root'

const ascii = (s: string): Uint8Array => Buffer.from(s, 'latin1')
/** Keys of the `auth` bucket (etcd's enableFlagKey and revisionKey). */
const ENABLE_FLAG_KEY = ascii('authEnabled')
const REVISION_KEY = ascii('authRevision')
const AUTH_ENABLED = Uint8Array.of(1)
const AUTH_DISABLED = Uint8Array.of(0)

/** golang.org/x/crypto/bcrypt's MinCost, MaxCost and DefaultCost. */
const BCRYPT_MIN_COST = 4
const BCRYPT_MAX_COST = 31
const BCRYPT_DEFAULT_COST = 10

const EMPTY = new Uint8Array(0)
/** Above every UTF-8 name (0xff never occurs in UTF-8), to scan a whole users or roles bucket. */
const NAMES_END = Uint8Array.of(0xff, 0xff)

const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8')
/** Go's string order: by UTF-8 bytes (JS `<` compares UTF-16 units, which differs above U+FFFF). */
const compareNames = (a: string, b: string): number => Buffer.compare(utf8(a), utf8(b))
const copyBytes = (b: Uint8Array): Uint8Array => Uint8Array.prototype.slice.call(b)

/** etcd's hasRootRole. */
const hasRootRole = (u: User): boolean => u.roles.includes(ROOT_ROLE)

export interface AuthStoreOptions {
  /** bcrypt cost of new password hashes (--bcrypt-cost); outside 4..31 it is 10, as etcd's NewAuthStore. */
  readonly bcryptCost: number
  /** Simple tokens' TTL (--auth-token-ttl, in ms here); <= 0 means 300 s. */
  readonly tokenTtlMs: number
  /** Drives token expiry. */
  readonly clock: Clock
  /** Receives background failures (the token sweeper). */
  readonly onError: (err: unknown) => void
  /** JWT tokens (etcd's --auth-token jwt,...) instead of simple ones. Throws JwtOptionsError when invalid. */
  readonly jwt?: JwtOptions | undefined
}

/**
 * A user to add. `hashedPassword` (etcd 3.5), when non-empty, is stored as is instead of a hash of `password`;
 * a no-password user stores neither (3.5's rule).
 */
export interface UserAddRequest {
  readonly name: string
  readonly password: string
  readonly noPassword?: boolean | undefined
  readonly hashedPassword?: string | undefined
}

/** A password change. `hashedPassword` (etcd 3.5) is stored as is instead of a hash of `password`. */
export interface UserChangePasswordRequest {
  readonly name: string
  readonly password: string
  readonly hashedPassword?: string | undefined
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
  private readonly backend: Backend
  private readonly bcryptCost: number
  private readonly tokens: TokenProvider
  private readonly users = new Map<string, User>()
  private readonly roles = new Map<string, Role>()
  private readonly permCache = new RangePermCache()
  private enabledFlag = false
  private rev = 0

  private constructor(backend: Backend, opts: AuthStoreOptions) {
    this.backend = backend
    const cost = opts.bcryptCost
    this.bcryptCost = Number.isInteger(cost) && cost >= BCRYPT_MIN_COST && cost <= BCRYPT_MAX_COST ? cost : BCRYPT_DEFAULT_COST
    this.tokens =
      opts.jwt !== undefined
        ? new JwtTokenProvider(opts.jwt, opts.clock)
        : simpleTokenProvider(new SimpleTokenProvider({ ttlMs: opts.tokenTtlMs, clock: opts.clock, onError: opts.onError }))
  }

  /**
   * Load the store (etcd's NewAuthStore): the enabled flag, the revision, every user and role. A store that
   * has no revision yet gets revision 1, buffered in the backend: the caller commits.
   */
  static async open(backend: Backend, opts: AuthStoreOptions): Promise<AuthStore> {
    const s = new AuthStore(backend, opts)
    const flag = backend.get('auth', ENABLE_FLAG_KEY)
    s.enabledFlag = flag !== undefined && equalBytes(flag, AUTH_ENABLED)
    const revBytes = backend.get('auth', REVISION_KEY)
    if (revBytes !== undefined) {
      const rev = readU64(revBytes)
      invariant(rev !== undefined && rev <= BigInt(Number.MAX_SAFE_INTEGER), 'stored auth revision is not an 8-byte safe integer')
      s.rev = Number(rev)
    }
    for (const { value } of await backend.scan('authUsers', EMPTY, NAMES_END, Number.MAX_SAFE_INTEGER)) {
      const u = decodeUser(value)
      s.users.set(u.name, u)
    }
    for (const { value } of await backend.scan('authRoles', EMPTY, NAMES_END, Number.MAX_SAFE_INTEGER)) {
      const r = decodeRole(value)
      s.roles.set(r.name, r)
    }
    if (s.enabledFlag) s.tokens.enable()
    if (s.rev === 0) s.commitRevision()
    s.refreshPermCache()
    return s
  }

  /** Whether authentication is enabled. */
  get enabled(): boolean {
    return this.enabledFlag
  }

  /** The auth revision (>= 1 once opened). */
  revision(): number {
    return this.rev
  }

  // ---- Enable, disable ----

  /**
   * Turn authentication on (etcd's AuthEnable). A no-op when already on. Needs a user `root` that holds the
   * role `root`: AUTH_ROOT_USER_NOT_EXIST, AUTH_ROOT_ROLE_NOT_EXIST. Does not bump the revision.
   */
  async enable(): Promise<void> {
    if (!this.enabledFlag) {
      const root = this.users.get(ROOT_USER)
      if (root === undefined) throw new EtcdError('AUTH_ROOT_USER_NOT_EXIST')
      if (!hasRootRole(root)) throw new EtcdError('AUTH_ROOT_ROLE_NOT_EXIST')
      this.backend.put('auth', ENABLE_FLAG_KEY, AUTH_ENABLED)
      this.enabledFlag = true
      this.tokens.enable()
      this.refreshPermCache()
    }
    // Also on the no-op path: a concurrent enable() may still be committing the flag.
    await this.backend.commit()
  }

  /** Turn authentication off (etcd's AuthDisable): bumps the revision, drops every token. A no-op when off. */
  async disable(): Promise<void> {
    if (this.enabledFlag) {
      this.backend.put('auth', ENABLE_FLAG_KEY, AUTH_DISABLED)
      this.commitRevision()
      this.enabledFlag = false
      this.tokens.disable()
    }
    await this.backend.commit()
  }

  // ---- Users ----

  /**
   * Add a user (etcd's UserAdd). USER_EMPTY for an empty name; the password is hashed (unless the user has
   * none, or `hashedPassword` is given); then USER_ALREADY_EXIST.
   */
  async userAdd(r: UserAddRequest): Promise<void> {
    if (r.name === '') throw new EtcdError('USER_EMPTY')
    const noPassword = r.noPassword === true
    const password = noPassword ? '' : await this.hashOrGiven(r.password, r.hashedPassword)
    if (this.users.has(r.name)) throw new EtcdError('USER_ALREADY_EXIST')
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
    if (this.enabledFlag && name === ROOT_USER) throw new EtcdError('INVALID_AUTH_MGMT')
    if (!this.users.has(name)) throw new EtcdError('USER_NOT_FOUND')
    this.users.delete(name)
    this.backend.del('authUsers', utf8(name))
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
    const u = this.users.get(r.name)
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
    const u = this.users.get(user)
    if (u === undefined) throw new EtcdError('USER_NOT_FOUND')
    if (role !== ROOT_ROLE && !this.roles.has(role)) throw new EtcdError('ROLE_NOT_FOUND')
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
    if (this.enabledFlag && name === ROOT_USER && role === ROOT_ROLE) throw new EtcdError('INVALID_AUTH_MGMT')
    const u = this.users.get(name)
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
    const u = this.users.get(name)
    if (u === undefined) throw new EtcdError('USER_NOT_FOUND')
    return [...u.roles]
  }

  /** Every user name, sorted by their bytes (etcd's UserList). */
  userList(): readonly string[] {
    return [...this.users.keys()].sort(compareNames)
  }

  // ---- Roles ----

  /** Add a role (etcd's RoleAdd). ROLE_EMPTY, ROLE_ALREADY_EXIST. A role named `root` is a stored role like any other. */
  async roleAdd(name: string): Promise<void> {
    if (name === '') throw new EtcdError('ROLE_EMPTY')
    if (this.roles.has(name)) throw new EtcdError('ROLE_ALREADY_EXIST')
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
    if (this.enabledFlag && name === ROOT_ROLE) throw new EtcdError('INVALID_AUTH_MGMT')
    if (!this.roles.has(name)) throw new EtcdError('ROLE_NOT_FOUND')
    this.roles.delete(name)
    this.backend.del('authRoles', utf8(name))
    for (const u of [...this.users.values()]) {
      const roles = u.roles.filter((r) => r !== name)
      if (roles.length !== u.roles.length) this.putUser({ ...u, roles })
    }
    this.commitRevision()
    this.refreshPermCache()
    await this.backend.commit()
  }

  /** A role's permissions in stored order, sorted by key (etcd's RoleGet). ROLE_NOT_FOUND. */
  roleGet(name: string): readonly Permission[] {
    const r = this.roles.get(name)
    if (r === undefined) throw new EtcdError('ROLE_NOT_FOUND')
    return [...r.keyPermission]
  }

  /** Every role name, sorted by their bytes (etcd's RoleList). */
  roleList(): readonly string[] {
    return [...this.roles.keys()].sort(compareNames)
  }

  /**
   * Grant a permission to a role (etcd's RoleGrantPermission). ROLE_NOT_FOUND. etcd looks only at the FIRST
   * permission whose key is >= perm.key: when it has the same key and range end its type is updated, else
   * the permission is appended and the list sorted by key with Go's unstable sort.Sort (ported in go-sort.ts,
   * so equal keys end up in etcd's order). Consequence kept from etcd: when a role holds several permissions
   * on one key, granting again one that is not the first of them adds a duplicate.
   */
  async roleGrantPermission(name: string, perm: Permission): Promise<void> {
    const role = this.roles.get(name)
    if (role === undefined) throw new EtcdError('ROLE_NOT_FOUND')
    const perms = [...role.keyPermission]
    const idx = searchFirstKeyAtLeast(perms, perm.key)
    const at = perms[idx]
    if (at !== undefined && equalBytes(at.key, perm.key) && equalBytes(at.rangeEnd, perm.rangeEnd)) {
      perms[idx] = { ...at, permType: perm.permType }
    } else {
      perms.push({ permType: perm.permType, key: copyBytes(perm.key), rangeEnd: copyBytes(perm.rangeEnd) })
      goSort(perms, (a, b) => compareBytes(a.key, b.key) < 0)
    }
    this.putRole({ name: role.name, keyPermission: perms })
    this.commitRevision()
    this.refreshPermCache()
    await this.backend.commit()
  }

  /**
   * Revoke every permission of a role with exactly this key and range end (etcd's RoleRevokePermission).
   * ROLE_NOT_FOUND; PERMISSION_NOT_GRANTED when none matches.
   */
  async roleRevokePermission(role: string, key: Uint8Array, rangeEnd: Uint8Array): Promise<void> {
    const r = this.roles.get(role)
    if (r === undefined) throw new EtcdError('ROLE_NOT_FOUND')
    const kept = r.keyPermission.filter((p) => !equalBytes(p.key, key) || !equalBytes(p.rangeEnd, rangeEnd))
    if (kept.length === r.keyPermission.length) throw new EtcdError('PERMISSION_NOT_GRANTED')
    this.putRole({ name: r.name, keyPermission: kept })
    this.commitRevision()
    this.refreshPermCache()
    await this.backend.commit()
  }

  // ---- Authentication ----

  /**
   * Check a user's password (etcd's CheckPassword) and return the auth revision read before the (slow) hash
   * comparison. AUTH_NOT_ENABLED; AUTH_FAILED for an unknown user; NO_PASSWORD_USER; AUTH_FAILED for a
   * wrong password.
   */
  async checkPassword(name: string, password: string): Promise<number> {
    if (!this.enabledFlag) throw new EtcdError('AUTH_NOT_ENABLED')
    const u = this.users.get(name)
    if (u === undefined) throw new EtcdError('AUTH_FAILED')
    if (u.noPassword) throw new EtcdError('NO_PASSWORD_USER')
    const rev = this.rev
    const { compare } = await import('bcryptjs')
    if (!(await compare(password, u.password))) throw new EtcdError('AUTH_FAILED')
    return rev
  }

  /**
   * Hand a checked user a new simple token `<16 letters>.<index>` (etcd's Authenticate, after CheckPassword).
   * AUTH_NOT_ENABLED; AUTH_FAILED when the user is gone or has no password.
   */
  assignToken(name: string, index: number): string {
    if (!this.enabledFlag) throw new EtcdError('AUTH_NOT_ENABLED')
    const u = this.users.get(name)
    if (u === undefined || u.noPassword) throw new EtcdError('AUTH_FAILED')
    return this.tokens.assign(name, this.rev, index)
  }

  /**
   * Who a token belongs to, at the current revision (simple tokens carry none), restarting its TTL; undefined
   * when it is malformed, unknown or expired.
   */
  authInfoFromToken(token: string): AuthInfo | undefined {
    return this.tokens.info(token, this.rev)
  }

  // ---- Permission checks (throw; no-ops while auth is disabled) ----

  /** Read on `key` (rangeEnd empty), or on [key, rangeEnd) ("\0": to the end of the keyspace). */
  isRangePermitted(ai: AuthInfo | undefined, key: Uint8Array, rangeEnd: Uint8Array): void {
    this.isOpPermitted(ai, key, rangeEnd, 'READ')
  }

  /** Write on `key`. */
  isPutPermitted(ai: AuthInfo | undefined, key: Uint8Array): void {
    this.isOpPermitted(ai, key, EMPTY, 'WRITE')
  }

  /** Write on `key` (rangeEnd empty), or on [key, rangeEnd) ("\0": to the end of the keyspace). */
  isDeleteRangePermitted(ai: AuthInfo | undefined, key: Uint8Array, rangeEnd: Uint8Array): void {
    this.isOpPermitted(ai, key, rangeEnd, 'WRITE')
  }

  /**
   * A user, with no permission needed (etcd's hardening of CVE-2026-33413, GHSA-q8m4-xhhv-38mg: Status,
   * MemberList, listing alarms and the Lease calls): USER_EMPTY without one. A no-op while auth is disabled.
   */
  isUserPresent(ai: AuthInfo | undefined): void {
    if (!this.enabledFlag) return
    if (ai === undefined || ai.username === '') throw new EtcdError('USER_EMPTY')
  }

  /** The root role (etcd's IsAdminPermitted): USER_EMPTY without a user, USER_NOT_FOUND, PERMISSION_DENIED. */
  isAdminPermitted(ai: AuthInfo | undefined): void {
    if (!this.enabledFlag) return
    if (ai === undefined || ai.username === '') throw new EtcdError('USER_EMPTY')
    const u = this.users.get(ai.username)
    if (u === undefined) throw new EtcdError('USER_NOT_FOUND')
    if (!hasRootRole(u)) throw new EtcdError('PERMISSION_DENIED')
  }

  /** Whether a user exists and holds a role (etcd's HasRole). */
  hasRole(user: string, role: string): boolean {
    return this.users.get(user)?.roles.includes(role) ?? false
  }

  /** Stop the token sweeper (awaited). Tokens are gone afterwards. Idempotent. */
  async close(): Promise<void> {
    await this.tokens.close()
  }

  /**
   * etcd's isOpPermitted: USER_EMPTY without a user (or at revision 0); AUTH_OLD_REVISION when the caller's
   * revision is behind; PERMISSION_DENIED for an unknown user; the root role may do anything; else the
   * permission cache decides.
   */
  private isOpPermitted(ai: AuthInfo | undefined, key: Uint8Array, rangeEnd: Uint8Array, access: AccessType): void {
    if (!this.enabledFlag) return
    if (ai === undefined || ai.revision === 0) throw new EtcdError('USER_EMPTY')
    if (ai.revision < this.rev) throw new EtcdError('AUTH_OLD_REVISION')
    const u = this.users.get(ai.username)
    if (u === undefined) throw new EtcdError('PERMISSION_DENIED')
    if (hasRootRole(u)) return
    if (this.permCache.isRangeOpPermitted(ai.username, key, rangeEnd, access)) return
    throw new EtcdError('PERMISSION_DENIED')
  }

  // ---- Internals ----

  /** The stored form of a password: `hashedPassword` as given when non-empty, else a bcrypt hash. */
  private async hashOrGiven(password: string, hashedPassword: string | undefined): Promise<string> {
    if (hashedPassword !== undefined && hashedPassword !== '') return hashedPassword
    // Go's bcrypt writes version 2a (bcryptjs 2b; the two hash alike): keep etcd's form.
    const { genSalt, hash } = await import('bcryptjs')
    const salt = (await genSalt(this.bcryptCost)).replace(/^\$2b\$/, '$2a$')
    return hash(password, salt)
  }

  private putUser(u: User): void {
    this.users.set(u.name, u)
    this.backend.put('authUsers', utf8(u.name), encodeUser(u))
  }

  private putRole(r: Role): void {
    this.roles.set(r.name, r)
    this.backend.put('authRoles', utf8(r.name), encodeRole(r))
  }

  /** etcd's commitRevision: one more, stored 8-byte big-endian. */
  private commitRevision(): void {
    this.rev++
    this.backend.put('auth', REVISION_KEY, u64(BigInt(this.rev)))
  }

  private refreshPermCache(): void {
    this.permCache.refresh(this.users.values(), (name) => this.roles.get(name))
  }
}

/** Go's sort.Search for the first permission whose key is >= `key` (binary search over a key-sorted list). */
function searchFirstKeyAtLeast(perms: readonly Permission[], key: Uint8Array): number {
  let i = 0
  let j = perms.length
  while (i < j) {
    const h = (i + j) >>> 1
    if (compareBytes((perms[h] as Permission).key, key) < 0) i = h + 1
    else j = h
  }
  return i
}
