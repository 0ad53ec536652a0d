// etcd's v2http/client_auth.go (3.5.17): who a v2 request comes from (basic auth, or with --client-cert-auth
// and no Authorization header the common names along its verified certificate chain), the key access
// rules (root role, the user's roles, else the guest role), and the /v2/auth/{users,roles,enable}
// handlers with etcd's status codes and messages.
import { clean } from '../../../pkg/go-path.js'
import { goJsonDecodeFirst, goJsonEncode, type GoJsonValue } from '../../../pkg/go-json.js'
import { GUEST_ROLE_NAME, ROOT_ROLE_NAME, hasKeyAccess, hasRecursiveAccess, permissionsEmpty } from '../v2auth/access.js'
import type { V2AuthStore } from '../v2auth/auth.js'
import { AuthPanic } from '../v2auth/errors.js'
import { decodeRole, decodeUser, roleJson, userJson, type V2Role, type V2User } from '../v2auth/types.js'
import { allowMethod, writeError } from './http.js'
import { HTTPError } from './httptypes.js'
import type { GoRequest, GoResponse } from './go-http.js'

export const AUTH_PREFIX = '/v2/auth'

/** What the auth handlers need: the auth store, the cluster ID header value, and the client-cert rule. */
export interface AuthContext {
  readonly sec: V2AuthStore
  readonly clusterId: string
}

/** Whether a request may use the certificate's common name: only a verified chain under --client-cert-auth has one. */
const clientCertAuthEnabled = (r: GoRequest): boolean => r.verifiedCommonNames().length > 0

/** An error that means "no such user" (or any failed lookup), not a panic. */
function rethrowPanic(err: unknown): void {
  if (err instanceof AuthPanic) throw err
}

async function userFromBasicAuth(sec: V2AuthStore, r: GoRequest): Promise<V2User | undefined> {
  const creds = r.basicAuth()
  if (creds === undefined) return undefined
  let user: V2User
  try {
    user = await sec.getUser(creds.username)
  } catch (err) {
    rethrowPanic(err)
    return undefined
  }
  return (await sec.checkPassword(user, creds.password)) ? user : undefined
}

async function userFromClientCertificate(sec: V2AuthStore, r: GoRequest): Promise<V2User | undefined> {
  for (const cn of r.verifiedCommonNames()) {
    try {
      return await sec.getUser(cn)
    } catch (err) {
      rethrowPanic(err)
    }
  }
  return undefined
}

/** hasRootAccess: auth off, or a user (basic auth, or the certificate without one) holding the root role. */
export async function hasRootAccess(sec: V2AuthStore, r: GoRequest): Promise<boolean> {
  if (!(await sec.authEnabled())) return true
  const rootUser = r.header('Authorization') === '' && clientCertAuthEnabled(r) ? await userFromClientCertificate(sec, r) : await userFromBasicAuth(sec, r)
  return rootUser !== undefined && (rootUser.roles ?? []).includes(ROOT_ROLE_NAME)
}

/** hasWriteRootAccess: reads are open to everyone; anything else needs root. */
export async function hasWriteRootAccess(sec: V2AuthStore, r: GoRequest): Promise<boolean> {
  if (r.method === 'GET' || r.method === 'HEAD') return true
  return hasRootAccess(sec, r)
}

async function hasGuestAccess(sec: V2AuthStore, r: GoRequest, key: string): Promise<boolean> {
  const writeAccess = r.method !== 'GET' && r.method !== 'HEAD'
  let role: V2Role
  try {
    role = await sec.getRole(GUEST_ROLE_NAME)
  } catch (err) {
    rethrowPanic(err)
    return false
  }
  return hasKeyAccess(role, key, writeAccess)
}

/** hasKeyPrefixAccess: may this request read (GET/HEAD) or write `key` (recursively: everything under it)? */
export async function hasKeyPrefixAccess(sec: V2AuthStore, r: GoRequest, key: string, recursive: boolean): Promise<boolean> {
  if (!(await sec.authEnabled())) return true
  let user: V2User | undefined
  if (r.header('Authorization') === '') {
    if (clientCertAuthEnabled(r)) user = await userFromClientCertificate(sec, r)
    if (user === undefined) return hasGuestAccess(sec, r, key)
  } else {
    user = await userFromBasicAuth(sec, r)
    if (user === undefined) return false
  }
  const writeAccess = r.method !== 'GET' && r.method !== 'HEAD'
  for (const roleName of user.roles ?? []) {
    let role: V2Role
    try {
      role = await sec.getRole(roleName)
    } catch (err) {
      rethrowPanic(err)
      continue
    }
    if (recursive ? hasRecursiveAccess(role, key, writeAccess) : hasKeyAccess(role, key, writeAccess)) return true
  }
  return false
}

export function writeNoAuth(w: GoResponse): void {
  new HTTPError(401, 'Insufficient credentials').writeTo(w)
}

function setAuthHeaders(c: AuthContext, w: GoResponse): void {
  w.setHeader('X-Etcd-Cluster-Id', c.clusterId)
  w.setHeader('Content-Type', 'application/json')
}

/** The request's form, for its error only: etcd parses it and answers a malformed query with an error. */
async function formError(r: GoRequest): Promise<Error | undefined> {
  const { error } = await r.parseForm()
  return error === undefined ? undefined : new Error(error)
}

/** GET /v2/auth/roles: every role with its permissions. */
export async function baseRoles(c: AuthContext, r: GoRequest, w: GoResponse): Promise<void> {
  if (!allowMethod(w, r.method, 'GET')) return
  if (!(await hasRootAccess(c.sec, r))) return writeNoAuth(w)
  setAuthHeaders(c, w)
  const roles = await c.sec.allRoles()
  const ferr = await formError(r)
  if (ferr !== undefined) return writeError(w, ferr)
  const out: GoJsonValue[] = []
  for (const name of roles) out.push(roleJson(await c.sec.getRole(name)))
  w.write(goJsonEncode({ roles: out.length === 0 ? null : out }))
}

/** /v2/auth/roles/<name> (and the list again for /v2/auth/roles/). */
export async function handleRoles(c: AuthContext, r: GoRequest, w: GoResponse): Promise<void> {
  const pieces = clean(r.path.slice(AUTH_PREFIX.length)).split('/')
  if (pieces.length === 2) return baseRoles(c, r, w)
  if (pieces.length !== 3) return writeError(w, new HTTPError(400, 'Invalid path'))
  return forRole(c, r, w, pieces[2] ?? '')
}

async function decodeBody<T>(r: GoRequest, decode: (v: unknown) => T): Promise<T | undefined> {
  try {
    return decode(goJsonDecodeFirst((await r.readBody()).toString('utf8')))
  } catch {
    // Not JSON, or not the type (DecodeError): etcd answers both alike.
    return undefined
  }
}

async function forRole(c: AuthContext, r: GoRequest, w: GoResponse, role: string): Promise<void> {
  if (!allowMethod(w, r.method, 'GET', 'PUT', 'DELETE')) return
  if (!(await hasRootAccess(c.sec, r))) return writeNoAuth(w)
  setAuthHeaders(c, w)
  switch (r.method) {
    case 'GET':
      w.write(goJsonEncode(roleJson(await c.sec.getRole(role))))
      return
    case 'PUT': {
      const input = await decodeBody(r, decodeRole)
      if (input === undefined) return writeError(w, new HTTPError(400, 'Invalid JSON in request body.'))
      if (input.role !== role) return writeError(w, new HTTPError(400, 'Role JSON name does not match the name in the URL'))
      let out: V2Role
      if (permissionsEmpty(input.grant) && permissionsEmpty(input.revoke)) {
        await c.sec.createRole(input)
        w.writeHeader(201)
        out = input
      } else {
        if (!permissionsEmpty(input.permissions)) return writeError(w, new HTTPError(400, 'Role JSON contains both permissions and grant/revoke'))
        out = await c.sec.updateRole(input)
        w.writeHeader(200)
      }
      w.write(goJsonEncode(roleJson(out)))
      return
    }
    case 'DELETE':
      await c.sec.deleteRole(role)
      return
  }
}

/** A user with its roles spelled out (etcd's userWithRoles: roles omitted when it has none). */
const userWithRoles = (user: string, roles: V2Role[]): GoJsonValue => ({ user, roles: roles.length === 0 ? undefined : roles.map(roleJson) })

/** GET /v2/auth/users: every user with its roles. */
export async function baseUsers(c: AuthContext, r: GoRequest, w: GoResponse): Promise<void> {
  if (!allowMethod(w, r.method, 'GET')) return
  if (!(await hasRootAccess(c.sec, r))) return writeNoAuth(w)
  setAuthHeaders(c, w)
  const users = await c.sec.allUsers()
  const ferr = await formError(r)
  if (ferr !== undefined) return writeError(w, ferr)
  const out: GoJsonValue[] = []
  for (const name of users) {
    const u = await c.sec.getUser(name)
    const roles: V2Role[] = []
    for (const roleName of u.roles ?? []) {
      try {
        roles.push(await c.sec.getRole(roleName))
      } catch (err) {
        rethrowPanic(err)
      }
    }
    out.push(userWithRoles(u.user, roles))
  }
  w.write(goJsonEncode({ users: out.length === 0 ? null : out }))
}

/** /v2/auth/users/<name> (and the list again for /v2/auth/users/). */
export async function handleUsers(c: AuthContext, r: GoRequest, w: GoResponse): Promise<void> {
  const pieces = clean(r.path.slice(AUTH_PREFIX.length)).split('/')
  if (pieces.length === 2) return baseUsers(c, r, w)
  if (pieces.length !== 3) return writeError(w, new HTTPError(400, 'Invalid path'))
  return forUser(c, r, w, pieces[2] ?? '')
}

async function forUser(c: AuthContext, r: GoRequest, w: GoResponse, user: string): Promise<void> {
  if (!allowMethod(w, r.method, 'GET', 'PUT', 'DELETE')) return
  if (!(await hasRootAccess(c.sec, r))) return writeNoAuth(w)
  setAuthHeaders(c, w)
  switch (r.method) {
    case 'GET': {
      const u = await c.sec.getUser(user)
      const ferr = await formError(r)
      if (ferr !== undefined) return writeError(w, ferr)
      const roles: V2Role[] = []
      for (const roleName of u.roles ?? []) roles.push(await c.sec.getRole(roleName))
      w.write(goJsonEncode(userWithRoles(u.user, roles)))
      return
    }
    case 'PUT': {
      const u = await decodeBody(r, decodeUser)
      if (u === undefined) return writeError(w, new HTTPError(400, 'Invalid JSON in request body.'))
      if (u.user !== user) return writeError(w, new HTTPError(400, 'User JSON name does not match the name in the URL'))
      let out: V2User
      let created = false
      if ((u.grant ?? []).length === 0 && (u.revoke ?? []).length === 0) {
        // A request with a password alone might be a create or an update: etcd finds out which.
        if ((u.roles ?? []).length !== 0) out = await c.sec.createUser(u)
        else [out, created] = await c.sec.createOrUpdateUser(u)
      } else {
        if ((u.roles ?? []).length !== 0) return writeError(w, new HTTPError(400, 'User JSON contains both roles and grant/revoke'))
        out = await c.sec.updateUser(u)
      }
      w.writeHeader(created ? 201 : 200)
      w.write(goJsonEncode(userJson({ ...out, password: '' })))
      return
    }
    case 'DELETE':
      await c.sec.deleteUser(user)
      return
  }
}

/** /v2/auth/enable: GET the flag; PUT enables (needs root, makes the guest role), DELETE disables. */
export async function enableDisable(c: AuthContext, r: GoRequest, w: GoResponse): Promise<void> {
  if (!allowMethod(w, r.method, 'GET', 'PUT', 'DELETE')) return
  if (!(await hasWriteRootAccess(c.sec, r))) return writeNoAuth(w)
  setAuthHeaders(c, w)
  const isEnabled = await c.sec.authEnabled()
  switch (r.method) {
    case 'GET':
      w.write(goJsonEncode({ enabled: isEnabled }))
      return
    case 'PUT':
      await c.sec.enableAuth()
      return
    case 'DELETE':
      await c.sec.disableAuth()
  }
}
