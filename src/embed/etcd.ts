// The composition root and in-process API: one engine, used directly or served over gRPC.
import { LevelBackend } from '../backend/level-backend.js'
import { checkDataDir, lockedError } from '../backend/data-dir.js'
import { AccessController } from '../etcdserver/access-controller.js'
import { EtcdServer } from '../etcdserver/etcd-server.js'
import { majorMinor, serverMetrics } from '../etcdserver/metrics.js'
import { parseRetention } from '../etcdserver/auto-compactor.js'
import { LockServer } from '../etcdserver/v3lock.js'
import { ElectionServer } from '../etcdserver/v3election.js'
import { asCaller } from '../etcdserver/concurrency.js'
import type {
  AuthDisableResponse, AuthEnableResponse, AuthHeaderResponse, AuthRoleAddRequest, AuthRoleDeleteRequest,
  AuthRoleGetRequest, AuthRoleGetResponse, AuthRoleGrantPermissionRequest, AuthRoleListResponse,
  AuthRoleRevokePermissionRequest, AuthStatusResponse, AuthUserAddRequest, AuthUserChangePasswordRequest,
  AuthUserDeleteRequest, AuthUserGetRequest, AuthUserGetResponse, AuthUserGrantRoleRequest, AuthUserListResponse,
  AuthUserRevokeRoleRequest, AuthenticateRequest, AuthenticateResponse,
} from '../etcdserver/types/auth.js'
import type { MemberListRequest, MemberListResponse } from '../etcdserver/types/cluster.js'
import type {
  CampaignRequest, CampaignResponse, LeaderRequest, LeaderResponse, LockRequest, LockResponse, ProclaimRequest,
  ProclaimResponse, ResignRequest, ResignResponse, UnlockRequest, UnlockResponse,
} from '../etcdserver/types/concurrency.js'
import type { CallCredentials } from '../etcdserver/types/credentials.js'
import type {
  CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse, PutRequest, PutResponse,
  RangeRequest, RangeResponse, TxnRequest, TxnResponse,
} from '../etcdserver/types/kv.js'
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseLeasesResponse,
  LeaseRevokeRequest, LeaseRevokeResponse, LeaseTimeToLiveRequest, LeaseTimeToLiveResponse,
} from '../etcdserver/types/lease.js'
import type {
  AlarmMember, AlarmRequest, AlarmResponse, DowngradeRequest, DowngradeResponse, HashKVRequest, HashKVResponse,
  HashResponse, MoveLeaderRequest, StatusResponse,
} from '../etcdserver/types/maintenance.js'
import type { GrpcServer, TlsServerOptions } from '../grpc/server.js'
import { silentLogger, type Logger } from '../pkg/logger.js'
import { ETCD_DEFAULTS, type EtcdOptions, type LevelDb, type ListenOptions, type ListenTlsOptions } from './options.js'
import { Watcher, WatchStream, type WatchOptions } from './watch.js'
import { LeaseKeepAlive, type LeaseKeepAliveOptions } from './lease.js'
import { gatewayUpgradeHandler, HttpListener, httpHandler } from './http.js'
import { DeferredGateway } from './deferred-gateway.js'
import type { ChannelCredentials } from '@grpc/grpc-js'
import { checkPut, checkRequest, checkSignalOptions, checkString, type Call, type Checked, type Input } from './input.js'
import type { EtcdClient } from '../client/etcd-client.js'

// ---- TLS ----
/**
 * ListenOptions.tls as the gRPC server takes it: checked as etcd checks its flags (TlsConfigError), and
 * refused connections logged as etcd logs them.
 */
async function toTlsServerOptions(t: ListenTlsOptions, logger: Logger): Promise<TlsServerOptions> {
  // Loaded only for TLS (see grpc/server.ts's tlsListener on why).
  const { serverConfig } = await import('../pkg/transport/tls-info.js')
  const config = serverConfig(t)
  if (t.logRejectedConnections === false) return config
  return {
    ...config,
    onRejected: (r) => logger.warn('rejected connection on client endpoint', {
      'remote-addr': r.remoteAddr,
      'server-name': r.serverName,
      ...(r.ipAddresses === undefined ? {} : { 'ip-addresses': r.ipAddresses, 'dns-names': r.dnsNames }),
      error: r.error,
    }),
  }
}

/**
 * The stream limit a listener enforces: etcd's --max-concurrent-streams, where 0 means what it does to
 * etcd's servers: grpc-go (plaintext) takes it as no limit, Go's net/http2 (TLS) as its default, 250.
 */
function streamLimit(max: number | undefined, secure: boolean): number | undefined {
  if (max !== 0) return max
  return secure ? 250 : undefined
}
// ---- end TLS ----

/** The address a listener's own gateway dials: the loopback address for a wildcard host. */
function dialTarget(host: string, port: number): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (bare === '0.0.0.0' || bare === '') return `127.0.0.1:${port}`
  if (bare === '::') return `[::1]:${port}`
  return bare.includes(':') ? `[${bare}]:${port}` : `${bare}:${port}`
}

/** A bound gRPC listener. */
export interface Listener {
  readonly host: string
  readonly port: number
  /** `host:port`, what etcd clients take as an endpoint. */
  readonly endpoint: string
}

/**
 * An open etcdlite: the KV API in process (same semantics and errors as the gRPC service; the EtcdClient
 * interface, which connect()'s remote client shares), `listen()` to
 * serve gRPC on the same engine, `close()` to stop everything. Closing is idempotent and also happens
 * with `await using`.
 */
export class Etcd implements EtcdClient {
  /** The server core (advanced use: header identity, the MVCC store). */
  readonly server: EtcdServer
  private readonly logger: Logger
  private readonly maxRequestBytes: number
  private readonly grpcServers: GrpcServer[] = []
  private readonly gateways: DeferredGateway[] = []
  /** How a gateway reaches each listener that serves gRPC, in the order they were opened. */
  private readonly gatewayDials: Array<{ readonly target: string; readonly creds: ChannelCredentials }> = []
  private closing: Promise<void> | undefined

  private readonly lockServer: LockServer
  private readonly electionServer: ElectionServer
  /** Client URLs were given (advertiseClientUrls): listen() does not add its own to MemberList. */
  private readonly advertised: boolean
  /** What every call of this view carries (see withToken); undefined for the Etcd openEtcd() returns. */
  private readonly creds: CallCredentials | undefined
  /** The Etcd this is a view of: listeners and close() are its. */
  private readonly parent: Etcd | undefined

  /** @internal use openEtcd() */
  constructor(server: EtcdServer, logger: Logger, maxRequestBytes: number, advertised = false, creds?: CallCredentials, parent?: Etcd) {
    this.server = server
    this.advertised = advertised
    this.creds = creds
    this.parent = parent
    this.lockServer = new LockServer(asCaller(server, creds))
    this.electionServer = new ElectionServer(asCaller(server, creds))
    this.logger = logger
    this.maxRequestBytes = maxRequestBytes
  }

  /**
   * A view of this server whose every call carries `token` (from authenticate()), exactly as a gRPC call with
   * `token` metadata: the token's user and its permissions apply, and a token that has expired or been
   * invalidated fails with INVALID_AUTH_TOKEN. The view shares the server: listen() and close() act on it.
   */
  withToken(token: string): Etcd {
    checkString('withToken', 'token', token)
    const root = this.parent ?? this
    return new Etcd(this.server, this.logger, this.maxRequestBytes, this.advertised, { token }, root)
  }

  /** Keys in [key, rangeEnd) (see RangeRequest); rejects with etcd's errors as EtcdError. */
  range(req: Input<RangeRequest>): Promise<RangeResponse> {
    return this.checked('range', req, (r) => this.server.kvService.range(r, this.creds))
  }

  /** Run a synchronous server call; its errors still arrive as rejections, like every other call's. */
  private sync<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn())
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
  }

  /**
   * Check the request of entry point `call` (input.ts: strings become UTF-8 bytes, wrong types a TypeError
   * naming the field), then make the server call; a refused request arrives as a rejection too.
   */
  private checked<C extends Call, T>(call: C, req: unknown, fn: (r: Checked[C]) => T): Promise<Awaited<T>> {
    try {
      return Promise.resolve(fn(checkRequest(call, req)))
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
  }

  /** Put a key; resolves once the write is durable. */
  put(req: Input<PutRequest>): Promise<PutResponse> {
    // The hot path: inline rather than through checked(); a request of the server's types is not copied.
    let r: PutRequest
    try {
      r = checkPut(req)
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
    return this.server.kvService.put(r, this.creds)
  }

  deleteRange(req: Input<DeleteRangeRequest>): Promise<DeleteRangeResponse> {
    return this.checked('deleteRange', req, (r) => this.server.kvService.deleteRange(r, this.creds))
  }

  txn(req: Input<TxnRequest>): Promise<TxnResponse> {
    return this.checked('txn', req, (r) => this.server.kvService.txn(r, this.creds))
  }

  compact(req: Input<CompactionRequest>): Promise<CompactionResponse> {
    return this.checked('compact', req, (r) => this.server.kvService.compact(r, this.creds))
  }

  /**
   * Open a watch stream: the gRPC Watch protocol in process (create/cancel/progress requests in, responses
   * out, many watchers per stream). Throws once closed.
   */
  watchStream(): WatchStream {
    return new WatchStream(this.server, undefined, this.creds)
  }

  /**
   * Watch a key, range or prefix: an async iterable of event responses, ended by `break`, cancel(), the
   * signal, compaction past it, or close(). Throws etcd's error for an empty range or a negative revision.
   */
  watch(opts: Input<WatchOptions>): Watcher {
    return new Watcher(this.server, checkRequest('watch', opts), this.creds)
  }

  // ---- Lease (embedded) ----

  /**
   * Grant a lease of `ttl` seconds (raised to the minimum TTL). `id` 0 or absent: the server picks one.
   * Rejects with LEASE_EXISTS or LEASE_TTL_TOO_LARGE.
   */
  leaseGrant(req: Input<LeaseGrantRequest>): Promise<LeaseGrantResponse> {
    return this.checked('leaseGrant', req, (r) => this.server.leaseService.leaseGrant(r, this.creds))
  }

  /** Revoke a lease and delete its keys (one revision). Rejects with LEASE_NOT_FOUND. */
  leaseRevoke(req: Input<LeaseRevokeRequest>): Promise<LeaseRevokeResponse> {
    return this.checked('leaseRevoke', req, (r) => this.server.leaseService.leaseRevoke(r, this.creds))
  }

  /** Renew a lease once (one LeaseKeepAlive message): TTL is the granted TTL, or 0 if the lease is gone. */
  leaseKeepAliveOnce(req: Input<LeaseKeepAliveRequest>): Promise<LeaseKeepAliveResponse> {
    return this.checked('leaseKeepAliveOnce', req, (r) => this.server.leaseService.leaseRenew(r, this.creds))
  }

  /**
   * Keep a lease alive until `break`, cancel(), the signal, or the lease going away: renews at once and
   * then every TTL/3, on the server's clock.
   */
  leaseKeepAlive(opts: LeaseKeepAliveOptions): LeaseKeepAlive {
    return new LeaseKeepAlive(this.server, checkRequest('leaseKeepAlive', opts), this.creds)
  }

  /** Seconds left on a lease (TTL -1 if it does not exist), its granted TTL and, with `keys`, its keys. */
  leaseTimeToLive(req: LeaseTimeToLiveRequest): Promise<LeaseTimeToLiveResponse> {
    return this.checked('leaseTimeToLive', req, (r) => this.server.leaseService.leaseTimeToLive(r, this.creds))
  }

  /** Every live lease. */
  leaseLeases(): Promise<LeaseLeasesResponse> {
    return this.sync(() => this.server.leaseService.leaseLeases(this.creds))
  }

  // ---- end Lease ----

  /**
   * Acquire the lock `name` (etcd's v3lock Lock): waits until every earlier holder's key is gone. The key is
   * attached to `lease` (0n or absent: a fresh 60 s lease, as etcd). Resolves with the key to unlock with;
   * `signal` withdraws a waiter. Rejects with MUTEX_SESSION_EXPIRED if the lease goes away while waiting.
   */
  lock(req: Input<LockRequest>, opts: { signal?: AbortSignal } = {}): Promise<LockResponse> {
    return this.checked('lock', req, (r) => this.lockServer.lock(r, checkSignalOptions('lock', opts)))
  }

  /** Release a lock by its key (deletes the key). */
  unlock(req: Input<UnlockRequest>): Promise<UnlockResponse> {
    return this.checked('unlock', req, (r) => this.lockServer.unlock(r))
  }

  /** Campaign for leadership of election `name` (etcd's v3election): resolves once this candidate leads. */
  campaign(req: Input<CampaignRequest>, opts: { signal?: AbortSignal } = {}): Promise<CampaignResponse> {
    return this.checked('campaign', req, (r) => this.electionServer.campaign(r, checkSignalOptions('campaign', opts)))
  }

  /** Update the leader's value; rejects with ELECTION_NOT_LEADER if `leader` no longer leads. */
  proclaim(req: Input<ProclaimRequest>): Promise<ProclaimResponse> {
    return this.checked('proclaim', req, (r) => this.electionServer.proclaim(r))
  }

  /** The current leader of election `name`; rejects with ELECTION_NO_LEADER when there is none. */
  leader(req: Input<LeaderRequest>): Promise<LeaderResponse> {
    return this.checked('leader', req, (r) => this.electionServer.leader(r))
  }

  /**
   * Every change of leader of election `name`, starting with the current one, until `signal` aborts.
   * Throws a TypeError at once for a request of the wrong types.
   */
  observe(req: Input<LeaderRequest>, opts: { signal?: AbortSignal } = {}): AsyncGenerator<LeaderResponse, void, undefined> {
    return this.electionServer.observe(checkRequest('observe', req), checkSignalOptions('observe', opts))
  }

  /** Give up leadership (deletes the leader key). */
  resign(req: Input<ResignRequest>): Promise<ResignResponse> {
    return this.checked('resign', req, (r) => this.electionServer.resign(r))
  }

  // ---- Maintenance and Cluster (embedded) ----

  /** etcd's Status: version, db size, leader (this member), raft index and term, raised alarms. */
  status(): Promise<StatusResponse> {
    return this.server.maintenance.status(this.creds)
  }

  /** CRC-32C over the whole backend (etcd's Hash). */
  hash(): Promise<HashResponse> {
    return this.server.maintenance.hash(this.creds)
  }

  /**
   * etcd's HashKV: CRC-32C over the revision log up to `revision` (0 or absent: the current one), equal to
   * real etcd's for the same history and stable across restarts. Rejects with COMPACTED or FUTURE_REV.
   */
  hashKV(req: HashKVRequest = {}): Promise<HashKVResponse> {
    return this.checked('hashKV', req, (r) => this.server.maintenance.hashKV(r, this.creds))
  }

  /** Reclaim space: compacts LevelDB (classic-level) and measures the size again. */
  defragment(): Promise<void> {
    return this.server.maintenance.defragment(this.creds)
  }

  /**
   * A consistent snapshot of the data as a byte stream: exactly the file `etcdctl snapshot save` writes,
   * etcd's bbolt database ending in its SHA-256. Start a server from it with the `restoreSnapshot` option
   * or `etcdlite --restore-snapshot`, or a real etcd after `etcdctl snapshot restore`. `break` or the
   * signal stops it; close() ends it with STOPPED.
   */
  snapshot(opts: { readonly signal?: AbortSignal } = {}): AsyncGenerator<Uint8Array> {
    // Checked here, so a wrong signal throws at the call rather than at the first chunk.
    return this.snapshotChunks(checkSignalOptions('snapshot', opts).signal)
  }

  private async *snapshotChunks(signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
    for await (const chunk of this.server.maintenance.snapshot(signal, this.creds)) yield chunk.blob
  }

  /** etcd's Alarm RPC: GET, ACTIVATE or DEACTIVATE an alarm (see AlarmRequest). */
  alarm(req: Input<AlarmRequest>): Promise<AlarmResponse> {
    return this.checked('alarm', req, (r) => this.server.maintenance.alarm(r, this.creds))
  }

  /** Every raised alarm (`etcdctl alarm list`). */
  async alarmList(): Promise<AlarmMember[]> {
    return (await this.server.maintenance.alarm({ action: 'GET' }, this.creds)).alarms
  }

  /**
   * Clear every raised alarm, as `etcdctl alarm disarm` does (a NOSPACE alarm comes back at the next write
   * if the backend is still over its quota). Resolves with the alarms cleared.
   */
  async alarmDisarm(): Promise<AlarmMember[]> {
    const m = this.server.maintenance
    const cleared: AlarmMember[] = []
    for (const a of (await m.alarm({ action: 'GET' }, this.creds)).alarms) {
      cleared.push(...(await m.alarm({ action: 'DEACTIVATE', memberId: a.memberId, alarm: a.alarm }, this.creds)).alarms)
    }
    return cleared
  }

  /** This member, as `etcdctl member list` shows it. `linearizable` is accepted as etcd 3.5 takes it. */
  memberList(req: Input<MemberListRequest> = {}): Promise<MemberListResponse> {
    return this.checked('memberList', req, (r) => this.server.cluster.memberList(r, this.creds))
  }

  /**
   * etcd 3.5's Downgrade. VALIDATE (the default) resolves with the cluster version ("3.5.0") when
   * `version` is the one allowed target (the previous minor version, "3.4" or "3.4.x") and no downgrade
   * is in progress; it rejects with WRONG_DOWNGRADE_VERSION_FORMAT, INVALID_DOWNGRADE_TARGET_VERSION or
   * DOWNGRADE_IN_PROCESS otherwise. ENABLE makes the same checks and starts the downgrade; CANCEL stops
   * it (NO_INFLIGHT_DOWNGRADE when none is enabled); both resolve with the cluster version, as etcd 3.6's
   * do. The root role once auth is on.
   */
  downgrade(req: Input<DowngradeRequest> = {}): Promise<DowngradeResponse> {
    return this.checked('downgrade', req, (r) => this.server.maintenance.downgrade(r, this.creds))
  }

  /**
   * Prepare a server that starts from a snapshot file (written by `etcdctl snapshot save` from etcdlite or a
   * real etcd, or by snapshot()): its keys, revisions, compaction state, leases, users, roles, auth and
   * alarms come back; the member gets new IDs, as after etcd's `snapshot restore`. Resolves with the options to open it with:
   * `await openEtcd(await Etcd.restoreSnapshot('snap.db', { dataDir: 'new.etcdlite' }))`.
   * On disk, `dataDir` must not exist or be empty: the data is loaded into `<dataDir>.restoring`, then
   * renamed into place. With `memory` (or a given `db`) the data is loaded into the database the returned
   * options carry. Rejects (changing nothing) if the file is damaged or not a snapshot.
   */
  static async restoreSnapshot(file: string, opts: EtcdOptions = {}): Promise<EtcdOptions> {
    checkString('restoreSnapshot', 'file', file)
    checkRequest('restoreSnapshot', opts)
    const o = { ...ETCD_DEFAULTS, ...opts }
    const { restoreSnapshot, restoreSnapshotToDir } = await import('../etcdserver/snapshot.js')
    if (opts.db === undefined && !o.memory) {
      await restoreSnapshotToDir(file, o.dataDir, async (dir) => LevelBackend.open(await levelDb(dir), { syncWrites: !o.unsafeNoFsync }))
      return opts
    }
    const db: LevelDb = opts.db ?? await memoryDb()
    const backend = await LevelBackend.open(db, { syncWrites: false })
    try {
      await restoreSnapshot(file, backend)
    } finally {
      // openEtcd opens the database again (memory-level keeps its data across close and open).
      await backend.close()
    }
    return { ...opts, db }
  }

  /** Move leadership: succeeds for this member's ID, fails with BAD_LEADER_TRANSFEREE for any other. */
  moveLeader(req: Input<MoveLeaderRequest>): Promise<void> {
    return this.checked('moveLeader', req, (r) => this.server.maintenance.moveLeader(r, this.creds))
  }

  // ---- end Maintenance and Cluster ----

  // ---- Auth (embedded): the Auth service; admin calls need a root view once auth is on ----

  /**
   * Exchange a name and password for a token; use it with withToken(). Rejects with AUTH_NOT_ENABLED while
   * auth is off, AUTH_FAILED for an unknown user or a wrong password.
   */
  authenticate(req: Input<AuthenticateRequest>): Promise<AuthenticateResponse> {
    return this.checked('authenticate', req, (r) => this.server.auth.authenticate(r, this.creds))
  }

  /** Turn auth on: needs user root with role root (AUTH_ROOT_USER_NOT_EXIST, AUTH_ROOT_ROLE_NOT_EXIST). */
  authEnable(): Promise<AuthEnableResponse> {
    return this.server.auth.authEnable(this.creds)
  }

  /** Turn auth off; every token stops working. */
  authDisable(): Promise<AuthDisableResponse> {
    return this.server.auth.authDisable(this.creds)
  }

  /** Whether auth is on, and the auth revision. */
  authStatus(): Promise<AuthStatusResponse> {
    return this.server.auth.authStatus(this.creds)
  }

  /** Add a user; `options.noPassword` adds one that can only act through a client certificate's CN. */
  userAdd(req: Input<AuthUserAddRequest>): Promise<AuthHeaderResponse> {
    return this.checked('userAdd', req, (r) => this.server.auth.userAdd(r, this.creds))
  }

  /** A user's roles (root, or the user itself). */
  userGet(req: Input<AuthUserGetRequest>): Promise<AuthUserGetResponse> {
    return this.checked('userGet', req, (r) => this.server.auth.userGet(r, this.creds))
  }

  userList(): Promise<AuthUserListResponse> {
    return this.server.auth.userList(this.creds)
  }

  userDelete(req: Input<AuthUserDeleteRequest>): Promise<AuthHeaderResponse> {
    return this.checked('userDelete', req, (r) => this.server.auth.userDelete(r, this.creds))
  }

  userChangePassword(req: Input<AuthUserChangePasswordRequest>): Promise<AuthHeaderResponse> {
    return this.checked('userChangePassword', req, (r) => this.server.auth.userChangePassword(r, this.creds))
  }

  userGrantRole(req: Input<AuthUserGrantRoleRequest>): Promise<AuthHeaderResponse> {
    return this.checked('userGrantRole', req, (r) => this.server.auth.userGrantRole(r, this.creds))
  }

  userRevokeRole(req: Input<AuthUserRevokeRoleRequest>): Promise<AuthHeaderResponse> {
    return this.checked('userRevokeRole', req, (r) => this.server.auth.userRevokeRole(r, this.creds))
  }

  roleAdd(req: Input<AuthRoleAddRequest>): Promise<AuthHeaderResponse> {
    return this.checked('roleAdd', req, (r) => this.server.auth.roleAdd(r, this.creds))
  }

  /** A role's permissions (root, or a holder of the role). */
  roleGet(req: Input<AuthRoleGetRequest>): Promise<AuthRoleGetResponse> {
    return this.checked('roleGet', req, (r) => this.server.auth.roleGet(r, this.creds))
  }

  roleList(): Promise<AuthRoleListResponse> {
    return this.server.auth.roleList(this.creds)
  }

  roleDelete(req: Input<AuthRoleDeleteRequest>): Promise<AuthHeaderResponse> {
    return this.checked('roleDelete', req, (r) => this.server.auth.roleDelete(r, this.creds))
  }

  /** Grant READ, WRITE or READWRITE over a key (rangeEnd empty), a range, or every key from `key` (rangeEnd "\0"). */
  roleGrantPermission(req: Input<AuthRoleGrantPermissionRequest>): Promise<AuthHeaderResponse> {
    return this.checked('roleGrantPermission', req, (r) => this.server.auth.roleGrantPermission(r, this.creds))
  }

  roleRevokePermission(req: Input<AuthRoleRevokePermissionRequest>): Promise<AuthHeaderResponse> {
    return this.checked('roleRevokePermission', req, (r) => this.server.auth.roleRevokePermission(r, this.creds))
  }
  // ---- end Auth ----

  // ---- HTTP: metrics and health listeners ----
  /** close() of every listenMetrics() listener; close() awaits them. */
  private readonly metricsClosers: (() => Promise<void>)[] = []

  /**
   * Serve /metrics, /health, /livez and /readyz over plain HTTP on host:port (etcd's --listen-metrics-urls;
   * port 0 picks a free one). Default 127.0.0.1:2381, the port etcd deployments customarily use for metrics. The client port
   * of listen() serves the same endpoints (and /version) without this. Closed by close().
   */
  async listenMetrics(opts: ListenOptions = {}): Promise<Listener> {
    checkRequest('listenMetrics', opts)
    if (this.parent !== undefined) return this.parent.listenMetrics(opts)
    if (this.closing !== undefined) throw new Error('etcdlite: listenMetrics() after close()')
    const l = await HttpListener.listen(httpHandler(this.server, 'metrics'), opts.host ?? '127.0.0.1', opts.port ?? 2381)
    if (this.closing !== undefined) {
      await l.close()
      throw new Error('etcdlite: listenMetrics() after close()')
    }
    this.metricsClosers.push(() => l.close())
    return { host: l.host, port: l.port, endpoint: l.host.includes(':') ? `[${l.host}]:${l.port}` : `${l.host}:${l.port}` }
  }
  // ---- end HTTP ----

  /** The JSON gateway of one listener, its module loaded by its first request. */
  private newGateway(): DeferredGateway {
    const metrics = serverMetrics(this.server)
    return new DeferredGateway({
      maxRequestBytes: this.maxRequestBytes,
      reports34: () => majorMinor(metrics.etcdVersion()) === '3.4',
      report: (err) => this.logger.error('cannot load the JSON gateway', { error: err }),
    })
  }

  /** Serve the etcd v3 gRPC API on host:port (port 0 picks a free port). */
  async listen(opts: ListenOptions = {}): Promise<Listener> {
    checkRequest('listen', opts)
    if (this.parent !== undefined) return this.parent.listen(opts)
    if (this.closing !== undefined) throw new Error('etcdlite: listen() after close()')
    const limit = streamLimit(opts.maxConcurrentStreams, opts.tls !== undefined)
    const maxStreams = limit === undefined ? {} : { maxConcurrentStreams: limit }
    const tls = opts.tls === undefined ? undefined : await toTlsServerOptions(opts.tls, this.logger)
    // The gRPC server (and grpc-js) loads with the first listener: an in-process store needs neither.
    const { GrpcServer } = await import('../grpc/server.js')
    if (this.closing !== undefined) throw new Error('etcdlite: listen() after close()')
    // The gateway loads by its first request. A gRPC-only listener serves none; an HTTP-only one dials a
    // listener that serves gRPC, as etcd's gateway does with --listen-client-http-urls.
    const traffic = opts.traffic ?? 'grpc+http'
    const gatewayDial = traffic === 'http' ? this.gatewayDials[0] : undefined
    if (traffic === 'http' && opts.grpcGateway !== false && gatewayDial === undefined) {
      throw new TypeError("etcdlite: listen({ traffic: 'http' }) serves the JSON gateway, which needs a listener serving gRPC opened first (or grpcGateway: false)")
    }
    const gateway = opts.grpcGateway === false || traffic === 'grpc' ? undefined : this.newGateway()
    const grpc = new GrpcServer(this.server, {
      maxRequestBytes: this.maxRequestBytes,
      report: (err) => this.logger.error('unexpected error serving a request', { error: err }),
      // The client port also answers /health, /metrics and /version over HTTP/1.1, as etcd's does, and
      // the JSON gateway under /v3/.
      http: httpHandler(this.server, 'client', { pprof: opts.pprof === true, ...(gateway === undefined ? {} : { gateway: gateway.serve }) }),
      // And WebSocket connections to the gateway's paths, as etcd's wsproxy serves them.
      ...(gateway === undefined ? {} : { upgrade: gatewayUpgradeHandler(this.server, gateway.upgrade) }),
      // ---- TLS ----
      ...(tls === undefined ? {} : { tls, alsoInsecure: opts.alsoInsecure === true }),
      ...(opts.keepAlive === undefined ? {} : { keepAlive: opts.keepAlive }),
      ...(opts.keepAliveMinTimeMs === undefined ? {} : { keepAliveMinTimeMs: opts.keepAliveMinTimeMs }),
      ...(opts.traffic === undefined ? {} : { traffic: opts.traffic }),
      ...maxStreams,
      // ---- end TLS ----
    })
    this.grpcServers.push(grpc)
    const { host, port } = await grpc.bind(opts.host ?? '127.0.0.1', opts.port ?? 2379)
    if (traffic !== 'http') {
      // etcd's gateway dials the listener it serves on: plaintext where the port takes it, else TLS that
      // trusts the server and presents the server's own certificate.
      const { credentials } = await import('@grpc/grpc-js')
      const creds = tls === undefined || opts.alsoInsecure === true
        ? credentials.createInsecure()
        : credentials.createSsl(null, Buffer.from(tls.key), Buffer.from(tls.cert), { rejectUnauthorized: false, checkServerIdentity: () => undefined })
      this.gatewayDials.push({ target: dialTarget(host, port), creds })
    }
    if (gateway !== undefined) {
      const dial = gatewayDial ?? this.gatewayDials[this.gatewayDials.length - 1]
      if (dial !== undefined) gateway.connect(dial.target, dial.creds)
      this.gateways.push(gateway)
    }
    const endpoint = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
    // An HTTP-only listener is no gRPC endpoint to advertise.
    if (!this.advertised && opts.traffic !== 'http') {
      const m = this.server.member
      // ---- TLS ---- (a TLS listener is advertised as https://)
      const schemes = opts.tls === undefined ? ['http'] : opts.alsoInsecure === true ? ['http', 'https'] : ['https']
      this.server.member = { ...m, clientUrls: [...m.clientUrls, ...schemes.map((s) => `${s}://${endpoint}`)] }
      // ---- end TLS ----
    }
    return { host, port, endpoint }
  }

  /** Stop serving (calls in flight finish), then close the store and database. */
  close(): Promise<void> {
    if (this.parent !== undefined) return this.parent.close()
    this.closing ??= (async () => {
      const stopped = Promise.all(this.grpcServers.map((s) => s.shutdown()))
      // The gateways' own connections to the listeners close with them.
      for (const g of this.gateways) g.close()
      await stopped
      await Promise.all(this.metricsClosers.map((c) => c()))
      await this.server.close()
    })()
    return this.closing
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close()
  }
}

// Each database's module loads when one is opened: an in-memory store needs no LevelDB, nor a store on
// disk memory-level.
const ENCODINGS = { keyEncoding: 'view', valueEncoding: 'view' } as const

/** A LevelDB database (classic-level, through level) in `dir`, not yet opened. */
async function levelDb(dir: string): Promise<LevelDb> {
  const { Level } = await import('level')
  return new Level<Uint8Array, Uint8Array>(dir, ENCODINGS)
}

/** An empty memory-level database. */
async function memoryDb(): Promise<LevelDb> {
  const { MemoryLevel } = await import('memory-level')
  return new MemoryLevel<Uint8Array, Uint8Array>(ENCODINGS)
}

/** Open an etcdlite store: on disk (default), in memory, or over a given abstract-level database. */
export async function openEtcd(opts: EtcdOptions = {}): Promise<Etcd> {
  checkRequest('openEtcd', opts)
  const o = { ...ETCD_DEFAULTS, ...opts }
  const onDisk = opts.db === undefined && !o.memory
  // Before LevelDB touches the directory: it would create files beside a real etcd's, or rotate the LOG
  // of another process's open database before finding its LOCK taken.
  if (onDisk) await checkDataDir(o.dataDir)
  const db: LevelDb = opts.db ?? (o.memory ? await memoryDb() : await levelDb(o.dataDir))
  let backend: LevelBackend
  try {
    backend = await LevelBackend.open(db, { syncWrites: !o.memory && !o.unsafeNoFsync })
  } catch (err) {
    throw (onDisk ? await lockedError(o.dataDir, err) : undefined) ?? err
  }
  try {
    const logger = opts.logger ?? silentLogger
    const server = await EtcdServer.open(backend, {
      maxRequestBytes: o.maxRequestBytes,
      maxTxnOps: o.maxTxnOps,
      watchProgressNotifyIntervalMs: o.watchProgressNotifyIntervalMs,
      indexCheckpointEntries: o.indexCheckpointEntries,
      onBackgroundError: (err) => logger.error('background task failed', { error: err }),
      ...(opts.clock === undefined ? {} : { clock: opts.clock }),
      minLeaseTtl: o.minLeaseTtl,
      leaseRenewOnStartMs: o.leaseRenewOnStartMs,
      maintenance: { quotaBackendBytes: o.quotaBackendBytes, etcdVersion: o.etcdVersion, logger },
      member: { name: o.name, peerUrls: o.peerUrls, clientUrls: o.advertiseClientUrls ?? [] },
      ...(opts.memberId !== undefined && opts.clusterId !== undefined ? { newIdentity: { memberId: opts.memberId, clusterId: opts.clusterId } } : {}),
      autoCompaction: parseRetention(o.autoCompactionMode, o.autoCompactionRetention),
      metrics: o.metrics,
      auth: { tokenTtlMs: o.authTokenTtl * 1000, bcryptCost: o.bcryptCost, ...(o.authToken === 'simple' ? {} : { jwt: o.authToken }) },
      enableV2: o.enableV2,
      accessController: new AccessController(o.cors, o.hostWhitelist),
    })
    const r = server.restored
    // etcd's mvcc logs this line (with current-rev) as it opens its store; the other fields are etcdlite's.
    logger.info('kvstore restored', { 'current-rev': r.currentRev, 'compact-rev': r.compactRev, 'index-from': r.indexFrom, 'log-entries-read': r.logEntriesRead }, 'mvcc/kvstore.go:423')
    return new Etcd(server, logger, o.maxRequestBytes, opts.advertiseClientUrls !== undefined)
  } catch (err) {
    await backend.close().catch(() => undefined)
    throw err
  }
}
