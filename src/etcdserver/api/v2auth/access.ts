// etcd's v2auth roles and key access (server/etcdserver/api/v2auth/auth.go, 3.5.17): the root role, which
// may do anything, the guest role that enable makes for requests without credentials, and how a role's
// read and write patterns grant access to a key or to a whole subtree.
import { AuthPanic } from './errors.js'
import type { Permissions, V2Role } from './types.js'

export const ROOT_ROLE_NAME = 'root'
export const GUEST_ROLE_NAME = 'guest'

/** The root role as etcd answers it (it is never stored): every key, read and write. */
export const rootRole = (): V2Role => ({ role: ROOT_ROLE_NAME, permissions: { kv: { read: ['/*'], write: ['/*'] } }, grant: null, revoke: null })
/** The guest role enable stores when there is none: every key, read and write, until an admin narrows it. */
export const guestRole = (): V2Role => ({ role: GUEST_ROLE_NAME, permissions: { kv: { read: ['/*'], write: ['/*'] } }, grant: null, revoke: null })

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
