// Mirrors etcd's Authenticator (etcdserver/v3_server.go) with the admin rules of etcdserver/apply_auth.go:
// the Auth service over the auth store. Every call but Authenticate needs the root role
// once auth is enabled; UserGet and RoleGet are also open to the user itself and to holders of the role.
// Each call is one applied request in etcd (it goes through raft), so each counts in Status's raftIndex.
import type { Backend } from '../backend/backend.js'
import type { AuthStore } from '../auth/store.js'
import { EtcdError } from '../pkg/errors.js'
import type { AppliedIndex } from './applied-index.js'
import type { CallerAuth } from './caller-auth.js'
import type { CallTracker } from './call-tracker.js'
import type { ServerStats } from './server-stats.js'
import type {
  AuthDisableResponse, AuthEnableResponse, AuthHeaderResponse, AuthRoleAddRequest, AuthRoleDeleteRequest,
  AuthRoleGetRequest, AuthRoleGetResponse, AuthRoleGrantPermissionRequest, AuthRoleListResponse,
  AuthRoleRevokePermissionRequest, AuthStatusResponse, AuthUserAddRequest, AuthUserChangePasswordRequest,
  AuthUserDeleteRequest, AuthUserGetRequest, AuthUserGetResponse, AuthUserGrantRoleRequest, AuthUserListResponse,
  AuthUserRevokeRoleRequest, AuthenticateRequest, AuthenticateResponse,
} from './types/auth.js'
import type { CallCredentials } from './types/credentials.js'
import type { ResponseHeader } from './types/header.js'

/** Retries of Authenticate when the auth store changed while the password was being checked. */
const AUTHENTICATE_ATTEMPTS = 16

/** What the Auth service uses of the server. */
export interface AuthenticatorServer {
  readonly authStore: AuthStore
  readonly callerAuth: CallerAuth
  readonly calls: CallTracker
  readonly stats: Pick<ServerStats, 'apply' | 'applyAsync'>
  readonly appliedIndex: Pick<AppliedIndex, 'noteApplied' | 'raftIndex'>
  readonly backend: Pick<Backend, 'commit'>
  /** The response header at the newest durable revision. */
  durableHeader(): ResponseHeader
}

export class Authenticator {
  private readonly s: AuthenticatorServer
  private readonly as: AuthStore

  constructor(server: AuthenticatorServer) {
    this.s = server
    this.as = server.authStore
  }

  /** Turn auth on. Needs user root holding role root (AUTH_ROOT_USER_NOT_EXIST / AUTH_ROOT_ROLE_NOT_EXIST). */
  authEnable(creds?: CallCredentials): Promise<AuthEnableResponse> {
    return this.admin('AuthEnable', creds, () => this.as.enable())
  }

  /** Turn auth off; every token becomes invalid. */
  authDisable(creds?: CallCredentials): Promise<AuthDisableResponse> {
    return this.admin('AuthDisable', creds, () => this.as.disable())
  }

  /** Whether auth is on, and the auth revision (etcd 3.5's AuthStatus; root only once auth is on). */
  authStatus(creds?: CallCredentials): Promise<AuthStatusResponse> {
    return this.read(() => {
      const ai = this.s.callerAuth.authInfo(creds)
      // etcd's applier names no op for AuthStatus, so its applies show as "unknown".
      return this.s.stats.apply('unknown', () => {
        const header = this.applied()
        this.as.isAdminPermitted(ai)
        return { header, enabled: this.as.enabled, authRevision: this.as.revision() }
      })
    })
  }

  /**
   * Exchange a name and password for a simple token (etcd's Authenticate). AUTH_NOT_ENABLED while auth is
   * off; AUTH_FAILED for an unknown user or a wrong password; NO_PASSWORD_USER for a user added without one.
   * The password is checked off the event loop; if the auth store changes meanwhile, it is checked again.
   */
  authenticate(r: AuthenticateRequest, creds?: CallCredentials): Promise<AuthenticateResponse> {
    return this.s.calls.track(async () => {
      const as = this.as
      for (let attempt = 1; ; attempt++) {
        const checked = await as.checkPassword(r.name, r.password)
        this.s.callerAuth.authInfo(creds)
        if (checked !== as.revision() && attempt < AUTHENTICATE_ATTEMPTS) continue
        const token = this.s.stats.apply('Authenticate', () => {
          this.s.appliedIndex.noteApplied()
          return as.assignToken(r.name, this.s.appliedIndex.raftIndex())
        })
        await this.s.backend.commit()
        return { header: this.header(), token }
      }
    })
  }

  userAdd(r: AuthUserAddRequest, creds?: CallCredentials): Promise<AuthHeaderResponse> {
    return this.admin('AuthUserAdd', creds, () =>
      this.as.userAdd({ name: r.name, password: r.password, noPassword: r.options?.noPassword === true }),
    )
  }

  /** A user's roles: for root, or for the user itself. */
  userGet(r: AuthUserGetRequest, creds?: CallCredentials): Promise<AuthUserGetResponse> {
    return this.read(() =>
      this.s.stats.apply('AuthUserGet', () => {
        this.checkAdminOr(creds, (user) => user === r.name)
        return { header: this.applied(), roles: this.as.userGet(r.name) }
      }),
    )
  }

  userList(creds?: CallCredentials): Promise<AuthUserListResponse> {
    return this.read(() =>
      this.s.stats.apply('AuthUserList', () => {
        this.s.callerAuth.checkAdmin(creds)
        return { header: this.applied(), users: this.as.userList() }
      }),
    )
  }

  /** Delete a user (not root while auth is on: INVALID_AUTH_MGMT); its tokens stop working at once. */
  userDelete(r: AuthUserDeleteRequest, creds?: CallCredentials): Promise<AuthHeaderResponse> {
    return this.admin('AuthUserDelete', creds, () => this.as.userDelete(r.name))
  }

  /** Set a user's password; its tokens stop working at once. */
  userChangePassword(r: AuthUserChangePasswordRequest, creds?: CallCredentials): Promise<AuthHeaderResponse> {
    return this.admin('AuthUserChangePassword', creds, () =>
      this.as.userChangePassword({ name: r.name, password: r.password }),
    )
  }

  userGrantRole(r: AuthUserGrantRoleRequest, creds?: CallCredentials): Promise<AuthHeaderResponse> {
    return this.admin('AuthUserGrantRole', creds, () => this.as.userGrantRole(r.user, r.role))
  }

  userRevokeRole(r: AuthUserRevokeRoleRequest, creds?: CallCredentials): Promise<AuthHeaderResponse> {
    return this.admin('AuthUserRevokeRole', creds, () => this.as.userRevokeRole(r.name, r.role))
  }

  roleAdd(r: AuthRoleAddRequest, creds?: CallCredentials): Promise<AuthHeaderResponse> {
    return this.admin('AuthRoleAdd', creds, () => this.as.roleAdd(r.name))
  }

  /** A role's permissions: for root, or for a user holding the role. */
  roleGet(r: AuthRoleGetRequest, creds?: CallCredentials): Promise<AuthRoleGetResponse> {
    return this.read(() =>
      this.s.stats.apply('AuthRoleGet', () => {
        this.checkAdminOr(creds, (user) => this.as.hasRole(user, r.role))
        return { header: this.applied(), perm: this.as.roleGet(r.role) }
      }),
    )
  }

  roleList(creds?: CallCredentials): Promise<AuthRoleListResponse> {
    return this.read(() =>
      this.s.stats.apply('AuthRoleList', () => {
        this.s.callerAuth.checkAdmin(creds)
        return { header: this.applied(), roles: this.as.roleList() }
      }),
    )
  }

  /** Delete a role (not root while auth is on); it is taken from every user that held it. */
  roleDelete(r: AuthRoleDeleteRequest, creds?: CallCredentials): Promise<AuthHeaderResponse> {
    return this.admin('AuthRoleDelete', creds, () => this.as.roleDelete(r.role))
  }

  /** Grant (or change the type of) a permission over a key, range or prefix. */
  roleGrantPermission(r: AuthRoleGrantPermissionRequest, creds?: CallCredentials): Promise<AuthHeaderResponse> {
    return this.admin('AuthRoleGrantPermission', creds, () => this.as.roleGrantPermission(r.name, r.perm))
  }

  /** Take away the permission with exactly this key and range end (PERMISSION_NOT_GRANTED if none). */
  roleRevokePermission(r: AuthRoleRevokePermissionRequest, creds?: CallCredentials): Promise<AuthHeaderResponse> {
    return this.admin('AuthRoleRevokePermission', creds, () => this.as.roleRevokePermission(r.role, r.key, r.rangeEnd))
  }

  /** Root, or a caller `also` lets through by name (etcd's UserGet and RoleGet rules); else the admin check's error. */
  private checkAdminOr(creds: CallCredentials | undefined, also: (username: string) => boolean): void {
    const ai = this.s.callerAuth.authInfo(creds)
    try {
      this.as.isAdminPermitted(ai)
    } catch (err) {
      if (!(err instanceof EtcdError) || !also(ai?.username ?? '')) throw err
    }
  }

  /**
   * An admin call: valid credentials with the root role (while auth is on), then the change, then the header.
   * `op` names it in the apply metrics as etcd's applier does.
   */
  private admin(op: string, creds: CallCredentials | undefined, change: () => Promise<void>): Promise<AuthHeaderResponse> {
    return this.s.calls.track(async () => {
      const ai = this.s.callerAuth.authInfo(creds)
      await this.s.stats.applyAsync(op, async () => {
        // Applied (and counted) even when it then fails, as a raft entry is; the change's commit covers the count.
        this.s.appliedIndex.noteApplied()
        this.as.isAdminPermitted(ai)
        await change()
      })
      return { header: this.header() }
    })
  }

  /** A call with nothing to wait for; it still counts as in flight and fails with STOPPED once closing. */
  private read<T>(fn: () => T): Promise<T> {
    return this.s.calls.track(() => Promise.resolve(fn()))
  }

  /** Count the call as an applied request and answer with the current header. */
  private applied(): ResponseHeader {
    this.s.appliedIndex.noteApplied()
    return this.header()
  }

  private header(): ResponseHeader {
    return this.s.durableHeader()
  }
}
