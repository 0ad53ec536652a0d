// The composition root and in-process API: one engine, used directly or served over gRPC.
import { Level } from 'level'
import { MemoryLevel } from 'memory-level'
import { LevelBackend } from '../backend/level-backend.js'
import { EtcdServer } from '../etcdserver/etcd-server.js'
import type {
  CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse, PutRequest, PutResponse,
  RangeRequest, RangeResponse, TxnRequest, TxnResponse,
} from '../etcdserver/types.js'
import { GrpcServer } from '../grpc/server.js'
import { silentLogger, type Logger } from '../pkg/logger.js'
import { ETCD_DEFAULTS, type EtcdOptions, type LevelDb, type ListenOptions } from './options.js'
import { Watcher, WatchStream, type WatchOptions } from './watch.js'

/** A bound gRPC listener. */
export interface Listener {
  readonly host: string
  readonly port: number
  /** `host:port`, what etcd clients take as an endpoint. */
  readonly endpoint: string
}

/**
 * An open etcdlite: the KV API in process (same semantics and errors as the gRPC service), `listen()` to
 * serve gRPC on the same engine, `close()` to stop everything. Closing is idempotent and also happens
 * with `await using`.
 */
export class Etcd implements AsyncDisposable {
  /** The server core (advanced use: header identity, the MVCC store). */
  readonly server: EtcdServer
  private readonly logger: Logger
  private readonly maxRequestBytes: number
  private readonly grpcServers: GrpcServer[] = []
  private closing: Promise<void> | undefined

  /** @internal use openEtcd() */
  constructor(server: EtcdServer, logger: Logger, maxRequestBytes: number) {
    this.server = server
    this.logger = logger
    this.maxRequestBytes = maxRequestBytes
  }

  /** Keys in [key, rangeEnd) (see RangeRequest); rejects with etcd's errors as EtcdError. */
  range(req: RangeRequest): Promise<RangeResponse> {
    // The read itself is synchronous; errors still arrive as rejections, like every other call.
    try {
      return Promise.resolve(this.server.range(req))
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
  }

  /** Put a key; resolves once the write is durable. */
  put(req: PutRequest): Promise<PutResponse> {
    return this.server.put(req)
  }

  deleteRange(req: DeleteRangeRequest): Promise<DeleteRangeResponse> {
    return this.server.deleteRange(req)
  }

  txn(req: TxnRequest): Promise<TxnResponse> {
    return this.server.txn(req)
  }

  compact(req: CompactionRequest): Promise<CompactionResponse> {
    return this.server.compact(req)
  }

  /**
   * Open a watch stream: the gRPC Watch protocol in process (create/cancel/progress requests in, responses
   * out, many watchers per stream). Throws once closed.
   */
  watchStream(): WatchStream {
    return new WatchStream(this.server)
  }

  /**
   * Watch a key, range or prefix: an async iterable of event responses, ended by `break`, cancel(), the
   * signal, compaction past it, or close(). Throws etcd's error for an empty range or a negative revision.
   */
  watch(opts: WatchOptions): Watcher {
    return new Watcher(this.server, opts)
  }

  // ---- Lease (embedded) ----
  // ---- end Lease ----

  // ---- Maintenance and Cluster (embedded) ----
  // ---- end Maintenance and Cluster ----

  // ---- HTTP: metrics and health listeners ----
  // ---- end HTTP ----

  /** Serve the etcd v3 gRPC API on host:port (port 0 picks a free port). */
  async listen(opts: ListenOptions = {}): Promise<Listener> {
    if (this.closing !== undefined) throw new Error('etcdlite: listen() after close()')
    const grpc = new GrpcServer(this.server, {
      maxRequestBytes: this.maxRequestBytes,
      report: (err) => this.logger.error('unexpected error serving a request', { error: err }),
    })
    this.grpcServers.push(grpc)
    const { host, port } = await grpc.bind(opts.host ?? '127.0.0.1', opts.port ?? 2379)
    return { host, port, endpoint: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}` }
  }

  /** Stop serving (calls in flight finish), then close the store and database. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all(this.grpcServers.map((s) => s.shutdown()))
      await this.server.close()
    })()
    return this.closing
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close()
  }
}

/** Open an etcdlite store: on disk (default), in memory, or over a given abstract-level database. */
export async function openEtcd(opts: EtcdOptions = {}): Promise<Etcd> {
  const o = { ...ETCD_DEFAULTS, ...opts }
  const db: LevelDb =
    opts.db ??
    (o.memory
      ? new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
      : new Level<Uint8Array, Uint8Array>(o.dataDir, { keyEncoding: 'view', valueEncoding: 'view' }))
  const backend = await LevelBackend.open(db, { syncWrites: !o.memory && !o.unsafeNoFsync })
  try {
    const logger = opts.logger ?? silentLogger
    const server = await EtcdServer.open(backend, {
      maxRequestBytes: o.maxRequestBytes,
      maxTxnOps: o.maxTxnOps,
      watchProgressNotifyIntervalMs: o.watchProgressNotifyIntervalMs,
      onBackgroundError: (err) => logger.error('background task failed', { error: err }),
    })
    return new Etcd(server, logger, o.maxRequestBytes)
  } catch (err) {
    await backend.close().catch(() => undefined)
    throw err
  }
}
