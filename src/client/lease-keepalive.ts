// Keeping a lease alive over a remote LeaseKeepAlive stream, as clientv3's KeepAlive does (renew at once,
// then a third of the TTL after each answer), with the embedded LeaseKeepAlive's interface and ends. The
// stream survives the endpoint: when it breaks, a new one (backoff with jitter, next endpoint) renews at
// once, so a restart shorter than the TTL goes unnoticed; a lease that expired meanwhile is answered with
// TTL 0 and the keep-alive ends with 'lease-not-found'.
import type * as grpc from '@grpc/grpc-js'
import type { LeaseKeepAliveResponse } from '../etcdserver/types/lease.js'
import type { LeaseKeepAliveResponse__Output as PbKeepAliveResponse } from '../grpc/generated/etcdserverpb/LeaseKeepAliveResponse.js'
import { fromPbLeaseKeepAliveResponse, toPbLeaseIdRequest } from '../grpc/convert-lease.js'
import type { LeaseKeepAliveOptions } from '../embed/lease.js'
import { KeepAliveRunner } from '../embed/keep-alive-runner.js'
import type { Backoff } from './backoff.js'
import { openBidi } from './bidi-call.js'
import type { Connection } from './connection.js'
import type { PickedChannel } from './endpoints.js'
import type { EtcdLeaseKeepAlive } from './etcd-client.js'
import { toClientError, transportFailure } from './grpc-error.js'

type Call = grpc.ClientDuplexStream<{ ID: string }, PbKeepAliveResponse>

export class RemoteLeaseKeepAlive extends KeepAliveRunner implements EtcdLeaseKeepAlive {
  private readonly backoff: Backoff
  private call: Call | undefined
  private channel: PickedChannel | undefined
  private timer: NodeJS.Timeout | undefined
  private renewedToken = false
  private readonly disown: () => void

  /** @internal use Client.leaseKeepAlive() */
  constructor(private readonly conn: Connection, opts: LeaseKeepAliveOptions) {
    super(opts)
    this.backoff = conn.newBackoff()
    this.disown = conn.own({ close: () => this.finish('closed') })
    if (conn.closed) {
      this.finish('closed')
      return
    }
    this.begin(() => this.open())
  }

  protected stopRenewing(): void {
    this.dropCall()
    this.disown()
  }

  private open(): void {
    if (this.ended) return
    let channel: PickedChannel
    try {
      channel = this.conn.pick()
    } catch {
      this.finish('closed')
      return
    }
    this.call = openBidi(channel, this.conn.rpc.leaseKeepAlive, this.conn.metadata(), {
      current: (call) => this.call === call,
      data: (m: PbKeepAliveResponse) => this.renewed(fromPbLeaseKeepAliveResponse(m)),
      broken: (e) => this.broken(e),
    })
    this.channel = channel
    this.renew()
  }

  private renew(): void {
    this.timer = undefined
    this.call?.write(toPbLeaseIdRequest({ id: this.id }))
  }

  private renewed(resp: LeaseKeepAliveResponse): void {
    this.backoff.reset()
    this.renewedToken = false
    if (!this.answered(resp)) return
    clearTimeout(this.timer)
    // clientv3: the next keep-alive goes out after a third of the TTL.
    this.timer = setTimeout(() => this.renew(), (resp.ttl * 1000) / 3)
  }

  private broken(e: Error | undefined): void {
    this.dropCall()
    const t = transportFailure(e)
    let renewToken = false
    if (e !== undefined && !t.retry) {
      const err = toClientError(e)
      if (!this.conn.tokenRefused(err) || this.renewedToken) {
        // etcd answers a lease it does not know with TTL 0; any other refusal means the same to a keep-alive.
        this.finish('lease-not-found')
        return
      }
      renewToken = this.renewedToken = true
    } else if (this.channel !== undefined) this.conn.failed(this.channel)
    void (async () => {
      if (!(await this.conn.sleep(this.backoff.next()))) return
      if (renewToken) await this.conn.renewToken().catch(() => undefined)
      this.open()
    })()
  }

  private dropCall(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    const call = this.call
    this.call = undefined
    if (call === undefined) return
    call.removeAllListeners('data')
    call.on('error', () => undefined)
    call.cancel()
  }
}
