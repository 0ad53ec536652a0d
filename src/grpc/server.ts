// createGrpcServer(): registers every etcd v3 service in one place, binds, and shuts down gracefully.
import * as grpc from '@grpc/grpc-js'
import { GRPC_OVERHEAD_BYTES, type EtcdServer } from '../etcdserver/etcd-server.js'
import { loadEtcdProto } from './proto.js'
import { kvHandlers, kvServiceDefinition } from './kv.js'
import { WatchCalls, watchHandlers, watchServiceDefinition } from './watch.js'
import { unimplementedHandlers } from './unimplemented.js'
import { leaseHandlers } from './lease.js'
import { clusterHandlers } from './cluster.js'
import { maintenanceHandlers } from './maintenance.js'
import { lockHandlers } from './lock.js'
import { electionHandlers } from './election.js'
import type { ErrorReporter } from './status.js'

export { GRPC_OVERHEAD_BYTES }

export interface GrpcServerOptions {
  readonly maxRequestBytes: number
  readonly report: ErrorReporter
}

export interface GrpcEndpoint {
  readonly host: string
  readonly port: number
}

export class GrpcServer {
  private readonly server: grpc.Server
  private readonly watchCalls = new WatchCalls()
  private stopping: Promise<void> | undefined

  constructor(etcd: EtcdServer, opts: GrpcServerOptions) {
    this.server = new grpc.Server({
      'grpc.max_receive_message_length': opts.maxRequestBytes + GRPC_OVERHEAD_BYTES,
      'grpc.max_send_message_length': 2 ** 31 - 1,
      'grpc.max_concurrent_streams': 2 ** 31 - 1,
      // channelz bookkeeping costs ~8% of a put's CPU in grpc-js and nothing here reads it.
      'grpc.enable_channelz': 0,
    })
    const proto = loadEtcdProto()
    this.server.addService(kvServiceDefinition(proto.etcdserverpb.KV.service), kvHandlers(etcd, opts.report))
    this.server.addService(watchServiceDefinition(proto.etcdserverpb.Watch.service), watchHandlers(etcd, opts.report, this.watchCalls))
    const lease = proto.etcdserverpb.Lease.service
    this.server.addService(lease, leaseHandlers(lease, etcd, opts.report, this.watchCalls))
    const cluster = proto.etcdserverpb.Cluster.service
    this.server.addService(cluster, clusterHandlers(cluster, etcd, opts.report))
    const maintenance = proto.etcdserverpb.Maintenance.service
    this.server.addService(maintenance, maintenanceHandlers(maintenance, etcd, opts.report))
    const lock = proto.v3lockpb.Lock.service
    this.server.addService(lock, lockHandlers(lock, etcd, opts.report))
    const election = proto.v3electionpb.Election.service
    this.server.addService(election, electionHandlers(election, etcd, opts.report))
    // Auth lands with issue 5.
    const auth = proto.etcdserverpb.Auth.service
    this.server.addService(auth, unimplementedHandlers(auth))
  }

  /** Bind host:port (port 0 picks a free port) and return the bound endpoint. */
  bind(host: string, port: number): Promise<GrpcEndpoint> {
    const target = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`
    return new Promise((resolve, reject) => {
      this.server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err, bound) => {
        if (err !== null) reject(err)
        else resolve({ host, port: bound })
      })
    })
  }

  /** Stop accepting calls, let calls in flight finish (up to graceMs), then force the rest closed. */
  shutdown(graceMs = 5000): Promise<void> {
    // Watch streams never end on their own: end them, so the grace period is for calls that do.
    this.watchCalls.endAll()
    this.stopping ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown()
        resolve()
      }, graceMs)
      timer.unref()
      this.server.tryShutdown(() => {
        clearTimeout(timer)
        resolve()
      })
    })
    return this.stopping
  }
}
