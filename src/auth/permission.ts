// The shapes of users, roles and key permissions (etcd's authpb) and of the requests that change users,
// shared by the auth store and the server; the root user and role; how a grant changes a role's permissions.
import { compareBytes, equalBytes } from '../pkg/bytes.js'
import { goSort } from './go-sort.js'

/** authpb.Permission.Type. */
export type PermissionType = 'READ' | 'WRITE' | 'READWRITE'

/**
 * A key permission of a role (authpb.Permission). `rangeEnd` empty: the single key `key`; `"\0"`: every key
 * from `key` on; otherwise the half-open range [key, rangeEnd).
 */
export interface Permission {
  readonly permType: PermissionType
  readonly key: Uint8Array
  readonly rangeEnd: Uint8Array
}

/** A stored user (authpb.User). `password` is a bcrypt hash, empty for a no-password user. */
export interface User {
  readonly name: string
  readonly password: string
  /** Sorted, no duplicates. */
  readonly roles: readonly string[]
  readonly noPassword: boolean
}

/** A stored role (authpb.Role); permissions sorted by key. */
export interface Role {
  readonly name: string
  readonly keyPermission: readonly Permission[]
}

/** The user and the role that may enable auth and may do anything once it is on. */
export const ROOT_USER = 'root'
export const ROOT_ROLE = 'root'

/** etcd's hasRootRole. */
export const hasRootRole = (u: User): boolean => u.roles.includes(ROOT_ROLE)

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

/** Who a request runs as (etcd's AuthInfo): the user and the auth revision its credentials were checked at. */
export interface AuthInfo {
  readonly username: string
  readonly revision: number
}

const copyBytes = (b: Uint8Array): Uint8Array => Uint8Array.prototype.slice.call(b)

/**
 * A role's permissions after granting `perm`, as etcd's RoleGrantPermission makes them. etcd looks only at
 * the FIRST permission whose key is >= perm.key: when it has the same key and range end its type is
 * updated, else the permission is appended and the list sorted by key with Go's unstable sort.Sort (ported
 * in go-sort.ts, so equal keys end up in etcd's order). Consequence kept from etcd: when a role holds
 * several permissions on one key, granting again one that is not the first of them adds a duplicate.
 */
export function withPermission(current: readonly Permission[], perm: Permission): Permission[] {
  const perms = [...current]
  const idx = searchFirstKeyAtLeast(perms, perm.key)
  const at = perms[idx]
  if (at !== undefined && equalBytes(at.key, perm.key) && equalBytes(at.rangeEnd, perm.rangeEnd)) {
    perms[idx] = { ...at, permType: perm.permType }
  } else {
    perms.push({ permType: perm.permType, key: copyBytes(perm.key), rangeEnd: copyBytes(perm.rangeEnd) })
    goSort(perms, (a, b) => compareBytes(a.key, b.key) < 0)
  }
  return perms
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
