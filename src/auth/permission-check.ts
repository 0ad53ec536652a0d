// etcd auth/store.go's request checks (isOpPermitted, IsAdminPermitted, and the user check of the calls that
// need no permission), over the auth store's in-memory state. Errors and their order are etcd's.
import { EtcdError } from '../pkg/errors.js'
import { hasRootRole, type AuthInfo, type Role, type User } from './permission.js'
import type { AccessType, RangePermCache } from './range-perm-cache.js'

/** The auth store's state in memory: the checks read it, the store's mutations change it. */
export interface AuthState {
  enabled: boolean
  /** The auth revision: one more with every change of users, roles or permissions, and with disable. */
  revision: number
  readonly users: Map<string, User>
  readonly roles: Map<string, Role>
  /** Each user's merged READ and WRITE ranges, rebuilt after every change that can alter them. */
  readonly permCache: RangePermCache
}

/**
 * etcd's isOpPermitted: USER_EMPTY without a user (or at revision 0); AUTH_OLD_REVISION when the caller's
 * revision is behind; PERMISSION_DENIED for an unknown user; the root role may do anything; else the
 * permission cache decides. A no-op while auth is disabled.
 */
export function checkOpPermitted(s: AuthState, ai: AuthInfo | undefined, key: Uint8Array, rangeEnd: Uint8Array, access: AccessType): void {
  if (!s.enabled) return
  if (ai === undefined || ai.revision === 0) throw new EtcdError('USER_EMPTY')
  if (ai.revision < s.revision) throw new EtcdError('AUTH_OLD_REVISION')
  const u = s.users.get(ai.username)
  if (u === undefined) throw new EtcdError('PERMISSION_DENIED')
  if (hasRootRole(u)) return
  if (s.permCache.isRangeOpPermitted(ai.username, key, rangeEnd, access)) return
  throw new EtcdError('PERMISSION_DENIED')
}

/**
 * A user, with no permission needed (etcd's hardening of CVE-2026-33413, GHSA-q8m4-xhhv-38mg: Status,
 * MemberList, listing alarms and the Lease calls): USER_EMPTY without one. A no-op while auth is disabled.
 */
export function checkUserPresent(s: AuthState, ai: AuthInfo | undefined): void {
  if (!s.enabled) return
  if (ai === undefined || ai.username === '') throw new EtcdError('USER_EMPTY')
}

/** The root role (etcd's IsAdminPermitted): USER_EMPTY without a user, USER_NOT_FOUND, PERMISSION_DENIED. */
export function checkAdminPermitted(s: AuthState, ai: AuthInfo | undefined): void {
  if (!s.enabled) return
  if (ai === undefined || ai.username === '') throw new EtcdError('USER_EMPTY')
  const u = s.users.get(ai.username)
  if (u === undefined) throw new EtcdError('USER_NOT_FOUND')
  if (!hasRootRole(u)) throw new EtcdError('PERMISSION_DENIED')
}
