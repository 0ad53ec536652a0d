// The Auth service's messages, protobuf (proto-loader objects) <-> domain, both directions: the server reads
// every Auth request and builds every response; the client (connect()) reads Authenticate's response.
import type { AuthUserAddRequest__Output as pb_AuthUserAddRequest__Output } from './generated/etcdserverpb/AuthUserAddRequest.js'
import type { AuthUserChangePasswordRequest__Output as pb_AuthUserChangePasswordRequest__Output } from './generated/etcdserverpb/AuthUserChangePasswordRequest.js'
import type { AuthRoleGrantPermissionRequest__Output as pb_AuthRoleGrantPermissionRequest__Output } from './generated/etcdserverpb/AuthRoleGrantPermissionRequest.js'
import type { AuthRoleRevokePermissionRequest__Output as pb_AuthRoleRevokePermissionRequest__Output } from './generated/etcdserverpb/AuthRoleRevokePermissionRequest.js'
import type { AuthStatusResponse as pb_AuthStatusResponse } from './generated/etcdserverpb/AuthStatusResponse.js'
import type { AuthRoleGetResponse as pb_AuthRoleGetResponse } from './generated/etcdserverpb/AuthRoleGetResponse.js'
import type { Permission as pb_Permission } from './generated/authpb/Permission.js'
import type { AuthenticateResponse as pb_AuthenticateResponse, AuthenticateResponse__Output as pb_AuthenticateResponse__Output } from './generated/etcdserverpb/AuthenticateResponse.js'
import type { AuthUserGetResponse as pb_AuthUserGetResponse } from './generated/etcdserverpb/AuthUserGetResponse.js'
import type { AuthUserListResponse as pb_AuthUserListResponse } from './generated/etcdserverpb/AuthUserListResponse.js'
import type { ResponseHeader as pb_ResponseHeader } from './generated/etcdserverpb/ResponseHeader.js'
import type { AuthRoleListResponse as pb_AuthRoleListResponse } from './generated/etcdserverpb/AuthRoleListResponse.js'
import type {
  AuthHeaderResponse, AuthRoleGetResponse, AuthRoleGrantPermissionRequest, AuthRoleListResponse,
  AuthRoleRevokePermissionRequest, AuthStatusResponse, AuthUserAddRequest, AuthUserChangePasswordRequest,
  AuthUserGetResponse, AuthUserListResponse, AuthenticateResponse, Permission, PermissionType,
} from '../etcdserver/types/auth.js'
import { EtcdError } from '../pkg/errors.js'
import { PERMISSION_TYPES } from '../wire/enums.js'
import { fromPbHeader, toPbHeader } from './convert-header.js'

/**
 * READ, WRITE or READWRITE. etcd stores any other number as given and it then grants nothing; etcdlite
 * refuses it (INVALID_PERMISSION_TYPE) rather than store a permission that cannot mean anything.
 */
function toDomainPermType(t: string | number): PermissionType {
  const known = typeof t === 'number' ? PERMISSION_TYPES[t] : PERMISSION_TYPES.find((p) => p === t)
  if (known === undefined) throw new EtcdError('INVALID_PERMISSION_TYPE')
  return known
}

export const toDomainUserAdd = (r: pb_AuthUserAddRequest__Output): AuthUserAddRequest => ({
  name: r.name,
  password: r.password,
  options: { noPassword: r.options?.no_password === true },
  // etcd 3.5 overwrites a client's hashedPassword with its own hash of `password`: it is ignored here too.
})

export const toDomainUserChangePassword = (r: pb_AuthUserChangePasswordRequest__Output): AuthUserChangePasswordRequest => ({
  name: r.name,
  password: r.password,
})

export const toDomainRoleGrantPermission = (r: pb_AuthRoleGrantPermissionRequest__Output): AuthRoleGrantPermissionRequest => ({
  name: r.name,
  perm: {
    permType: toDomainPermType(r.perm?.permType ?? 'READ'),
    key: r.perm?.key ?? new Uint8Array(0),
    rangeEnd: r.perm?.range_end ?? new Uint8Array(0),
  },
})

export const toDomainRoleRevokePermission = (r: pb_AuthRoleRevokePermissionRequest__Output): AuthRoleRevokePermissionRequest => ({
  role: r.role,
  key: r.key,
  rangeEnd: r.range_end,
})

export const toPbAuthHeaderResponse = (r: AuthHeaderResponse): { header: pb_ResponseHeader } => ({ header: toPbHeader(r.header) })

export const toPbAuthStatusResponse = (r: AuthStatusResponse): pb_AuthStatusResponse => ({
  header: toPbHeader(r.header),
  enabled: r.enabled,
  authRevision: String(r.authRevision),
})

const toPbPermission = (p: Permission): pb_Permission => ({ permType: p.permType, key: Buffer.from(p.key), range_end: Buffer.from(p.rangeEnd) })

export const toPbAuthRoleGetResponse = (r: AuthRoleGetResponse): pb_AuthRoleGetResponse => ({
  header: toPbHeader(r.header),
  perm: r.perm.map(toPbPermission),
})

export const toPbAuthenticateResponse = (r: AuthenticateResponse): pb_AuthenticateResponse => ({ header: toPbHeader(r.header), token: r.token })
export const toPbAuthUserGetResponse = (r: AuthUserGetResponse): pb_AuthUserGetResponse => ({ header: toPbHeader(r.header), roles: [...r.roles] })
export const toPbAuthUserListResponse = (r: AuthUserListResponse): pb_AuthUserListResponse => ({ header: toPbHeader(r.header), users: [...r.users] })
export const toPbAuthRoleListResponse = (r: AuthRoleListResponse): pb_AuthRoleListResponse => ({ header: toPbHeader(r.header), roles: [...r.roles] })

export const fromPbAuthenticateResponse = (r: pb_AuthenticateResponse__Output): AuthenticateResponse =>
  ({ header: fromPbHeader(r.header), token: r.token })
