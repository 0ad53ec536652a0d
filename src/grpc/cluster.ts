// The Cluster service (etcd v3rpc/member.go) of a one-member server: MemberList shows this member;
// MemberAdd/Remove/Update/Promote fail as etcdserver/cluster.ts explains.
import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { ClusterHandlers } from './generated/etcdserverpb/Cluster.js'
import {
  toDomainMemberList, toDomainMemberAdd, toDomainMemberPromote, toDomainMemberRemove, toDomainMemberUpdate, toPbMemberListResponse,
} from './convert-cluster.js'
import type { ErrorReporter } from './status.js'
import { reply } from './unary.js'
import { credentialsOf } from './interceptor.js'

export function clusterHandlers(def: ServiceDefinition, server: EtcdServer, report: ErrorReporter): UntypedServiceImplementation {
  void def
  const cluster = server.cluster
  const handlers: ClusterHandlers = {
    MemberList(call, cb) {
      reply(cb, () => toPbMemberListResponse(cluster.memberList(toDomainMemberList(call.request), credentialsOf(call))), report)
    },
    MemberAdd(call, cb) {
      reply(cb, () => cluster.memberAdd(toDomainMemberAdd(call.request), credentialsOf(call)), report)
    },
    MemberRemove(call, cb) {
      reply(cb, () => cluster.memberRemove(toDomainMemberRemove(call.request), credentialsOf(call)), report)
    },
    MemberUpdate(call, cb) {
      reply(cb, () => cluster.memberUpdate(toDomainMemberUpdate(call.request), credentialsOf(call)), report)
    },
    MemberPromote(call, cb) {
      reply(cb, () => cluster.memberPromote(toDomainMemberPromote(call.request), credentialsOf(call)), report)
    },
  }
  return handlers
}
