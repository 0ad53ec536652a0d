// etcd's v2auth User, Role, Permissions and RWPermission: their JSON both ways as Go's encoding/json does
// it. Decoding matches field names case-insensitively, fails on a wrong type (a number for a name, a string
// for a list), takes null as "leave unset", and keeps null lists apart from empty ones, since etcd's
// answers show the difference ("roles":null after a create, "roles":[] after revoking the last role).
import { utf8ToBstr } from '../../../pkg/bstr.js'
import type { GoJsonValue } from '../../../pkg/go-json.js'

export interface RWPermission {
  read: string[] | null
  write: string[] | null
}

export interface Permissions {
  kv: RWPermission
}

export interface V2User {
  user: string
  /** A bcrypt hash once stored; the plain password in a request. */
  password: string
  roles: string[] | null
  grant: string[] | null
  revoke: string[] | null
}

export interface V2Role {
  role: string
  permissions: Permissions
  grant: Permissions | null
  revoke: Permissions | null
}

export const emptyUser = (user = ''): V2User => ({ user, password: '', roles: null, grant: null, revoke: null })
export const emptyPermissions = (): Permissions => ({ kv: { read: null, write: null } })
export const emptyRole = (role = ''): V2Role => ({ role, permissions: emptyPermissions(), grant: null, revoke: null })

/** A body or stored value that does not decode into the type (Go's UnmarshalTypeError). */
export class DecodeError extends Error {
  override name = 'DecodeError'
}

/** Go's field-name folding: case-insensitive, with 'ſ' as 's' and the Kelvin sign as 'k'. */
const fold = (s: string): string => s.replace(/ſ/g, 's').replace(/\u212a/g, 'k').toLowerCase()

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Each key of `obj` that names a field (case-insensitively), with its value, in order. */
function fields(obj: Record<string, unknown>, names: readonly string[]): [string, unknown][] {
  const out: [string, unknown][] = []
  for (const [k, v] of Object.entries(obj)) {
    const name = names.find((n) => n === k) ?? names.find((n) => fold(n) === fold(k))
    if (name !== undefined) out.push([name, v])
  }
  return out
}

function str(v: unknown, prev: string): string {
  if (v === null) return prev
  if (typeof v !== 'string') throw new DecodeError('json: cannot unmarshal into a string')
  return utf8ToBstr(v)
}

function strList(v: unknown): string[] | null {
  if (v === null) return null
  if (!Array.isArray(v)) throw new DecodeError('json: cannot unmarshal into []string')
  return v.map((x) => str(x, ''))
}

function rwPermission(v: unknown, into: RWPermission): RWPermission {
  if (v === null) return into
  if (!isObject(v)) throw new DecodeError('json: cannot unmarshal into RWPermission')
  const out = { ...into }
  for (const [name, x] of fields(v, ['read', 'write'])) {
    if (name === 'read') out.read = strList(x)
    else out.write = strList(x)
  }
  return out
}

function permissions(v: unknown, into: Permissions): Permissions {
  if (v === null) return into
  if (!isObject(v)) throw new DecodeError('json: cannot unmarshal into Permissions')
  let kv = into.kv
  for (const [, x] of fields(v, ['kv'])) kv = rwPermission(x, kv)
  return { kv }
}

/** Decode a User (json.Unmarshal into a zero User). Throws DecodeError. */
export function decodeUser(v: unknown): V2User {
  const u = emptyUser()
  if (v === null) return u
  if (!isObject(v)) throw new DecodeError('json: cannot unmarshal into User')
  for (const [name, x] of fields(v, ['user', 'password', 'roles', 'grant', 'revoke'])) {
    if (name === 'user') u.user = str(x, u.user)
    else if (name === 'password') u.password = str(x, u.password)
    else if (name === 'roles') u.roles = strList(x)
    else if (name === 'grant') u.grant = strList(x)
    else u.revoke = strList(x)
  }
  return u
}

/** Decode a Role (json.Unmarshal into a zero Role). Throws DecodeError. */
export function decodeRole(v: unknown): V2Role {
  const r = emptyRole()
  if (v === null) return r
  if (!isObject(v)) throw new DecodeError('json: cannot unmarshal into Role')
  for (const [name, x] of fields(v, ['role', 'permissions', 'grant', 'revoke'])) {
    if (name === 'role') r.role = str(x, r.role)
    else if (name === 'permissions') r.permissions = permissions(x, r.permissions)
    else if (name === 'grant') r.grant = x === null ? null : permissions(x, emptyPermissions())
    else r.revoke = x === null ? null : permissions(x, emptyPermissions())
  }
  return r
}

const listJson = (l: readonly string[] | null): GoJsonValue => l
const omitEmpty = (l: readonly string[] | null): GoJsonValue | undefined => (l === null || l.length === 0 ? undefined : l)

export function permissionsJson(p: Permissions): GoJsonValue {
  return { kv: { read: listJson(p.kv.read), write: listJson(p.kv.write) } }
}

/** A User as json.Marshal writes it (password, grant and revoke omitted when empty). */
export function userJson(u: V2User): GoJsonValue {
  return { user: u.user, password: u.password === '' ? undefined : u.password, roles: listJson(u.roles), grant: omitEmpty(u.grant), revoke: omitEmpty(u.revoke) }
}

/** A Role as json.Marshal writes it (grant and revoke omitted when absent). */
export function roleJson(r: V2Role): GoJsonValue {
  return {
    role: r.role,
    permissions: permissionsJson(r.permissions),
    grant: r.grant === null ? undefined : permissionsJson(r.grant),
    revoke: r.revoke === null ? undefined : permissionsJson(r.revoke),
  }
}

const sameList = (a: readonly string[] | null, b: readonly string[] | null): boolean =>
  a === null || b === null ? a === b : a.length === b.length && a.every((x, i) => x === b[i])

const samePermissions = (a: Permissions | null, b: Permissions | null): boolean =>
  a === null || b === null ? a === b : sameList(a.kv.read, b.kv.read) && sameList(a.kv.write, b.kv.write)

/** reflect.DeepEqual of two users (a null list differs from an empty one). */
export const sameUser = (a: V2User, b: V2User): boolean =>
  a.user === b.user && a.password === b.password && sameList(a.roles, b.roles) && sameList(a.grant, b.grant) && sameList(a.revoke, b.revoke)

/** reflect.DeepEqual of two roles. */
export const sameRole = (a: V2Role, b: V2Role): boolean =>
  a.role === b.role && samePermissions(a.permissions, b.permissions) && samePermissions(a.grant, b.grant) && samePermissions(a.revoke, b.revoke)
