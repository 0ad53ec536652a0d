// A running lease keep-alive as the caller sees it: an async iterable of renewal responses with a `closed`
// end. The embedded LeaseKeepAlive (renewing in process) and the remote client's (renewing over a
// LeaseKeepAlive stream that survives reconnects) share this part and differ in how they renew.
import type { LeaseKeepAliveResponse } from '../etcdserver/types/lease.js'
import { QueueIterator } from '../pkg/queue-iterator.js'
import type { LeaseKeepAliveEnd, LeaseKeepAliveOptions } from './lease.js'

/** Responses kept for a consumer that reads slowly; older ones are dropped (renewal goes on regardless). */
const KEEPALIVE_BUFFER = 16

export abstract class KeepAliveRunner extends QueueIterator<LeaseKeepAliveResponse> {
  readonly id: bigint
  readonly closed: Promise<LeaseKeepAliveEnd>
  /** Set once finished: renewing stops. */
  protected ended = false
  private resolveClosed!: (end: LeaseKeepAliveEnd) => void
  private readonly signal: AbortSignal | undefined
  private readonly onAbort = (): void => this.finish('aborted')

  protected constructor(opts: LeaseKeepAliveOptions) {
    super(KEEPALIVE_BUFFER)
    this.id = opts.id
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve))
    this.signal = opts.signal
  }

  /** Start renewing with `first`, unless the signal has aborted already (the subclass's state is set by now). */
  protected begin(first: () => void): void {
    if (this.signal?.aborted === true) {
      this.finish('aborted')
      return
    }
    this.signal?.addEventListener('abort', this.onAbort, { once: true })
    first()
  }

  /** A renewal's answer: TTL 0 ends it ('lease-not-found'); else it is queued and true says to renew again. */
  protected answered(resp: LeaseKeepAliveResponse): boolean {
    if (this.ended) return false
    if (resp.ttl <= 0) {
      this.finish('lease-not-found')
      return false
    }
    this.queue.tryPush(resp)
    return true
  }

  /** Stop whatever renews (timers, calls); called once, as the keep-alive ends. */
  protected abstract stopRenewing(): void

  /** Stop renewing. Idempotent. */
  cancel(): void {
    this.finish('canceled')
  }

  protected stop(): void {
    this.cancel()
  }

  protected finish(reason: LeaseKeepAliveEnd['reason']): void {
    if (this.ended) return
    this.ended = true
    this.stopRenewing()
    this.signal?.removeEventListener('abort', this.onAbort)
    this.queue.close()
    this.resolveClosed({ reason })
  }
}
