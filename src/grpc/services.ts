// The grpc-js server of the client port and the services on it: every etcd v3 service registered in one
// place, plus the standard health service and reflection, each unmarshalled as etcd does and instrumented.
import * as grpc from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import { authHandlers } from './auth.js'
import { clusterHandlers } from './cluster.js'
import { electionHandlers } from './election.js'
import { HealthService } from './health.js'
import { kvHandlers, kvServiceDefinition } from './kv.js'
import { leaseHandlers, leaseServiceDefinition } from './lease.js'
import { lockHandlers } from './lock.js'
import { maintenanceHandlers } from './maintenance.js'
import type { GrpcMetrics } from './metrics.js'
import { loadEtcdProto } from './proto.js'
import { addReflection } from './reflection.js'
import type { ErrorReporter } from './status.js'
import { withGoUnmarshal } from './unmarshal.js'
import { watchHandlers, watchServiceDefinition, type WatchCalls } from './watch.js'

/** A grpc.Server that unmarshals as etcd (grpc/unmarshal.ts) and instruments (grpc/metrics.ts) every service added to it. */
export class InstrumentedServer extends grpc.Server {
  private readonly metrics: GrpcMetrics

  constructor(metrics: GrpcMetrics, options: grpc.ServerOptions) {
    super(options)
    this.metrics = metrics
  }

  override addService(service: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void {
    const unmarshalled = withGoUnmarshal(service, implementation)
    const { def, impl } = this.metrics.instrument(unmarshalled.def, unmarshalled.impl)
    super.addService(def, impl)
  }
}

export interface EtcdServicesOptions {
  readonly report: ErrorReporter
  /** Whether a verified client certificate names the caller (--client-cert-auth). */
  readonly clientCertAuth: boolean
}

/**
 * Register every etcd v3 service on `server` (the KV, Watch and Lease services with their hand-written
 * codecs), then health and reflection; returns the health service, which shutdown() must stop.
 */
export function addEtcdServices(server: grpc.Server, etcd: EtcdServer, opts: EtcdServicesOptions, watchCalls: WatchCalls): HealthService {
  const proto = loadEtcdProto()
  server.addService(
    kvServiceDefinition(proto.etcdserverpb.KV.service, { maxTxnOps: etcd.maxTxnOps }),
    kvHandlers(etcd, opts.report, { clientCertAuth: opts.clientCertAuth }),
  )
  server.addService(watchServiceDefinition(proto.etcdserverpb.Watch.service), watchHandlers(etcd, opts.report, watchCalls))
  const lease = leaseServiceDefinition(proto.etcdserverpb.Lease.service)
  server.addService(lease, leaseHandlers(lease, etcd, opts.report, watchCalls))
  const cluster = proto.etcdserverpb.Cluster.service
  server.addService(cluster, clusterHandlers(cluster, etcd, opts.report))
  const maintenance = proto.etcdserverpb.Maintenance.service
  server.addService(maintenance, maintenanceHandlers(maintenance, etcd, opts.report))
  const lock = proto.v3lockpb.Lock.service
  server.addService(lock, lockHandlers(lock, etcd, opts.report, watchCalls))
  const election = proto.v3electionpb.Election.service
  server.addService(election, electionHandlers(election, etcd, opts.report, watchCalls))
  const auth = proto.etcdserverpb.Auth.service
  server.addService(auth, authHandlers(auth, etcd, opts.report))

  // etcd registers the standard health service with "" SERVING (v3rpc/grpc.go); grpcurl needs reflection.
  const health = new HealthService(() => etcd.closed)
  server.addService(proto.grpc.health.v1.Health.service, health.handlers())
  addReflection(server)
  return health
}
