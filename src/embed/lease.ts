// Keeping a lease alive in process, the way etcd's clientv3 KeepAlive does over gRPC: renew at once, then
// every TTL/3, until the lease is gone or the caller stops.
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { CallCredentials, LeaseKeepAliveResponse } from '../etcdserver/types.js'
import { AsyncQueue } from '../pkg/async-queue.js'
import type { ClockTimer } from '../pkg/clock.js'

export interface LeaseKeepAliveOptions {
  readonly id: bigint
  /** Stops the keep-alive when aborted. */
  readonly signal?: AbortSignal
}

/** Why a keep-alive ended: the lease is gone (expired or revoked), cancel(), the signal, or close(). */
export interface LeaseKeepAliveEnd {
  readonly reason: 'lease-not-found' | 'canceled' | 'aborted' | 'closed'
}

/** Responses kept for a consumer that reads slowly; older ones are dropped (renewal goes on regardless). */
const KEEPALIVE_BUFFER = 16

/**
 * A running keep-alive: an async iterable of renewal responses (`ttl` is the granted TTL). It renews on
 * the server's clock, so a ManualClock drives it too. `break`, cancel() or the signal stop it; it ends by
 * itself when a renewal answers TTL 0 (the lease no longer exists). `closed` never rejects.
 */
export class LeaseKeepAlive implements AsyncIterableIterator<LeaseKeepAliveResponse>, AsyncDisposable {
  readonly id: bigint
  readonly closed: Promise<LeaseKeepAliveEnd>
  private readonly server: EtcdServer
  private readonly creds: CallCredentials | undefined
  private readonly queue = new AsyncQueue<LeaseKeepAliveResponse>({ capacity: KEEPALIVE_BUFFER })
  private timer: ClockTimer | undefined
  private ended = false
  private resolveClosed!: (end: LeaseKeepAliveEnd) => void
  private readonly signal: AbortSignal | undefined
  private readonly onAbort = (): void => this.finish('aborted')

  /** @internal use Etcd.leaseKeepAlive() */
  constructor(server: EtcdServer, opts: LeaseKeepAliveOptions, creds?: CallCredentials) {
    this.server = server
    this.creds = creds
    this.id = opts.id
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve))
    this.signal = opts.signal
    if (opts.signal?.aborted === true) {
      this.finish('aborted')
      return
    }
    opts.signal?.addEventListener('abort', this.onAbort, { once: true })
    this.renew()
  }

  /** Stop renewing. Idempotent. */
  cancel(): void {
    this.finish('canceled')
  }

  next(): Promise<IteratorResult<LeaseKeepAliveResponse, undefined>> {
    return this.queue.next()
  }

  return(): Promise<IteratorResult<LeaseKeepAliveResponse, undefined>> {
    this.cancel()
    return this.queue.return()
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  [Symbol.asyncDispose](): Promise<void> {
    this.cancel()
    return Promise.resolve()
  }

  private renew(): void {
    this.timer = undefined
    if (this.ended) return
    if (this.server.closed) {
      this.finish('closed')
      return
    }
    this.server.leaseRenew({ id: this.id }, this.creds).then(
      (resp) => {
        if (this.ended) return
        if (resp.ttl <= 0) {
          this.finish('lease-not-found')
          return
        }
        this.queue.tryPush(resp)
        // clientv3: the next keep-alive goes out after a third of the TTL.
        this.timer = this.server.clock.after((resp.ttl * 1000) / 3, () => this.renew())
      },
      () => this.finish(this.server.closed ? 'closed' : 'lease-not-found'),
    )
  }

  private finish(reason: LeaseKeepAliveEnd['reason']): void {
    if (this.ended) return
    this.ended = true
    this.timer?.cancel()
    this.signal?.removeEventListener('abort', this.onAbort)
    this.queue.close()
    this.resolveClosed({ reason })
  }
}
