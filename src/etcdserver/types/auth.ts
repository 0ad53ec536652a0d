// Requests and responses of etcd's Auth service; names as rpc.proto and authpb, camelCase.
// Domain form: camelCase, Uint8Array keys and values, number revisions (checked safe at the edge), bigint IDs;
// optional request fields default to etcd's proto3 zero values.
import type { Permission, PermissionType } from '../../auth/permission.js'
import type { ResponseHeader } from './header.js'

export type { Permission, PermissionType }

export interface AuthEnableResponse {
  readonly header: ResponseHeader
}
export interface AuthDisableResponse {
  readonly header: ResponseHeader
}
export interface AuthStatusResponse {
  readonly header: ResponseHeader
  readonly enabled: boolean
  /** Bumped by every change of users, roles, permissions or the enabled flag. */
  readonly authRevision: number
}
export interface AuthenticateRequest {
  readonly name: string
  readonly password: string
}
export interface AuthenticateResponse {
  readonly header: ResponseHeader
  /** Send it as the `token` metadata (embedded: `etcd.withToken(token)`). */
  readonly token: string
}
export interface AuthUserAddRequest {
  readonly name: string
  readonly password: string
  /** noPassword: the user cannot authenticate with a password (only with a TLS certificate's CN). */
  readonly options?: { readonly noPassword: boolean }
}
export interface AuthUserGetRequest {
  readonly name: string
}
export interface AuthUserGetResponse {
  readonly header: ResponseHeader
  /** Sorted. */
  readonly roles: readonly string[]
}
export interface AuthUserListResponse {
  readonly header: ResponseHeader
  /** Sorted. */
  readonly users: readonly string[]
}
export interface AuthUserDeleteRequest {
  readonly name: string
}
export interface AuthUserChangePasswordRequest {
  readonly name: string
  readonly password: string
}
export interface AuthUserGrantRoleRequest {
  /** Named `user` here, `name` in the revoke request, as in etcd's rpc.proto. */
  readonly user: string
  readonly role: string
}
export interface AuthUserRevokeRoleRequest {
  readonly name: string
  readonly role: string
}
export interface AuthRoleAddRequest {
  readonly name: string
}
export interface AuthRoleGetRequest {
  readonly role: string
}
export interface AuthRoleGetResponse {
  readonly header: ResponseHeader
  /** Sorted by key. */
  readonly perm: readonly Permission[]
}
export interface AuthRoleListResponse {
  readonly header: ResponseHeader
  /** Sorted. */
  readonly roles: readonly string[]
}
export interface AuthRoleDeleteRequest {
  readonly role: string
}
export interface AuthRoleGrantPermissionRequest {
  /** The role. */
  readonly name: string
  readonly perm: Permission
}
export interface AuthRoleRevokePermissionRequest {
  readonly role: string
  readonly key: Uint8Array
  readonly rangeEnd: Uint8Array
}
/** The response of every auth call that returns only a header. */
export interface AuthHeaderResponse {
  readonly header: ResponseHeader
}
