// What every part of the remote client shares: the endpoints, the token (renewed when the server refuses
// it), retries of unary calls with backoff, and the timers and streams close() must end.
import * as grpc from '@grpc/grpc-js'
import { isEtcdError } from '../pkg/errors.js'
import { Backoff, type BackoffOptions } from './backoff.js'
import type { Endpoints, PickedChannel } from './endpoints.js'
import { closedError, toClientError, transportFailure } from './grpc-error.js'
import { rpcs, type Rpc, type RpcTable } from './rpc.js'

/** Whether a call may be repeated after a transport failure: always (reads, renewals), or only if never sent. */
export type Retry = 'always' | 'unsent'

export interface ConnectionOptions {
  readonly token?: string
  readonly user?: string
  readonly password?: string
  readonly dialTimeoutMs: number
  readonly backoff: BackoffOptions
}

export interface CallOptions {
  /** Aborting cancels the call; it rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined
  /** Send no token (Authenticate itself). */
  readonly anonymous?: boolean
}

/** The error of any call made, or pending, once the client is closed. */

export class Connection {
  readonly rpc: RpcTable = rpcs()
  private token: string | undefined
  private refreshing: Promise<void> | undefined
  private isClosed = false
  /** Pending sleeps: their timers, and how to wake them (close() does). */
  private readonly sleeps = new Map<NodeJS.Timeout, () => void>()
  /** What close() ends: watch streams, keep-alives, observers. */
  private readonly owned = new Set<{ close(): void }>()

  constructor(
    private readonly endpoints: Endpoints,
    private readonly opts: ConnectionOptions,
  ) {
    this.token = opts.token
  }

  get closed(): boolean {
    return this.isClosed
  }

  get dialTimeoutMs(): number {
    return this.opts.dialTimeoutMs
  }

  newBackoff(): Backoff {
    return new Backoff(this.opts.backoff)
  }

  /** Metadata for a call: the token, when there is one. */
  metadata(): grpc.Metadata {
    const md = new grpc.Metadata()
    if (this.token !== undefined) md.set('token', this.token)
    return md
  }

  /** The channel of the endpoint in use; throws once closed. */
  pick(): PickedChannel {
    if (this.isClosed) throw closedError()
    return this.endpoints.pick()
  }

  /** The endpoint of `channel` failed (a transport error): the next call goes to the next endpoint. */
  failed(channel: PickedChannel): void {
    if (!this.isClosed) this.endpoints.failed(channel)
  }

  /** Wait `ms` on a timer close() clears; resolves false when the client closed meanwhile. */
  sleep(ms: number): Promise<boolean> {
    if (this.isClosed) return Promise.resolve(false)
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.sleeps.delete(t)
        resolve(!this.isClosed)
      }, ms)
      this.sleeps.set(t, () => resolve(false))
    })
  }

  /** Register something close() must end; returns its unregistration. */
  own(x: { close(): void }): () => void {
    this.owned.add(x)
    return () => this.owned.delete(x)
  }

  /** Whether a refused token can be replaced (user and password were given). */
  get canRenewToken(): boolean {
    return this.opts.user !== undefined && this.opts.password !== undefined
  }

  /**
   * Get a token for the configured user (at connect, and after the server refused one). Calls that fail
   * meanwhile wait for the same attempt rather than start their own.
   */
  renewToken(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const r = await this.unary(this.rpc.authenticate, { name: this.opts.user ?? '', password: this.opts.password ?? '' }, 'always', { anonymous: true })
        this.token = r.token
      } finally {
        this.refreshing = undefined
      }
    })()
    return this.refreshing
  }

  /** True when `e` is the server refusing the token, and a new one can be had. */
  tokenRefused(e: unknown): boolean {
    return this.canRenewToken && (isEtcdError(e, 'INVALID_AUTH_TOKEN') || isEtcdError(e, 'AUTH_OLD_REVISION'))
  }

  /**
   * One unary call, repeated over the endpoints with backoff while they are unreachable (for up to the dial
   * timeout; a write only while it surely was not sent), and once more with a new token if the server
   * refused the token. Rejects with the typed error of the failure (grpc-error.ts), or the signal's reason.
   */
  unary<Req, Res>(rpc: Rpc<Req, Res>, req: Req, retry: Retry, opts: CallOptions = {}): Promise<Res> {
    return this.retrying(retry, opts, (channel, md) => this.once(channel, rpc, req, md, opts.signal))
  }

  /**
   * Run `attempt` (one call on `channel` with metadata `md`), repeated over the endpoints with backoff while
   * they are unreachable (for up to the dial timeout; a write only while it surely was not sent), and once
   * more with a new token if the server refused the token. Rejects with the typed error of the failure
   * (grpc-error.ts), or the signal's reason.
   */
  async retrying<T>(retry: Retry, opts: CallOptions, attempt: (channel: PickedChannel, md: grpc.Metadata) => Promise<T>): Promise<T> {
    const backoff = this.newBackoff()
    let firstFailure: number | undefined
    let renewed = false
    for (;;) {
      opts.signal?.throwIfAborted()
      const channel = this.pick()
      try {
        return await attempt(channel, opts.anonymous === true ? new grpc.Metadata() : this.metadata())
      } catch (e) {
        opts.signal?.throwIfAborted()
        if (this.isClosed) throw closedError()
        const t = transportFailure(e)
        if (t.retry) {
          this.failed(channel)
          firstFailure ??= Date.now()
          if ((retry === 'always' || t.notSent) && Date.now() - firstFailure < this.opts.dialTimeoutMs && (await this.sleep(backoff.next()))) continue
          throw this.isClosed ? closedError() : toClientError(e)
        }
        const err = toClientError(e)
        if (renewed || opts.anonymous === true || !this.tokenRefused(err)) throw err
        renewed = true
        await this.renewToken()
      }
    }
  }

  private once<Req, Res>(channel: PickedChannel, rpc: Rpc<Req, Res>, req: Req, md: grpc.Metadata, signal: AbortSignal | undefined): Promise<Res> {
    return new Promise((resolve, reject) => {
      const call = channel.client.makeUnaryRequest(rpc.path, rpc.serialize, rpc.deserialize, req, md, {}, (err, res) => {
        signal?.removeEventListener('abort', cancel)
        this.owned.delete(owner)
        if (err !== null || res === undefined) reject(err ?? new Error('empty response'))
        else resolve(res)
      })
      const cancel = (): void => call.cancel()
      // close() cancels a call still in flight (a lock or campaign can wait for ever).
      const owner = { close: cancel }
      this.owned.add(owner)
      signal?.addEventListener('abort', cancel, { once: true })
    })
  }

  /** Close every channel, end what was opened through the connection, and clear every pending timer. */
  close(): void {
    if (this.isClosed) return
    this.isClosed = true
    for (const [t, wake] of this.sleeps) {
      clearTimeout(t)
      wake()
    }
    this.sleeps.clear()
    for (const x of [...this.owned]) x.close()
    this.owned.clear()
    this.endpoints.close()
  }
}
