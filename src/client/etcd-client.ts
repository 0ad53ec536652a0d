// The interface the embedded Etcd (openEtcd) and the remote client (connect) share, in the pieces etcd's
// clientv3 names: KV, Watch, Lease, Lock, Election, Maintenance. Code typed against EtcdClient runs over an
// etcdlite in process or over any etcd v3 endpoint; only the line that opens it changes.
import type {
  CampaignRequest, CampaignResponse, LeaderRequest, LeaderResponse, LockRequest, LockResponse, ProclaimRequest,
  ProclaimResponse, ResignRequest, ResignResponse, UnlockRequest, UnlockResponse,
} from '../etcdserver/types/concurrency.js'
import type {
  CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse, PutRequest, PutResponse,
  RangeRequest, RangeResponse, TxnRequest, TxnResponse,
} from '../etcdserver/types/kv.js'
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseLeasesResponse,
  LeaseRevokeRequest, LeaseRevokeResponse, LeaseTimeToLiveRequest, LeaseTimeToLiveResponse,
} from '../etcdserver/types/lease.js'
import type {
  DowngradeRequest, DowngradeResponse, HashKVRequest, HashKVResponse, StatusResponse,
} from '../etcdserver/types/maintenance.js'
import type { WatchRequest, WatchResponse } from '../etcdserver/types/watch.js'
import type { Input } from '../embed/input.js'
import type { WatchEnd, WatchOptions } from '../embed/watch.js'
import type { LeaseKeepAliveEnd, LeaseKeepAliveOptions } from '../embed/lease.js'

/** Options of the calls that wait (lock, campaign, observe): aborting withdraws the waiter. */
export interface SignalOptions {
  readonly signal?: AbortSignal
}

/**
 * One watcher (Etcd.watch / Client.watch): event and progress responses until it ends; `closed` says why
 * (canceled, compacted with the compacted revision, aborted, closed). `break` cancels it.
 */
export interface EtcdWatcher extends AsyncIterableIterator<WatchResponse>, AsyncDisposable {
  readonly closed: Promise<WatchEnd>
  /** Ask for a progress response (sent once every event up to the current revision has been delivered). */
  requestProgress(): void
  cancel(): Promise<void>
}

/** A whole watch stream (the gRPC Watch protocol): create, cancel and progress requests in, responses out. */
export interface EtcdWatchStream extends AsyncIterableIterator<WatchResponse>, AsyncDisposable {
  /** Resolves when the stream has ended; never rejects. */
  readonly closed: Promise<void>
  send(req: Input<WatchRequest>): void
  close(): void
}

/** A running keep-alive: renewal responses until the lease is gone, cancel(), the signal or close(). */
export interface EtcdLeaseKeepAlive extends AsyncIterableIterator<LeaseKeepAliveResponse>, AsyncDisposable {
  readonly id: bigint
  readonly closed: Promise<LeaseKeepAliveEnd>
  cancel(): void
}

/** etcd's KV service. */
export interface KV {
  range(req: Input<RangeRequest>): Promise<RangeResponse>
  put(req: Input<PutRequest>): Promise<PutResponse>
  deleteRange(req: Input<DeleteRangeRequest>): Promise<DeleteRangeResponse>
  txn(req: Input<TxnRequest>): Promise<TxnResponse>
  compact(req: Input<CompactionRequest>): Promise<CompactionResponse>
}

/** etcd's Watch service. */
export interface Watch {
  watch(opts: Input<WatchOptions>): EtcdWatcher
  watchStream(): EtcdWatchStream
}

/** etcd's Lease service, with clientv3's KeepAlive loop. */
export interface Lease {
  leaseGrant(req: Input<LeaseGrantRequest>): Promise<LeaseGrantResponse>
  leaseRevoke(req: Input<LeaseRevokeRequest>): Promise<LeaseRevokeResponse>
  leaseKeepAliveOnce(req: Input<LeaseKeepAliveRequest>): Promise<LeaseKeepAliveResponse>
  leaseKeepAlive(opts: LeaseKeepAliveOptions): EtcdLeaseKeepAlive
  leaseTimeToLive(req: Input<LeaseTimeToLiveRequest>): Promise<LeaseTimeToLiveResponse>
  leaseLeases(): Promise<LeaseLeasesResponse>
}

/** etcd's v3lock service. */
export interface Lock {
  lock(req: Input<LockRequest>, opts?: SignalOptions): Promise<LockResponse>
  unlock(req: Input<UnlockRequest>): Promise<UnlockResponse>
}

/** etcd's v3election service. */
export interface Election {
  campaign(req: Input<CampaignRequest>, opts?: SignalOptions): Promise<CampaignResponse>
  proclaim(req: Input<ProclaimRequest>): Promise<ProclaimResponse>
  leader(req: Input<LeaderRequest>): Promise<LeaderResponse>
  observe(req: Input<LeaderRequest>, opts?: SignalOptions): AsyncGenerator<LeaderResponse, void, undefined>
  resign(req: Input<ResignRequest>): Promise<ResignResponse>
}

/** The part of etcd's Maintenance service both offer. */
export interface Maintenance {
  status(): Promise<StatusResponse>
  hashKV(req?: Input<HashKVRequest>): Promise<HashKVResponse>
  /** etcd 3.5's Downgrade: VALIDATE, ENABLE or CANCEL a downgrade of the cluster version. */
  downgrade(req?: Input<DowngradeRequest>): Promise<DowngradeResponse>
}

/** Everything both the embedded Etcd and the remote client offer; close() (or `await using`) releases it. */
export interface EtcdClient extends KV, Watch, Lease, Lock, Election, Maintenance, AsyncDisposable {
  close(): Promise<void>
}
