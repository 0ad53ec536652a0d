// Who a call runs as, and the two checks nearly every service makes before its own (etcd's AuthInfoFromCtx,
// and the IsAdminPermitted and isUserPresent calls of v3_server.go and the v3rpc services).
import type { AuthInfo } from '../auth/permission.js'
import type { AuthStore } from '../auth/store.js'
import { EtcdError } from '../pkg/errors.js'
import type { CallCredentials } from './types/credentials.js'

/** What the checks read of the auth store. */
export type CallerAuthStore = Pick<
  AuthStore, 'enabled' | 'authInfoFromToken' | 'revision' | 'isAdminPermitted' | 'isUserPresent'
>

export class CallerAuth {
  private readonly authStore: CallerAuthStore

  constructor(authStore: CallerAuthStore) {
    this.authStore = authStore
  }

  /**
   * Who a call runs as (etcd's AuthInfoFromCtx): the user of its token, else the common name of its verified
   * client certificate, else nobody. A token that is unknown, expired or malformed fails with
   * INVALID_AUTH_TOKEN, even while auth is disabled (etcd does the same).
   */
  authInfo(creds: CallCredentials | undefined): AuthInfo | undefined {
    if (creds === undefined) return undefined
    if (creds.token !== undefined) {
      const ai = this.authStore.authInfoFromToken(creds.token)
      if (ai === undefined) throw new EtcdError('INVALID_AUTH_TOKEN')
      return ai
    }
    if (creds.commonName !== undefined) return { username: creds.commonName, revision: this.authStore.revision() }
    return undefined
  }

  /** Throws unless the caller holds the root role (no-op while auth is disabled): maintenance, membership, auth admin. */
  checkAdmin(creds: CallCredentials | undefined): void {
    this.authStore.isAdminPermitted(this.authInfo(creds))
  }

  /**
   * Throws USER_EMPTY unless the call comes from a user, INVALID_AUTH_TOKEN for a bad token. While auth is
   * disabled the credentials are not even read (Status, MemberList, keep-alives and LeaseLeases never read
   * them in etcd 3.4.23). See AuthStore.isUserPresent.
   */
  checkAuthenticated(creds: CallCredentials | undefined): void {
    if (this.authStore.enabled) this.authStore.isUserPresent(this.authInfo(creds))
  }
}
