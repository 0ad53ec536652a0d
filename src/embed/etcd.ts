// The embedded etcdlite: openEtcd() and the Etcd it returns, one engine used in process (the EtcdClient
// interface, which connect()'s remote client shares) and served over gRPC by listen().
//
// How Etcd is composed: each etcd service's methods are one class in a file of its own (etcd-kv.ts,
// etcd-watch.ts, etcd-lease.ts, etcd-concurrency.ts for lock and election, etcd-maintenance.ts with the
// cluster's MemberList, etcd-auth.ts), each extending the one before, down to EtcdCore (etcd-core.ts: the
// server, the credentials a view's calls carry, and checked()/sync(), through which every failure arrives
// as a rejection). Etcd, last in the chain, adds what is no service: views (withToken), and listen(),
// listenMetrics() and close(), which check their options here and are carried out by Listeners
// (listeners.ts), one per server, shared by its views. The chain takes EtcdClient's order, and the order
// means nothing: each class uses only EtcdCore's members.
// Why a chain: every public method is written once, where it checks its input and calls the server, so no
// call passes through a second method that only hands it on; the core's members stay protected, out of the
// public type; and the compiler checks all of it, with neither the `any[]` constructor TypeScript's mixins
// require nor the class-and-interface merging that copying methods onto one prototype would take.
// Per-service objects (etcd.kv.range()) would change the public API, or need a forwarding method per call.
import type { EtcdClient } from '../client/etcd-client.js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { CallCredentials } from '../etcdserver/types/credentials.js'
import { EtcdAuth } from './etcd-auth.js'
import { checkRequest, checkString } from './input.js'
import type { Listener, Listeners } from './listeners.js'
import { openServer } from './open.js'
import type { EtcdOptions, ListenOptions } from './options.js'

/**
 * An open etcdlite: the KV API in process (same semantics and errors as the gRPC service; the EtcdClient
 * interface, which connect()'s remote client shares), `listen()` to
 * serve gRPC on the same engine, `close()` to stop everything. Closing is idempotent and also happens
 * with `await using`.
 */
export class Etcd extends EtcdAuth implements EtcdClient {
  /** What serves this server and closes it; shared by every view. */
  private readonly listeners: Listeners

  /** @internal use openEtcd() */
  constructor(server: EtcdServer, listeners: Listeners, creds?: CallCredentials) {
    super(server, creds)
    this.listeners = listeners
  }

  /**
   * A view of this server whose every call carries `token` (from authenticate()), exactly as a gRPC call with
   * `token` metadata: the token's user and its permissions apply, and a token that has expired or been
   * invalidated fails with INVALID_AUTH_TOKEN. The view shares the server: listen() and close() act on it.
   */
  withToken(token: string): Etcd {
    checkString('withToken', 'token', token)
    return new Etcd(this.server, this.listeners, { token })
  }

  /** Serve the etcd v3 gRPC API on host:port (port 0 picks a free port). */
  async listen(opts: ListenOptions = {}): Promise<Listener> {
    checkRequest('listen', opts)
    return this.listeners.listen(opts)
  }

  /**
   * Serve /metrics, /health, /livez and /readyz over plain HTTP on host:port (etcd's --listen-metrics-urls;
   * port 0 picks a free one). Default 127.0.0.1:2381, the port etcd deployments customarily use for metrics. The client port
   * of listen() serves the same endpoints (and /version) without this. Closed by close().
   */
  async listenMetrics(opts: ListenOptions = {}): Promise<Listener> {
    checkRequest('listenMetrics', opts)
    return this.listeners.listenMetrics(opts)
  }

  /** Stop serving (calls in flight finish), then close the store and database. */
  close(): Promise<void> {
    return this.listeners.close()
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close()
  }
}

/** Open an etcdlite store: on disk (default), in memory, or over a given abstract-level database. */
export async function openEtcd(opts: EtcdOptions = {}): Promise<Etcd> {
  const { server, listeners } = await openServer(opts)
  return new Etcd(server, listeners)
}
