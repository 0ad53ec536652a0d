// etcd's v2 auth store (server/etcdserver/api/v2auth/auth.go and auth_requests.go, 3.5.17): users, roles
// and the enabled flag kept as JSON values in the v2 store under /2 (so they take store indexes and raft
// entries as etcd's do), the root user and role, the default guest role made on enable, and etcd's merge
// rules for grants and revocations. Passwords are bcrypt hashes at Go's DefaultCost (the v2 API ignores
// --bcrypt-cost).
import { BCRYPT_DEFAULT_COST, hashPassword, passwordMatches } from '../../../auth/password.js'
import { bstrToUtf8, compareBstr, utf8ToBstr } from '../../../pkg/bstr.js'
import { goJsonMarshal, type GoJsonValue } from '../../../pkg/go-json.js'
import { join, split } from '../../../pkg/go-path.js'
import { requestV2, type ResponseV2, type V2Doer } from '../../v2-request.js'
import { EcodeKeyNotFound, EcodeNodeExist, V2Error } from '../v2error/error.js'
import {
  decodeRole, decodeUser, emptyUser, roleJson, sameRole, sameUser, userJson, type Permissions,
  type RWPermission, type V2Role, type V2User,
} from './types.js'

/** Where the v2 auth data lives in the v2 store. */
export const STORE_PERMS_PREFIX = '/2'
export const ROOT_ROLE_NAME = 'root'
export const GUEST_ROLE_NAME = 'guest'


const rootRole = (): V2Role => ({ role: ROOT_ROLE_NAME, permissions: { kv: { read: ['/*'], write: ['/*'] } }, grant: null, revoke: null })
const guestRole = (): V2Role => ({ role: GUEST_ROLE_NAME, permissions: { kv: { read: ['/*'], write: ['/*'] } }, grant: null, revoke: null })

/** fmt.Sprintf with no arguments: "%%" is a percent sign, any other verb reports its missing operand. */
function sprintfNoArgs(s: string): string {
  return s.replace(/%(%|[#+\- 0]*[0-9]*(?:\.[0-9]*)?[a-zA-Z])/g, (_m, v: string) => (v === '%' ? '%' : `%!${v.slice(-1)}(MISSING)`))
}

/** A v2auth error: an HTTP status and "auth: ..." message (etcd's v2auth.Error). */
export class AuthError extends Error {
  override name = 'AuthError'
  readonly status: number

  constructor(status: number, message: string) {
    super(`auth: ${message}`)
    this.status = status
  }
}

/** What makes etcd's handler panic (a directory read as a user, an empty pattern): the connection is dropped. */
export class AuthPanic extends Error {
  override name = 'AuthPanic'
}

const isV2Error = (err: unknown, code: number): boolean => err instanceof V2Error && err.errorCode === code

/** A set of names, as etcd's types.NewUnsafeSet is used here: membership, then a sorted list. */
const sortedValues = (s: Set<string>): string[] => [...s].sort(compareBstr)

/** etcd's User.merge: the new password (hashed) if given, then grants (no duplicates) and revocations (no strangers). */
async function mergeUser(ou: V2User, nu: V2User): Promise<V2User> {
  if (ou.user !== nu.user) throw new AuthError(409, `Merging user data with conflicting usernames: ${ou.user} ${nu.user}`)
  const out = emptyUser(ou.user)
  out.password = nu.password !== '' ? await hashV2Password(nu.password) : ou.password
  const current = new Set(ou.roles ?? [])
  for (const g of nu.grant ?? []) {
    if (current.has(g)) throw new AuthError(409, sprintfNoArgs(`Granting duplicate role ${g} for user ${nu.user}`))
    current.add(g)
  }
  for (const r of nu.revoke ?? []) {
    if (!current.has(r)) throw new AuthError(409, sprintfNoArgs(`Revoking ungranted role ${r} for user ${nu.user}`))
    current.delete(r)
  }
  out.roles = sortedValues(current)
  return out
}

function grantRw(rw: RWPermission, n: RWPermission): RWPermission {
  const read = new Set(rw.read ?? [])
  for (const r of n.read ?? []) {
    if (read.has(r)) throw new AuthError(409, `Granting duplicate read permission ${r}`)
    read.add(r)
  }
  const write = new Set(rw.write ?? [])
  for (const w of n.write ?? []) {
    if (write.has(w)) throw new AuthError(409, `Granting duplicate write permission ${w}`)
    write.add(w)
  }
  return { read: sortedValues(read), write: sortedValues(write) }
}

function revokeRw(rw: RWPermission, n: RWPermission): RWPermission {
  // Revoking what was never granted is only logged by etcd.
  const read = new Set(rw.read ?? [])
  for (const r of n.read ?? []) read.delete(r)
  const write = new Set(rw.write ?? [])
  for (const w of n.write ?? []) write.delete(w)
  return { read: sortedValues(read), write: sortedValues(write) }
}

/** etcd's Role.merge: grants, then revocations, over the stored permissions. */
function mergeRole(r: V2Role, n: V2Role): V2Role {
  if (r.role !== n.role) throw new AuthError(409, `Merging role with conflicting names: ${r.role} ${n.role}`)
  let p: Permissions = r.permissions
  if (n.grant !== null) p = { kv: grantRw(p.kv, n.grant.kv) }
  if (n.revoke !== null) p = { kv: revokeRw(p.kv, n.revoke.kv) }
  return { role: r.role, permissions: p, grant: null, revoke: null }
}

/** Permissions.IsEmpty: absent, or no read and no write pattern. */
export const permissionsEmpty = (p: Permissions | null): boolean =>
  p === null || ((p.kv.read ?? []).length === 0 && (p.kv.write ?? []).length === 0)

/** etcd reads a pattern's last byte without checking its length: an empty pattern panics the request. */
function lastByteOf(pattern: string): string {
  if (pattern === '') throw new AuthPanic('v2auth: empty permission pattern')
  return pattern.slice(-1)
}

/** A pattern ending in '*' matches by prefix, any other exactly. */
function simpleMatch(pattern: string, key: string): boolean {
  return lastByteOf(pattern) === '*' ? key.startsWith(pattern.slice(0, -1)) : key === pattern
}

/** Only a pattern ending in '*' grants access to a whole subtree. */
function prefixMatch(pattern: string, key: string): boolean {
  return lastByteOf(pattern) === '*' && key.startsWith(pattern.slice(0, -1))
}

/** Role.HasKeyAccess: root has every key; others need a matching read or write pattern. */
export function hasKeyAccess(r: V2Role, key: string, write: boolean): boolean {
  if (r.role === ROOT_ROLE_NAME) return true
  return ((write ? r.permissions.kv.write : r.permissions.kv.read) ?? []).some((p) => simpleMatch(p, key))
}

/** Role.HasRecursiveAccess: root has every key; others need a prefix pattern covering the key. */
export function hasRecursiveAccess(r: V2Role, key: string, write: boolean): boolean {
  if (r.role === ROOT_ROLE_NAME) return true
  return ((write ? r.permissions.kv.write : r.permissions.kv.read) ?? []).some((p) => prefixMatch(p, key))
}

function attachRootRole(u: V2User): V2User {
  if ((u.roles ?? []).includes(ROOT_ROLE_NAME)) return u
  return { ...u, roles: [...(u.roles ?? []), ROOT_ROLE_NAME] }
}

/** A new hash at Go's DefaultCost, which v2auth always uses. */
async function hashV2Password(password: string): Promise<string> {
  return utf8ToBstr(await hashPassword(bstrToUtf8(password), BCRYPT_DEFAULT_COST))
}

/** Decode a stored JSON value (a byte string). */
function storedJson(value: string | undefined): unknown {
  if (value === undefined) throw new AuthPanic('v2auth: a directory where a value was expected')
  return JSON.parse(bstrToUtf8(value)) as unknown
}

/** etcd's v2auth store over the server's v2 requests. */
export class V2AuthStore {
  private readonly server: V2Doer
  private ensuredOnce = false

  constructor(server: V2Doer) {
    this.server = server
  }

  checkPassword(user: V2User, password: string): Promise<boolean> {
    return passwordMatches(bstrToUtf8(password), bstrToUtf8(user.password))
  }

  async allUsers(): Promise<string[]> {
    let resp: ResponseV2
    try {
      resp = await this.requestResource('/users/', false)
    } catch (err) {
      if (isV2Error(err, EcodeKeyNotFound)) return []
      throw err
    }
    const nodes = (resp.event?.node?.nodes ?? []).map((n) => split(n.key)[1])
    return nodes.sort(compareBstr)
  }

  getUser(name: string): Promise<V2User> {
    return this.getUserQ(name, false)
  }

  /** Create the user, or update it when it exists (a request with only a password could mean either). */
  async createOrUpdateUser(user: V2User): Promise<[V2User, boolean]> {
    try {
      await this.getUserQ(user.user, true)
    } catch (err) {
      if (err instanceof AuthPanic) throw err
      return [await this.createUser(user), true]
    }
    return [await this.updateUser(user), false]
  }

  async createUser(user: V2User): Promise<V2User> {
    if (user.user === 'root') user = attachRootRole(user)
    if (user.password === '') throw new AuthError(400, `Cannot create user ${user.user} with an empty password`)
    const stored = { ...user, password: await hashV2Password(user.password) }
    try {
      await this.createResource(`/users/${user.user}`, userJson(stored))
    } catch (err) {
      if (isV2Error(err, EcodeNodeExist)) throw new AuthError(409, `User ${user.user} already exists.`)
      throw err
    }
    return stored
  }

  async deleteUser(name: string): Promise<void> {
    if ((await this.authEnabled()) && name === 'root') throw new AuthError(403, 'Cannot delete root user while auth is enabled.')
    try {
      await this.deleteResource(`/users/${name}`)
    } catch (err) {
      if (isV2Error(err, EcodeKeyNotFound)) throw new AuthError(404, `User ${name} does not exist`)
      throw err
    }
  }

  async updateUser(user: V2User): Promise<V2User> {
    const old = await this.getUserQ(user.user, true)
    const updated = await mergeUser(old, user)
    if (sameUser(old, updated)) throw new AuthError(400, 'User not updated. Use grant/revoke/password to update the user.')
    await this.updateResource(`/users/${user.user}`, userJson(updated))
    return updated
  }

  async allRoles(): Promise<string[]> {
    const nodes = [ROOT_ROLE_NAME]
    let resp: ResponseV2
    try {
      resp = await this.requestResource('/roles/', false)
    } catch (err) {
      if (isV2Error(err, EcodeKeyNotFound)) return nodes
      throw err
    }
    for (const n of resp.event?.node?.nodes ?? []) nodes.push(split(n.key)[1])
    return nodes.sort(compareBstr)
  }

  getRole(name: string): Promise<V2Role> {
    return this.getRoleQ(name, false)
  }

  async createRole(role: V2Role): Promise<void> {
    if (role.role === ROOT_ROLE_NAME) throw new AuthError(403, `Cannot modify role ${role.role}: is root role.`)
    try {
      await this.createResource(`/roles/${role.role}`, roleJson(role))
    } catch (err) {
      if (isV2Error(err, EcodeNodeExist)) throw new AuthError(409, `Role ${role.role} already exists.`)
      throw err
    }
  }

  async deleteRole(name: string): Promise<void> {
    if (name === ROOT_ROLE_NAME) throw new AuthError(403, `Cannot modify role ${name}: is root role.`)
    try {
      await this.deleteResource(`/roles/${name}`)
    } catch (err) {
      if (isV2Error(err, EcodeKeyNotFound)) throw new AuthError(404, `Role ${name} doesn't exist.`)
      throw err
    }
  }

  async updateRole(role: V2Role): Promise<V2Role> {
    if (role.role === ROOT_ROLE_NAME) throw new AuthError(403, `Cannot modify role ${role.role}: is root role.`)
    const old = await this.getRoleQ(role.role, true)
    const updated = mergeRole(old, role)
    if (sameRole(old, updated)) throw new AuthError(400, 'Role not updated. Use grant/revoke to update the role.')
    await this.updateResource(`/roles/${role.role}`, roleJson(updated))
    return updated
  }

  /** Whether /2/enabled holds JSON true (a missing or unreadable flag is "off"). */
  async authEnabled(): Promise<boolean> {
    let resp: ResponseV2
    try {
      resp = await this.requestResource('/enabled', false)
    } catch {
      return false
    }
    try {
      return storedJson(resp.event?.node?.value) === true
    } catch {
      return false
    }
  }

  async enableAuth(): Promise<void> {
    if (await this.authEnabled()) throw new AuthError(409, 'already enabled')
    try {
      await this.getUserQ('root', true)
    } catch {
      throw new AuthError(409, 'No root user available, please create one')
    }
    try {
      await this.getRoleQ(GUEST_ROLE_NAME, true)
    } catch {
      await this.createRole(guestRole())
    }
    await this.updateResource('/enabled', true)
  }

  async disableAuth(): Promise<void> {
    if (!(await this.authEnabled())) throw new AuthError(409, 'already disabled')
    await this.updateResource('/enabled', false)
  }

  private async getUserQ(name: string, quorum: boolean): Promise<V2User> {
    let resp: ResponseV2
    try {
      resp = await this.requestResource(`/users/${name}`, quorum)
    } catch (err) {
      if (isV2Error(err, EcodeKeyNotFound)) throw new AuthError(404, `User ${name} does not exist.`)
      throw err
    }
    const u = decodeUser(storedJson(resp.event?.node?.value))
    return u.user === 'root' ? attachRootRole(u) : u
  }

  private async getRoleQ(name: string, quorum: boolean): Promise<V2Role> {
    if (name === ROOT_ROLE_NAME) return rootRole()
    let resp: ResponseV2
    try {
      resp = await this.requestResource(`/roles/${name}`, quorum)
    } catch (err) {
      if (isV2Error(err, EcodeKeyNotFound)) throw new AuthError(404, `Role ${name} does not exist.`)
      throw err
    }
    return decodeRole(storedJson(resp.event?.node?.value))
  }

  /** Make /2, /2/users, /2/roles and /2/enabled (false) once per process, as etcd does before its first auth write. */
  private async ensureAuthDirectories(): Promise<void> {
    if (this.ensuredOnce) return
    for (const res of [STORE_PERMS_PREFIX, `${STORE_PERMS_PREFIX}/users/`, `${STORE_PERMS_PREFIX}/roles/`]) {
      try {
        await this.server.do(requestV2({ method: 'PUT', path: res, dir: true, prevExist: false }))
      } catch (err) {
        if (!isV2Error(err, EcodeNodeExist)) throw err
      }
    }
    try {
      await this.server.do(requestV2({ method: 'PUT', path: `${STORE_PERMS_PREFIX}/enabled`, val: 'false', prevExist: false }))
    } catch (err) {
      if (!isV2Error(err, EcodeNodeExist)) throw err
    }
    this.ensuredOnce = true
  }

  private requestResource(res: string, quorum: boolean): Promise<ResponseV2> {
    return this.server.do(requestV2({ method: quorum ? 'QGET' : 'GET', path: join(STORE_PERMS_PREFIX, res) }))
  }

  private updateResource(res: string, value: GoJsonValue): Promise<ResponseV2> {
    return this.setResource(res, value, true)
  }

  private createResource(res: string, value: GoJsonValue): Promise<ResponseV2> {
    return this.setResource(res, value, false)
  }

  private async setResource(res: string, value: GoJsonValue, prevExist: boolean): Promise<ResponseV2> {
    await this.ensureAuthDirectories()
    return this.server.do(requestV2({ method: 'PUT', path: join(STORE_PERMS_PREFIX, res), val: utf8ToBstr(goJsonMarshal(value)), prevExist }))
  }

  private async deleteResource(res: string): Promise<void> {
    await this.ensureAuthDirectories()
    await this.server.do(requestV2({ method: 'DELETE', path: join(STORE_PERMS_PREFIX, res), prevExist: true }))
  }
}
