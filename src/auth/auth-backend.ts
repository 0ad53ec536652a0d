// The auth store's persistence, as etcd 3.6 separates it (server/storage/schema/auth.go, auth_users.go,
// auth_roles.go): the enabled flag and the revision in the `auth` bucket, users in `authUsers` and roles in
// `authRoles`, each under its name's UTF-8 bytes. Writes are buffered in the backend; the store commits.
import type { Backend } from '../backend/backend.js'
import { readU64, u64 } from '../backend/meta-u64.js'
import { equalBytes } from '../pkg/bytes.js'
import { invariant } from '../pkg/verify.js'
import { decodeRole, decodeUser, encodeRole, encodeUser } from '../wire/authpb.js'
import type { Role, User } from './permission.js'

const ascii = (s: string): Uint8Array => Buffer.from(s, 'latin1')
const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8')
/** Keys of the `auth` bucket (etcd's enableFlagKey and revisionKey). */
const ENABLE_FLAG_KEY = ascii('authEnabled')
const REVISION_KEY = ascii('authRevision')
const AUTH_ENABLED = Uint8Array.of(1)
const AUTH_DISABLED = Uint8Array.of(0)
const EMPTY = new Uint8Array(0)
/** Above every UTF-8 name (0xff never occurs in UTF-8), to scan a whole users or roles bucket. */
const NAMES_END = Uint8Array.of(0xff, 0xff)

/** What is stored: revision 0 when none is (a new data dir). */
export interface StoredAuth {
  readonly enabled: boolean
  readonly revision: number
  readonly users: readonly User[]
  readonly roles: readonly Role[]
}

export class AuthBackend {
  constructor(private readonly backend: Backend) {}

  async read(): Promise<StoredAuth> {
    const flag = this.backend.get('auth', ENABLE_FLAG_KEY)
    const revBytes = this.backend.get('auth', REVISION_KEY)
    let revision = 0
    if (revBytes !== undefined) {
      const rev = readU64(revBytes)
      invariant(rev !== undefined && rev <= BigInt(Number.MAX_SAFE_INTEGER), 'stored auth revision is not an 8-byte safe integer')
      revision = Number(rev)
    }
    const users = (await this.backend.scan('authUsers', EMPTY, NAMES_END, Number.MAX_SAFE_INTEGER)).map((e) => decodeUser(e.value))
    const roles = (await this.backend.scan('authRoles', EMPTY, NAMES_END, Number.MAX_SAFE_INTEGER)).map((e) => decodeRole(e.value))
    return { enabled: flag !== undefined && equalBytes(flag, AUTH_ENABLED), revision, users, roles }
  }

  saveEnabled(on: boolean): void {
    this.backend.put('auth', ENABLE_FLAG_KEY, on ? AUTH_ENABLED : AUTH_DISABLED)
  }

  /** Stored 8-byte big-endian, as etcd's commitRevision. */
  saveRevision(rev: number): void {
    this.backend.put('auth', REVISION_KEY, u64(BigInt(rev)))
  }

  putUser(u: User): void {
    this.backend.put('authUsers', utf8(u.name), encodeUser(u))
  }

  deleteUser(name: string): void {
    this.backend.del('authUsers', utf8(name))
  }

  putRole(r: Role): void {
    this.backend.put('authRoles', utf8(r.name), encodeRole(r))
  }

  deleteRole(name: string): void {
    this.backend.del('authRoles', utf8(name))
  }

  /** etcd's ForceCommit: the one await of every mutation. */
  commit(): Promise<void> {
    return this.backend.commit()
  }
}
