// The embedded Etcd's Auth service. Once auth is on, the Etcd openEtcd() returns is nobody: admin calls need
// a view with a root token (Etcd.withToken).
import type {
  AuthDisableResponse, AuthEnableResponse, AuthHeaderResponse, AuthRoleAddRequest, AuthRoleDeleteRequest,
  AuthRoleGetRequest, AuthRoleGetResponse, AuthRoleGrantPermissionRequest, AuthRoleListResponse,
  AuthRoleRevokePermissionRequest, AuthStatusResponse, AuthUserAddRequest, AuthUserChangePasswordRequest,
  AuthUserDeleteRequest, AuthUserGetRequest, AuthUserGetResponse, AuthUserGrantRoleRequest, AuthUserListResponse,
  AuthUserRevokeRoleRequest, AuthenticateRequest, AuthenticateResponse,
} from '../etcdserver/types/auth.js'
import { EtcdMaintenance } from './etcd-maintenance.js'
import type { Input } from './input.js'

export abstract class EtcdAuth extends EtcdMaintenance {
  /**
   * Exchange a name and password for a token; use it with withToken(). Rejects with AUTH_NOT_ENABLED while
   * auth is off, AUTH_FAILED for an unknown user or a wrong password.
   */
  authenticate(req: Input<AuthenticateRequest>): Promise<AuthenticateResponse> {
    return this.checked('authenticate', req, (r) => this.server.auth.authenticate(r, this.creds))
  }

  /** Turn auth on: needs user root with role root (AUTH_ROOT_USER_NOT_EXIST, AUTH_ROOT_ROLE_NOT_EXIST). */
  authEnable(): Promise<AuthEnableResponse> {
    return this.server.auth.authEnable(this.creds)
  }

  /** Turn auth off; every token stops working. */
  authDisable(): Promise<AuthDisableResponse> {
    return this.server.auth.authDisable(this.creds)
  }

  /** Whether auth is on, and the auth revision. */
  authStatus(): Promise<AuthStatusResponse> {
    return this.server.auth.authStatus(this.creds)
  }

  /** Add a user; `options.noPassword` adds one that can only act through a client certificate's CN. */
  userAdd(req: Input<AuthUserAddRequest>): Promise<AuthHeaderResponse> {
    return this.checked('userAdd', req, (r) => this.server.auth.userAdd(r, this.creds))
  }

  /** A user's roles (root, or the user itself). */
  userGet(req: Input<AuthUserGetRequest>): Promise<AuthUserGetResponse> {
    return this.checked('userGet', req, (r) => this.server.auth.userGet(r, this.creds))
  }

  userList(): Promise<AuthUserListResponse> {
    return this.server.auth.userList(this.creds)
  }

  userDelete(req: Input<AuthUserDeleteRequest>): Promise<AuthHeaderResponse> {
    return this.checked('userDelete', req, (r) => this.server.auth.userDelete(r, this.creds))
  }

  userChangePassword(req: Input<AuthUserChangePasswordRequest>): Promise<AuthHeaderResponse> {
    return this.checked('userChangePassword', req, (r) => this.server.auth.userChangePassword(r, this.creds))
  }

  userGrantRole(req: Input<AuthUserGrantRoleRequest>): Promise<AuthHeaderResponse> {
    return this.checked('userGrantRole', req, (r) => this.server.auth.userGrantRole(r, this.creds))
  }

  userRevokeRole(req: Input<AuthUserRevokeRoleRequest>): Promise<AuthHeaderResponse> {
    return this.checked('userRevokeRole', req, (r) => this.server.auth.userRevokeRole(r, this.creds))
  }

  roleAdd(req: Input<AuthRoleAddRequest>): Promise<AuthHeaderResponse> {
    return this.checked('roleAdd', req, (r) => this.server.auth.roleAdd(r, this.creds))
  }

  /** A role's permissions (root, or a holder of the role). */
  roleGet(req: Input<AuthRoleGetRequest>): Promise<AuthRoleGetResponse> {
    return this.checked('roleGet', req, (r) => this.server.auth.roleGet(r, this.creds))
  }

  roleList(): Promise<AuthRoleListResponse> {
    return this.server.auth.roleList(this.creds)
  }

  roleDelete(req: Input<AuthRoleDeleteRequest>): Promise<AuthHeaderResponse> {
    return this.checked('roleDelete', req, (r) => this.server.auth.roleDelete(r, this.creds))
  }

  /** Grant READ, WRITE or READWRITE over a key (rangeEnd empty), a range, or every key from `key` (rangeEnd "\0"). */
  roleGrantPermission(req: Input<AuthRoleGrantPermissionRequest>): Promise<AuthHeaderResponse> {
    return this.checked('roleGrantPermission', req, (r) => this.server.auth.roleGrantPermission(r, this.creds))
  }

  roleRevokePermission(req: Input<AuthRoleRevokePermissionRequest>): Promise<AuthHeaderResponse> {
    return this.checked('roleRevokePermission', req, (r) => this.server.auth.roleRevokePermission(r, this.creds))
  }
}
