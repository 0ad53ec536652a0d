// etcd's v2 auth store (server/etcdserver/api/v2auth/auth.go and auth_requests.go, 3.5.17): users, roles
// and the enabled flag kept as JSON values in the v2 store under /2 (so they take store indexes and raft
// entries as etcd's do), the root user and role, and the default guest role made on enable. etcd's rules
// for merging grants and revocations (and for hashing passwords) are in merge.ts, its key access rules in
// access.ts.
import { passwordMatches } from '../../../auth/password.js'
import { bstrToUtf8, compareBstr, utf8ToBstr } from '../../../pkg/bstr.js'
import { goJsonMarshal, type GoJsonValue } from '../../../pkg/go-json.js'
import { join, split } from '../../../pkg/go-path.js'
import { requestV2, type ResponseV2, type V2Doer } from '../../v2-request.js'
import { EcodeKeyNotFound, EcodeNodeExist, V2Error } from '../v2error/error.js'
import { GUEST_ROLE_NAME, ROOT_ROLE_NAME, guestRole, rootRole } from './access.js'
import { AuthError, AuthPanic } from './errors.js'
import { hashV2Password, mergeRole, mergeUser } from './merge.js'
import { decodeRole, decodeUser, roleJson, sameRole, sameUser, userJson, type V2Role, type V2User } from './types.js'

/** Where the v2 auth data lives in the v2 store. */
export const STORE_PERMS_PREFIX = '/2'

const isV2Error = (err: unknown, code: number): boolean => err instanceof V2Error && err.errorCode === code

function attachRootRole(u: V2User): V2User {
  if ((u.roles ?? []).includes(ROOT_ROLE_NAME)) return u
  return { ...u, roles: [...(u.roles ?? []), ROOT_ROLE_NAME] }
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
