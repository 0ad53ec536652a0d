// etcd's TokenProvider (auth/store.go): how Authenticate's tokens are made and read back. Two kinds, as
// etcd's --auth-token: `simple` (simple-token.ts, opaque and kept in memory) and `jwt` (jwt-token.ts, signed,
// carrying the user and the auth revision).
import type { Clock } from '../pkg/clock.js'
import { JwtTokenProvider, type JwtOptions } from './jwt-token.js'
import type { AuthInfo } from './permission.js'
import { SimpleTokenProvider } from './simple-token.js'

export interface TokenProvider {
  /** Auth was turned on (or found on at start). */
  enable(): void
  /** Auth was turned off: simple tokens are dropped (JWTs stay valid by signature, as in etcd). */
  disable(): void
  /** The user was deleted or its password changed: its simple tokens are dropped. */
  invalidateUser(username: string): void
  /** A new token for a user whose password was checked at auth revision `revision`; `index` is the raft index. */
  assign(username: string, revision: number, index: number): string
  /** Who a token belongs to and at which auth revision; undefined when it is not valid. */
  info(token: string, currentRevision: number): AuthInfo | undefined
  /** Stop background work (awaited). */
  close(): Promise<void>
}

/** The simple provider as a TokenProvider: a token carries no revision, so it is always current. */
export function simpleTokenProvider(p: SimpleTokenProvider): TokenProvider {
  return {
    enable: () => p.enable(),
    disable: () => p.disable(),
    invalidateUser: (u) => p.invalidateUser(u),
    assign: (username, _revision, index) => p.assign(username, index),
    info: (token, currentRevision) => {
      const username = p.lookup(token)
      return username === undefined ? undefined : { username, revision: currentRevision }
    },
    close: () => p.close(),
  }
}

/** What picks and sets up the token provider (etcd's --auth-token and --auth-token-ttl). */
export interface TokenOptions {
  /** Simple tokens' TTL (--auth-token-ttl, in ms here); <= 0 means 300 s. */
  readonly tokenTtlMs: number
  /** Drives token expiry. */
  readonly clock: Clock
  /** Receives background failures (the token sweeper). */
  readonly onError: (err: unknown) => void
  /** JWT tokens (etcd's --auth-token jwt,...) instead of simple ones. Rejects with JwtOptionsError when invalid. */
  readonly jwt?: JwtOptions | undefined
}

/** etcd's NewTokenProvider: JWTs when configured, else simple tokens. */
export async function newTokenProvider(opts: TokenOptions): Promise<TokenProvider> {
  if (opts.jwt !== undefined) return JwtTokenProvider.create(opts.jwt, opts.clock)
  return simpleTokenProvider(new SimpleTokenProvider({ ttlMs: opts.tokenTtlMs, clock: opts.clock, onError: opts.onError }))
}
