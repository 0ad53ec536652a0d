// The shapes of users, roles and key permissions (etcd's authpb), shared by the auth store and the server.

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

/** Who a request runs as (etcd's AuthInfo): the user and the auth revision its credentials were checked at. */
export interface AuthInfo {
  readonly username: string
  readonly revision: number
}
