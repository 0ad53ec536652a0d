// Mirrors etcd auth/simple_token.go: opaque random tokens mapped to user names, each valid for a TTL that
// every successful lookup starts again.
import { randomInt } from 'node:crypto'
import type { Clock } from '../pkg/clock.js'
import { invariant } from '../pkg/verify.js'
import { Ticker } from '../pkg/ticker.js'

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
/** etcd's defaultSimpleTokenLength. */
const PREFIX_LENGTH = 16
/** etcd's simpleTokenTTLDefault (--auth-token-ttl 300). */
export const DEFAULT_SIMPLE_TOKEN_TTL_MS = 300_000
/** etcd's simpleTokenTTLResolution: how often expired tokens are swept from memory. */
const SWEEP_PERIOD_MS = 1_000

/** What Go's strconv.Atoi accepts: an optional sign and decimal digits, within int64. */
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
function isGoInt(s: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(s)) return false
  const n = BigInt(s)
  return n >= INT64_MIN && n <= INT64_MAX
}

/**
 * etcd's isValidSimpleToken, without the wait: exactly one ".", and what follows it a Go `int`. (etcd then
 * waits until its raft log has applied that index; etcdlite has no log, and hands out only tokens whose index
 * is already applied, so a well-formed token is decided by the lookup alone.)
 */
export function isValidSimpleToken(token: string): boolean {
  const parts = token.split('.')
  return parts.length === 2 && isGoInt(parts[1] as string)
}

export interface SimpleTokenOptions {
  /** How long a token lives after it was assigned or last used; <= 0 means the default, 300 s. */
  readonly ttlMs: number
  readonly clock: Clock
  /** Receives what a sweep throws (a bug). */
  readonly onError: (err: unknown) => void
}

interface TokenEntry {
  readonly username: string
  /** Clock time after which the token is invalid. */
  expiresAt: number
}

/**
 * The simple token provider (etcd's tokenSimple with its simpleTokenTTLKeeper).
 *
 * ```
 *   disabled --enable()--> enabled --disable()--> disabled      close(): disabled for good
 *             (sweeper on)            (every token dropped, sweeper stopped)
 * ```
 *
 * While enabled, a token is valid until `ttlMs` after it was assigned or last looked up (a sliding expiry,
 * etcd's resetSimpleToken): at `expiresAt` exactly it still is, one millisecond later it is not. A 1 s
 * {@link Ticker} on the injected clock drops expired tokens so memory does not grow; lookups do not depend
 * on it (etcd waits for its sweep, so a token there lives up to 1 s longer).
 */
export class SimpleTokenProvider {
  private readonly ttlMs: number
  private readonly clock: Clock
  private readonly onError: (err: unknown) => void
  private readonly tokens = new Map<string, TokenEntry>()
  private sweeper: Ticker | undefined
  /** Stops of sweepers that disable() ended; close() awaits them. */
  private stopping: Promise<void> = Promise.resolve()
  private closed = false

  constructor(opts: SimpleTokenOptions) {
    this.ttlMs = opts.ttlMs > 0 ? opts.ttlMs : DEFAULT_SIMPLE_TOKEN_TTL_MS
    this.clock = opts.clock
    this.onError = opts.onError
  }

  get enabled(): boolean {
    return this.sweeper !== undefined
  }

  /** Live tokens (for tests and metrics), including expired ones not yet swept. */
  get size(): number {
    return this.tokens.size
  }

  /** Start handing out and accepting tokens. Idempotent; a no-op once closed. */
  enable(): void {
    if (this.sweeper !== undefined || this.closed) return
    this.sweeper = new Ticker(() => this.sweep(), SWEEP_PERIOD_MS, this.clock, this.onError)
    this.sweeper.start()
  }

  /** Invalidate every token and stop the sweeper (its stop is awaited by close()). Idempotent. */
  disable(): void {
    const s = this.sweeper
    this.sweeper = undefined
    this.tokens.clear()
    if (s !== undefined) this.stopping = Promise.all([this.stopping, s.stop()]).then(() => undefined)
  }

  /** etcd's genTokenPrefix: 16 letters [a-zA-Z] from a cryptographic source. */
  genTokenPrefix(): string {
    let s = ''
    for (let i = 0; i < PREFIX_LENGTH; i++) s += LETTERS[randomInt(LETTERS.length)] as string
    return s
  }

  /**
   * Hand `username` a new token `<prefix>.<index>` (etcd's assign). While disabled the token is returned but
   * not recorded, so it is never valid (as in etcd, where the caller checks first).
   */
  assign(username: string, index: number): string {
    invariant(Number.isSafeInteger(index) && index >= 0, `simple token index must be a non-negative integer, got ${index}`)
    const token = `${this.genTokenPrefix()}.${index}`
    if (this.sweeper === undefined) return token
    // etcd panics on a reused token; 52^16 random prefixes make that a broken random source.
    invariant(!this.tokens.has(token), 'simple token already assigned')
    this.tokens.set(token, { username, expiresAt: this.clock.now() + this.ttlMs })
    return token
  }

  /**
   * The user a token belongs to, or undefined when it is malformed, unknown or expired (etcd's info). A hit
   * starts the token's TTL again.
   */
  lookup(token: string): string | undefined {
    if (!isValidSimpleToken(token)) return undefined
    const e = this.tokens.get(token)
    if (e === undefined) return undefined
    const now = this.clock.now()
    if (now > e.expiresAt) {
      this.tokens.delete(token)
      return undefined
    }
    e.expiresAt = now + this.ttlMs
    return e.username
  }

  /** Drop every token of a user (deleted, or its password changed). */
  invalidateUser(username: string): void {
    for (const [token, e] of this.tokens) if (e.username === username) this.tokens.delete(token)
  }

  /** Disable for good and wait for the sweeper to stop. Idempotent. */
  async close(): Promise<void> {
    this.closed = true
    this.disable()
    await this.stopping
  }

  private sweep(): undefined {
    const now = this.clock.now()
    for (const [token, e] of this.tokens) if (now > e.expiresAt) this.tokens.delete(token)
    return undefined
  }
}
