// Keeping a lease alive in process, the way etcd's clientv3 KeepAlive does over gRPC: renew at once, then
// every TTL/3, until the lease is gone or the caller stops.
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { CallCredentials } from '../etcdserver/types/credentials.js'
import type { ClockTimer } from '../pkg/clock.js'
import { KeepAliveRunner } from './keep-alive-runner.js'

export interface LeaseKeepAliveOptions {
  readonly id: bigint
  /** Stops the keep-alive when aborted. */
  readonly signal?: AbortSignal
}

/** Why a keep-alive ended: the lease is gone (expired or revoked), cancel(), the signal, or close(). */
export interface LeaseKeepAliveEnd {
  readonly reason: 'lease-not-found' | 'canceled' | 'aborted' | 'closed'
}

/**
 * A running keep-alive: an async iterable of renewal responses (`ttl` is the granted TTL). It renews on
 * the server's clock, so a ManualClock drives it too. `break`, cancel() or the signal stop it; it ends by
 * itself when a renewal answers TTL 0 (the lease no longer exists). `closed` never rejects.
 */
export class LeaseKeepAlive extends KeepAliveRunner {
  private readonly server: EtcdServer
  private readonly creds: CallCredentials | undefined
  private timer: ClockTimer | undefined

  /** @internal use Etcd.leaseKeepAlive() */
  constructor(server: EtcdServer, opts: LeaseKeepAliveOptions, creds?: CallCredentials) {
    super(opts)
    this.server = server
    this.creds = creds
    this.begin(() => this.renew())
  }

  protected stopRenewing(): void {
    this.timer?.cancel()
  }

  private renew(): void {
    this.timer = undefined
    if (this.ended) return
    if (this.server.closed) {
      this.finish('closed')
      return
    }
    this.server.leaseService.leaseRenew({ id: this.id }, this.creds).then(
      (resp) => {
        // clientv3: the next keep-alive goes out after a third of the TTL.
        if (this.answered(resp)) this.timer = this.server.clock.after((resp.ttl * 1000) / 3, () => this.renew())
      },
      () => this.finish(this.server.closed ? 'closed' : 'lease-not-found'),
    )
  }
}
