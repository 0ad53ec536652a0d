// The Cluster service. (Skeleton: every method answers UNIMPLEMENTED until it is written.)
import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { ErrorReporter } from './status.js'
import { unimplementedHandlers } from './unimplemented.js'

export function clusterHandlers(def: ServiceDefinition, server: EtcdServer, report: ErrorReporter): UntypedServiceImplementation {
  void server
  void report
  return unimplementedHandlers(def)
}
