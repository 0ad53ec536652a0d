// Mirrors etcd auth/jwt.go and auth/options.go (golang-jwt v3): tokens are JWTs signed with the configured
// key, with claims {exp, revision, username}. A token names the auth revision it was issued at, so after any
// change of users, roles or permissions it fails with AUTH_OLD_REVISION and the client authenticates again.
// Signing and verifying are the jsonwebtoken library's: it is security code, better kept by its many users
// than by hand. jsonwebtoken rather than jose because every call's permission check reads its token inside
// the server's synchronous section, and jose only has asynchronous APIs. jsonwebtoken and its dependencies
// take about 60 ms to load, and only a server with JWT tokens needs them: create() imports it.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import type { default as jsonwebtoken, JwtPayload } from 'jsonwebtoken'
import type { Clock } from '../pkg/clock.js'
import { EtcdError } from '../pkg/errors.js'
import type { AuthInfo } from './permission.js'
import type { TokenProvider } from './token.js'
import { errorMessage } from '../pkg/as-error.js'

export const JWT_SIGN_METHODS = [
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512',
] as const
export type JwtSignMethod = (typeof JWT_SIGN_METHODS)[number]

/** etcd's jwt options: `--auth-token jwt,sign-method=RS256,pub-key=FILE,priv-key=FILE,ttl=5m` (key contents here). */
export interface JwtOptions {
  readonly signMethod: JwtSignMethod
  /** PEM public key (RS, PS, ES): verify tokens; alone, the provider can only verify. */
  readonly publicKey?: Uint8Array | string | undefined
  /** PEM private key (RS, PS, ES), or the raw shared secret (HS). */
  readonly privateKey?: Uint8Array | string | undefined
  /** Token lifetime (etcd's `ttl` option). Default 5 minutes. */
  readonly ttlMs?: number | undefined
}

/** etcd's DefaultTTL for JWTs. */
export const DEFAULT_JWT_TTL_MS = 5 * 60 * 1000

/** Startup failures of the JWT options, with etcd's texts (auth/store.go and options.go). */
export class JwtOptionsError extends Error {
  override name = 'JwtOptionsError'
}

type Signer =
  | { readonly kind: 'hmac'; readonly secret: Buffer }
  | { readonly kind: 'asym'; readonly priv: KeyObject | undefined; readonly pub: KeyObject }

function asymKeys(method: JwtSignMethod, o: JwtOptions): Signer {
  const wantType = method.startsWith('ES') ? 'ec' : 'rsa'
  const parse = (f: () => KeyObject): KeyObject => {
    let k: KeyObject
    try {
      k = f()
    } catch (err) {
      throw new JwtOptionsError(`auth: cannot parse the ${method} key: ${errorMessage(err)}`)
    }
    if (k.asymmetricKeyType !== wantType && !(wantType === 'rsa' && k.asymmetricKeyType === 'rsa-pss')) {
      throw new JwtOptionsError(`auth: a ${method} key must be ${wantType === 'ec' ? 'an EC' : 'an RSA'} key`)
    }
    return k
  }
  const priv = o.privateKey !== undefined && o.privateKey.length > 0 ? parse(() => createPrivateKey(Buffer.from(o.privateKey as Uint8Array | string))) : undefined
  const pub = o.publicKey !== undefined && o.publicKey.length > 0 ? parse(() => createPublicKey(Buffer.from(o.publicKey as Uint8Array | string))) : undefined
  if (priv === undefined && pub === undefined) throw new JwtOptionsError('auth: missing key data')
  if (priv !== undefined && pub !== undefined) {
    const derived = createPublicKey(priv).export({ type: 'spki', format: 'der' })
    if (!derived.equals(pub.export({ type: 'spki', format: 'der' }))) throw new JwtOptionsError("auth: public and private keys don't match")
  }
  return { kind: 'asym', priv, pub: pub ?? createPublicKey(priv as KeyObject) }
}

/**
 * The JWT provider (etcd's tokenJWT). Tokens are not remembered: enable/disable/invalidateUser do nothing,
 * and a token stays valid until its `exp` or until the auth revision moves past the one it carries.
 */
export class JwtTokenProvider implements TokenProvider {
  /** The provider for `o`, jsonwebtoken loaded first. Rejects with JwtOptionsError when `o` is invalid. */
  static async create(o: JwtOptions, clock: Clock): Promise<JwtTokenProvider> {
    const { default: jwt } = await import('jsonwebtoken')
    return new JwtTokenProvider(o, clock, jwt)
  }

  private readonly jwt: typeof jsonwebtoken
  private readonly method: JwtSignMethod
  private readonly signer: Signer
  private readonly ttlMs: number
  private readonly clock: Clock
  /** Wall time at clock.now() = clockBase: `exp` is Unix time, moved by the server clock (a ManualClock too). */
  private readonly wallBase = Date.now()
  private readonly clockBase: number

  private constructor(o: JwtOptions, clock: Clock, jwt: typeof jsonwebtoken) {
    this.jwt = jwt
    if (!(JWT_SIGN_METHODS as readonly string[]).includes(o.signMethod)) throw new JwtOptionsError('auth: invalid auth options')
    this.method = o.signMethod
    if (o.signMethod.startsWith('HS')) {
      if (o.privateKey === undefined || o.privateKey.length === 0) throw new JwtOptionsError('auth: missing key data')
      this.signer = { kind: 'hmac', secret: Buffer.from(o.privateKey) }
    } else {
      this.signer = asymKeys(o.signMethod, o)
    }
    this.ttlMs = o.ttlMs !== undefined && o.ttlMs > 0 ? o.ttlMs : DEFAULT_JWT_TTL_MS
    this.clock = clock
    this.clockBase = clock.now()
  }

  enable(): void {}
  disable(): void {}
  invalidateUser(): void {}

  async close(): Promise<void> {}

  /** A signed token; ERR_JWT_VERIFY_ONLY when only a public key was given. */
  assign(username: string, revision: number): string {
    const s = this.signer
    if (s.kind === 'asym' && s.priv === undefined) throw new EtcdError('JWT_VERIFY_ONLY')
    const exp = Math.floor((this.wallNow() + this.ttlMs) / 1000)
    // The header {"alg","typ"} and the claims in sorted key order, as golang-jwt marshals its maps; no iat,
    // which etcd's tokens do not carry; and any key size etcd takes.
    return this.jwt.sign({ exp, revision, username }, s.kind === 'hmac' ? s.secret : (s.priv as KeyObject), {
      algorithm: this.method, noTimestamp: true, allowInsecureKeySizes: true,
    })
  }

  info(token: string): AuthInfo | undefined {
    const s = this.signer
    let claims: string | JwtPayload
    try {
      // golang-jwt refuses a token once now > exp; jsonwebtoken once now >= exp + tolerance: 1 s makes them agree.
      claims = this.jwt.verify(token, s.kind === 'hmac' ? s.secret : s.pub, {
        algorithms: [this.method], clockTimestamp: Math.floor(this.wallNow() / 1000), clockTolerance: 1,
      })
    } catch {
      return undefined
    }
    if (typeof claims !== 'object') return undefined
    const { revision, username } = claims as { revision?: unknown; username?: unknown }
    if (typeof username !== 'string' || typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) return undefined
    return { username, revision }
  }

  private wallNow(): number {
    return this.wallBase + (this.clock.now() - this.clockBase)
  }
}
