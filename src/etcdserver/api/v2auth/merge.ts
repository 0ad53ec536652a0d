// etcd's User.merge and Role.merge (server/etcdserver/api/v2auth/auth.go, 3.5.17): how a PUT with grants,
// revocations or a new password changes a stored user or role, with etcd's conflict errors and its
// fmt.Sprintf quirk in two of their messages. Passwords are bcrypt hashes at Go's DefaultCost (the v2 API
// ignores --bcrypt-cost).
import { BCRYPT_DEFAULT_COST, hashPassword } from '../../../auth/password.js'
import { bstrToUtf8, compareBstr, utf8ToBstr } from '../../../pkg/bstr.js'
import { AuthError } from './errors.js'
import { emptyUser, type Permissions, type RWPermission, type V2Role, type V2User } from './types.js'

/** fmt.Sprintf with no arguments: "%%" is a percent sign, any other verb reports its missing operand. */
function sprintfNoArgs(s: string): string {
  return s.replace(/%(%|[#+\- 0]*[0-9]*(?:\.[0-9]*)?[a-zA-Z])/g, (_m, v: string) => (v === '%' ? '%' : `%!${v.slice(-1)}(MISSING)`))
}

/** A set of names, as etcd's types.NewUnsafeSet is used here: membership, then a sorted list. */
const sortedValues = (s: Set<string>): string[] => [...s].sort(compareBstr)

/** etcd's User.merge: the new password (hashed) if given, then grants (no duplicates) and revocations (no strangers). */
export async function mergeUser(ou: V2User, nu: V2User): Promise<V2User> {
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
export function mergeRole(r: V2Role, n: V2Role): V2Role {
  if (r.role !== n.role) throw new AuthError(409, `Merging role with conflicting names: ${r.role} ${n.role}`)
  let p: Permissions = r.permissions
  if (n.grant !== null) p = { kv: grantRw(p.kv, n.grant.kv) }
  if (n.revoke !== null) p = { kv: revokeRw(p.kv, n.revoke.kv) }
  return { role: r.role, permissions: p, grant: null, revoke: null }
}

/** A new hash at Go's DefaultCost, which v2auth always uses. */
export async function hashV2Password(password: string): Promise<string> {
  return utf8ToBstr(await hashPassword(bstrToUtf8(password), BCRYPT_DEFAULT_COST))
}
