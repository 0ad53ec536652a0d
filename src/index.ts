// Public surface: explicit named exports only, in groups: the embedded server, the request and response
// types, errors, clocks and logging, TLS, the remote client, then the list-watch machinery.

// The embedded server.
export { openEtcd, Etcd } from './embed/etcd.js'
export type { Listener } from './embed/listeners.js'
export type { EtcdOptions, ListenOptions, ListenTlsOptions } from './embed/options.js'
export { ETCD_DEFAULTS } from './embed/options.js'
export { Watcher, WatchStream, WATCH_STREAM_BUFFER } from './embed/watch.js'
export type { WatchOptions, WatchEnd } from './embed/watch.js'
export type { Bytes, Input } from './embed/input.js'
export { LeaseKeepAlive } from './embed/lease.js'
export type { LeaseKeepAliveOptions, LeaseKeepAliveEnd } from './embed/lease.js'
export { prefixEnd } from './embed/input.js'
export type { JwtOptions, JwtSignMethod } from './auth/jwt-token.js'

// Requests and responses, as both the embedded server and the remote client take and return them.
export type {
  AuthDisableResponse, AuthEnableResponse, AuthHeaderResponse, AuthRoleAddRequest, AuthRoleDeleteRequest,
  AuthRoleGetRequest, AuthRoleGetResponse, AuthRoleGrantPermissionRequest, AuthRoleListResponse,
  AuthRoleRevokePermissionRequest, AuthStatusResponse, AuthUserAddRequest, AuthUserChangePasswordRequest,
  AuthUserDeleteRequest, AuthUserGetRequest, AuthUserGetResponse, AuthUserGrantRoleRequest, AuthUserListResponse,
  AuthUserRevokeRoleRequest, AuthenticateRequest, AuthenticateResponse, Permission, PermissionType,
} from './etcdserver/types/auth.js'
export type { Member, MemberListRequest, MemberListResponse } from './etcdserver/types/cluster.js'
export type {
  CampaignRequest, CampaignResponse, LeaderKey, LeaderRequest, LeaderResponse, LockRequest, LockResponse,
  ProclaimRequest, ProclaimResponse, ResignRequest, ResignResponse, UnlockRequest, UnlockResponse,
} from './etcdserver/types/concurrency.js'
export type { CallCredentials } from './etcdserver/types/credentials.js'
export type { ResponseHeader } from './etcdserver/types/header.js'
export type {
  CompactionRequest, CompactionResponse, Compare, CompareResult, CompareTarget, DeleteRangeRequest,
  DeleteRangeResponse, KeyValue, PutRequest, PutResponse, RangeRequest, RangeResponse, RequestOp, ResponseOp,
  SortOrder, SortTarget, TxnRequest, TxnResponse,
} from './etcdserver/types/kv.js'
export type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseLeasesResponse,
  LeaseRevokeRequest, LeaseRevokeResponse, LeaseStatus, LeaseTimeToLiveRequest, LeaseTimeToLiveResponse,
} from './etcdserver/types/lease.js'
export type {
  AlarmAction, AlarmMember, AlarmRequest, AlarmResponse, AlarmType, DowngradeAction, DowngradeInfo, DowngradeRequest,
  DowngradeResponse, HashKVRequest, HashKVResponse, HashResponse, MoveLeaderRequest, SnapshotChunk, StatusResponse,
} from './etcdserver/types/maintenance.js'
export type {
  EventType, WatchCreateRequest, WatchEvent, WatchFilter, WatchRequest, WatchResponse,
} from './etcdserver/types/watch.js'

// Errors.
export { SnapshotError } from './etcdserver/snapshot-error.js'
export { DataDirError } from './backend/data-dir.js'
export type { DataDirProblem } from './backend/data-dir.js'
export { EtcdError, isEtcdError } from './pkg/errors.js'
export type { ErrorCode } from './pkg/errors.js'
export { CompactedError, FutureRevError, EmptyWatcherRangeError } from './mvcc/errors.js'

// Time and logging.
export { ManualClock, realClock } from './pkg/clock.js'
export type { Clock, ClockTimer, TimerFn } from './pkg/clock.js'
export type { Logger, LogLevel } from './pkg/logger.js'
export { createLogger } from './pkg/logger.js'

// TLS: certificates as etcd's flags make them, and their errors.
export { peerTls, selfCert, serverTls } from './pkg/transport/tls-entry.js'
export { SelfCertError } from './pkg/transport/self-cert-error.js'
export type { SelfCertFiles, SelfCertOptions } from './pkg/transport/self-cert.js'
export type { PeerTlsInfoFlags, PeerTlsOptions, ServerTls, ServerTlsOptions, TlsInfoFlags } from './pkg/transport/server-tls.js'
export type { ServerTlsInfo } from './pkg/transport/tls-info.js'
export { KeyPairError } from './pkg/transport/key-pair-error.js'
export { TlsConfigError } from './pkg/tlsutil/tls-config-error.js'

// The remote client, and the EtcdClient interface it shares with the embedded Etcd.
export { connect } from './client/connect.js'
export { RemoteClient } from './client/client.js'
export { RemoteWatcher } from './client/watcher.js'
export { RemoteWatchStream } from './client/watch-stream.js'
export { RemoteLeaseKeepAlive } from './client/lease-keepalive.js'
export { GrpcError } from './client/grpc-error.js'
export type { ConnectOptions, ConnectTlsOptions } from './client/options.js'
export type { BackoffOptions } from './client/backoff.js'
export type {
  EtcdClient, KV, Watch, Lease, Lock, Election, Maintenance, EtcdWatcher, EtcdWatchStream, EtcdLeaseKeepAlive,
  SignalOptions,
} from './client/etcd-client.js'

// Informers, work queues and controllers.
export { SharedInformer } from './informer/shared-informer.js'
export type { HandlerRegistration, InformerStats } from './informer/shared-informer.js'
export { jsonDecoder, textDecoder } from './informer/options.js'
export type { Decoder, SharedInformerOptions, HandlerOptions } from './informer/options.js'
export type { CacheEntry, IndexFunc, Indexer } from './informer/indexer.js'
export type { EventHandler, AddInfo, UpdateInfo, DeleteInfo } from './informer/processor-listener.js'
export type { ReflectorStats } from './informer/reflector.js'
export { isCompactedError } from './informer/source.js'
export type {
  ListWatchSource, SourceKeyValue, SourceRangeRequest, SourceRangeResponse, SourceWatchOptions, SourceWatchEvent,
  SourceWatchResponse, SourceWatchEnd, SourceWatcher,
} from './informer/source.js'
export { WorkQueue } from './workqueue/queue.js'
export type { WorkQueueOptions } from './workqueue/queue.js'
export { DelayingQueue } from './workqueue/delaying-queue.js'
export { RateLimitingQueue } from './workqueue/rate-limiting-queue.js'
export type { RateLimitingQueueOptions } from './workqueue/rate-limiting-queue.js'
export {
  ItemExponentialFailureRateLimiter, BucketRateLimiter, MaxOfRateLimiter, defaultControllerRateLimiter, exponentialOnlyRateLimiter,
} from './workqueue/rate-limiters.js'
export type { RateLimiter } from './workqueue/rate-limiters.js'
export { runController } from './controller/controller.js'
export type { ControllerOptions, ControllerInformer, ReconcileResult } from './controller/controller.js'
