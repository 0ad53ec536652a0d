// The remote client connect() returns: the EtcdClient interface over etcd's gRPC API, with the embedded
// API's request checks, response shapes and typed errors. Reads and renewals are retried over the
// endpoints while none answers (up to the dial timeout); writes only when they surely never reached a
// server, as clientv3 does; a refused token is renewed once per call.
import type * as grpc from '@grpc/grpc-js'
import type {
  CampaignRequest, CampaignResponse, LeaderRequest, LeaderResponse, LockRequest, LockResponse, ProclaimRequest,
  ProclaimResponse, ResignRequest, ResignResponse, UnlockRequest, UnlockResponse,
} from '../etcdserver/types/concurrency.js'
import type {
  CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse, PutRequest, PutResponse,
  RangeRequest, RangeResponse, RequestOp, TxnRequest, TxnResponse,
} from '../etcdserver/types/kv.js'
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseLeasesResponse,
  LeaseRevokeRequest, LeaseRevokeResponse, LeaseTimeToLiveRequest, LeaseTimeToLiveResponse,
} from '../etcdserver/types/lease.js'
import type {
  DowngradeRequest, DowngradeResponse, HashKVRequest, HashKVResponse, StatusResponse,
} from '../etcdserver/types/maintenance.js'
import { checkPut, checkRequest, checkSignalOptions, type Input } from '../embed/input.js'
import type { WatchOptions } from '../embed/watch.js'
import type { LeaseKeepAliveOptions } from '../embed/lease.js'
import type { LeaseKeepAliveResponse__Output as PbKeepAliveResponse } from '../grpc/generated/etcdserverpb/LeaseKeepAliveResponse.js'
import {
  fromPbCampaignResponse, fromPbLeaderResponse, fromPbLockResponse, toPbCampaignRequest, toPbLockRequest, toPbProclaimRequest,
  toPbResignRequest,
} from '../grpc/convert-concurrency.js'
import { fromPbHeaderOnly } from '../grpc/convert-header.js'
import {
  fromPbDeleteRangeResponse, fromPbPutResponse, fromPbRangeResponse, fromPbTxnResponse, toPbCompactionRequest,
  toPbDeleteRangeRequest, toPbPutRequest, toPbRangeRequest, toPbTxnRequest,
} from '../grpc/convert-kv.js'
import {
  fromPbLeaseGrantResponse, fromPbLeaseKeepAliveResponse, fromPbLeaseLeasesResponse, fromPbLeaseTimeToLiveResponse,
  toPbLeaseGrantRequest, toPbLeaseIdRequest, toPbLeaseTimeToLiveRequest,
} from '../grpc/convert-lease.js'
import {
  fromPbDowngradeResponse, fromPbHashKVResponse, fromPbStatusResponse, toPbDowngradeRequest, toPbHashKVRequest,
} from '../grpc/convert-maintenance.js'
import type { Connection, Retry } from './connection.js'
import type { EtcdClient, SignalOptions } from './etcd-client.js'
import { RemoteLeaseKeepAlive } from './lease-keepalive.js'
import { observe } from './observe.js'
import { RemoteWatchStream } from './watch-stream.js'
import { RemoteWatcher } from './watcher.js'
import { asError } from '../pkg/as-error.js'

/** A txn that only reads (ranges, nested too) can be repeated safely. */
function readOnly(t: TxnRequest): boolean {
  const op = (o: RequestOp): boolean => o.type === 'range' || o.type === 'empty' || (o.type === 'txn' && readOnly(o.request))
  return (t.success ?? []).every(op) && (t.failure ?? []).every(op)
}

/** Check (as the embedded API does), convert, call, convert back: one call of the client. */
function rejected<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return fn()
  } catch (err) {
    return Promise.reject(asError(err))
  }
}

/** A client of a remote etcd (see connect()). Closing is idempotent and also happens with `await using`. */
export class RemoteClient implements EtcdClient {
  /** @internal use connect() */
  constructor(private readonly conn: Connection) {}

  range(req: Input<RangeRequest>): Promise<RangeResponse> {
    return rejected(() => this.call('always', this.conn.rpc.range, toPbRangeRequest(checkRequest('range', req)), fromPbRangeResponse))
  }

  put(req: Input<PutRequest>): Promise<PutResponse> {
    return rejected(() => this.call('unsent', this.conn.rpc.put, toPbPutRequest(checkPut(req)), fromPbPutResponse))
  }

  deleteRange(req: Input<DeleteRangeRequest>): Promise<DeleteRangeResponse> {
    return rejected(() => this.call('unsent', this.conn.rpc.deleteRange, toPbDeleteRangeRequest(checkRequest('deleteRange', req)), fromPbDeleteRangeResponse))
  }

  txn(req: Input<TxnRequest>): Promise<TxnResponse> {
    return rejected(() => {
      const r = checkRequest('txn', req)
      return this.call(readOnly(r) ? 'always' : 'unsent', this.conn.rpc.txn, toPbTxnRequest(r), fromPbTxnResponse)
    })
  }

  compact(req: Input<CompactionRequest>): Promise<CompactionResponse> {
    return rejected(() => this.call('unsent', this.conn.rpc.compact, toPbCompactionRequest(checkRequest('compact', req)), fromPbHeaderOnly))
  }

  watch(opts: Input<WatchOptions>): RemoteWatcher {
    return new RemoteWatcher(this.conn, checkRequest('watch', opts))
  }

  watchStream(): RemoteWatchStream {
    return new RemoteWatchStream(this.conn)
  }

  leaseGrant(req: Input<LeaseGrantRequest>): Promise<LeaseGrantResponse> {
    return rejected(() => this.call('unsent', this.conn.rpc.leaseGrant, toPbLeaseGrantRequest(checkRequest('leaseGrant', req)), fromPbLeaseGrantResponse))
  }

  leaseRevoke(req: Input<LeaseRevokeRequest>): Promise<LeaseRevokeResponse> {
    return rejected(() => this.call('unsent', this.conn.rpc.leaseRevoke, toPbLeaseIdRequest(checkRequest('leaseRevoke', req)), fromPbHeaderOnly))
  }

  /** One LeaseKeepAlive message on a stream of its own: TTL is the granted TTL, or 0 if the lease is gone. */
  leaseKeepAliveOnce(req: Input<LeaseKeepAliveRequest>): Promise<LeaseKeepAliveResponse> {
    return rejected(() => {
      const r = toPbLeaseIdRequest(checkRequest('leaseKeepAliveOnce', req))
      const rpc = this.conn.rpc.leaseKeepAlive
      return this.conn.retrying('always', {}, (channel, md) => new Promise<LeaseKeepAliveResponse>((resolve, reject) => {
        const call: grpc.ClientDuplexStream<{ ID: string }, PbKeepAliveResponse> =
          channel.client.makeBidiStreamRequest(rpc.path, rpc.serialize, rpc.deserialize, md, {})
        const disown = this.conn.own({ close: () => call.cancel() })
        const settle = (): void => {
          disown()
          call.removeAllListeners()
          call.on('error', () => undefined)
          call.cancel()
        }
        call.on('data', (m: PbKeepAliveResponse) => {
          settle()
          resolve(fromPbLeaseKeepAliveResponse(m))
        })
        call.on('error', (e: Error) => {
          settle()
          reject(e)
        })
        call.on('end', () => {
          settle()
          reject(new Error('etcdlite: the LeaseKeepAlive stream ended without an answer'))
        })
        call.write(r)
      }))
    })
  }

  leaseKeepAlive(opts: LeaseKeepAliveOptions): RemoteLeaseKeepAlive {
    return new RemoteLeaseKeepAlive(this.conn, checkRequest('leaseKeepAlive', opts))
  }

  leaseTimeToLive(req: Input<LeaseTimeToLiveRequest>): Promise<LeaseTimeToLiveResponse> {
    return rejected(() => this.call('always', this.conn.rpc.leaseTimeToLive, toPbLeaseTimeToLiveRequest(checkRequest('leaseTimeToLive', req)), fromPbLeaseTimeToLiveResponse))
  }

  leaseLeases(): Promise<LeaseLeasesResponse> {
    return this.call('always', this.conn.rpc.leaseLeases, {}, fromPbLeaseLeasesResponse)
  }

  lock(req: Input<LockRequest>, opts: SignalOptions = {}): Promise<LockResponse> {
    return rejected(() => {
      const r = toPbLockRequest(checkRequest('lock', req))
      return this.call('unsent', this.conn.rpc.lock, r, fromPbLockResponse, checkSignalOptions('lock', opts).signal)
    })
  }

  unlock(req: Input<UnlockRequest>): Promise<UnlockResponse> {
    return rejected(() => this.call('unsent', this.conn.rpc.unlock, checkRequest('unlock', req), fromPbHeaderOnly))
  }

  campaign(req: Input<CampaignRequest>, opts: SignalOptions = {}): Promise<CampaignResponse> {
    return rejected(() => {
      const r = toPbCampaignRequest(checkRequest('campaign', req))
      return this.call('unsent', this.conn.rpc.campaign, r, fromPbCampaignResponse, checkSignalOptions('campaign', opts).signal)
    })
  }

  proclaim(req: Input<ProclaimRequest>): Promise<ProclaimResponse> {
    return rejected(() => this.call('unsent', this.conn.rpc.proclaim, toPbProclaimRequest(checkRequest('proclaim', req)), fromPbHeaderOnly))
  }

  leader(req: Input<LeaderRequest>): Promise<LeaderResponse> {
    return rejected(() => this.call('always', this.conn.rpc.leader, checkRequest('leader', req), fromPbLeaderResponse))
  }

  /** Every change of leader of election `name`, starting with the current one, until `signal` aborts. */
  observe(req: Input<LeaderRequest>, opts: SignalOptions = {}): AsyncGenerator<LeaderResponse, void, undefined> {
    return observe(this.conn, checkRequest('observe', req), checkSignalOptions('observe', opts).signal)
  }

  resign(req: Input<ResignRequest>): Promise<ResignResponse> {
    return rejected(() => this.call('unsent', this.conn.rpc.resign, toPbResignRequest(checkRequest('resign', req)), fromPbHeaderOnly))
  }

  status(): Promise<StatusResponse> {
    return this.call('always', this.conn.rpc.status, {}, fromPbStatusResponse)
  }

  hashKV(req: Input<HashKVRequest> = {}): Promise<HashKVResponse> {
    return rejected(() => this.call('always', this.conn.rpc.hashKV, toPbHashKVRequest(checkRequest('hashKV', req)), fromPbHashKVResponse))
  }

  /**
   * etcd 3.5's Downgrade (see Etcd.downgrade). Sent once, as clientv3 sends it: an ENABLE or CANCEL that
   * reached the server may have taken effect, and a second one would only find it in process.
   */
  downgrade(req: Input<DowngradeRequest> = {}): Promise<DowngradeResponse> {
    return rejected(() => this.call('unsent', this.conn.rpc.downgrade, toPbDowngradeRequest(checkRequest('downgrade', req)), fromPbDowngradeResponse))
  }

  /** Close every channel; watches end ('closed'), keep-alives end ('closed'), calls in flight are canceled. */
  close(): Promise<void> {
    this.conn.close()
    return Promise.resolve()
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close()
  }

  private async call<Req, Pb, Res>(
    retry: Retry, rpc: { readonly path: string; serialize(r: Req): Buffer; deserialize(b: Buffer): Pb }, req: Req,
    parse: (pb: Pb) => Res, signal?: AbortSignal,
  ): Promise<Res> {
    return parse(await this.conn.unary(rpc, req, retry, { signal }))
  }
}
