// The gateway's routes: the google.api.http options of etcd 3.5's rpc.proto, v3lock.proto and
// v3election.proto (every one a POST with body "*"), with the aliases etcd keeps for old clients
// (/v3/kv/lease/revoke, /v3/kv/lease/timetolive, /v3/kv/lease/leases). grpc-gateway matches a path
// exactly, so a trailing slash or an extra segment finds no route.
import type protobuf from 'protobufjs'
import { gatewayRoot } from './proto-root.js'

/** How the call streams: unary, server stream (Snapshot, Observe), or both ways (Watch, LeaseKeepAlive). */
export type RouteKind = 'unary' | 'server-stream' | 'bidi'

export interface Route {
  /** The gRPC method path, e.g. /etcdserverpb.KV/Range. */
  readonly method: string
  readonly kind: RouteKind
  readonly requestType: protobuf.Type
  readonly responseType: protobuf.Type
}

/** HTTP path → service and method. */
const TABLE: ReadonlyArray<readonly [string, string, string]> = [
  ['/v3/kv/range', 'etcdserverpb.KV', 'Range'],
  ['/v3/kv/put', 'etcdserverpb.KV', 'Put'],
  ['/v3/kv/deleterange', 'etcdserverpb.KV', 'DeleteRange'],
  ['/v3/kv/txn', 'etcdserverpb.KV', 'Txn'],
  ['/v3/kv/compaction', 'etcdserverpb.KV', 'Compact'],
  ['/v3/watch', 'etcdserverpb.Watch', 'Watch'],
  ['/v3/lease/grant', 'etcdserverpb.Lease', 'LeaseGrant'],
  ['/v3/lease/revoke', 'etcdserverpb.Lease', 'LeaseRevoke'],
  ['/v3/kv/lease/revoke', 'etcdserverpb.Lease', 'LeaseRevoke'],
  ['/v3/lease/keepalive', 'etcdserverpb.Lease', 'LeaseKeepAlive'],
  ['/v3/lease/timetolive', 'etcdserverpb.Lease', 'LeaseTimeToLive'],
  ['/v3/kv/lease/timetolive', 'etcdserverpb.Lease', 'LeaseTimeToLive'],
  ['/v3/lease/leases', 'etcdserverpb.Lease', 'LeaseLeases'],
  ['/v3/kv/lease/leases', 'etcdserverpb.Lease', 'LeaseLeases'],
  ['/v3/cluster/member/add', 'etcdserverpb.Cluster', 'MemberAdd'],
  ['/v3/cluster/member/remove', 'etcdserverpb.Cluster', 'MemberRemove'],
  ['/v3/cluster/member/update', 'etcdserverpb.Cluster', 'MemberUpdate'],
  ['/v3/cluster/member/list', 'etcdserverpb.Cluster', 'MemberList'],
  ['/v3/cluster/member/promote', 'etcdserverpb.Cluster', 'MemberPromote'],
  ['/v3/maintenance/alarm', 'etcdserverpb.Maintenance', 'Alarm'],
  ['/v3/maintenance/status', 'etcdserverpb.Maintenance', 'Status'],
  ['/v3/maintenance/defragment', 'etcdserverpb.Maintenance', 'Defragment'],
  ['/v3/maintenance/hash', 'etcdserverpb.Maintenance', 'Hash'],
  ['/v3/maintenance/hashkv', 'etcdserverpb.Maintenance', 'HashKV'],
  ['/v3/maintenance/snapshot', 'etcdserverpb.Maintenance', 'Snapshot'],
  ['/v3/maintenance/transfer-leadership', 'etcdserverpb.Maintenance', 'MoveLeader'],
  ['/v3/maintenance/downgrade', 'etcdserverpb.Maintenance', 'Downgrade'],
  ['/v3/auth/enable', 'etcdserverpb.Auth', 'AuthEnable'],
  ['/v3/auth/disable', 'etcdserverpb.Auth', 'AuthDisable'],
  ['/v3/auth/status', 'etcdserverpb.Auth', 'AuthStatus'],
  ['/v3/auth/authenticate', 'etcdserverpb.Auth', 'Authenticate'],
  ['/v3/auth/user/add', 'etcdserverpb.Auth', 'UserAdd'],
  ['/v3/auth/user/get', 'etcdserverpb.Auth', 'UserGet'],
  ['/v3/auth/user/list', 'etcdserverpb.Auth', 'UserList'],
  ['/v3/auth/user/delete', 'etcdserverpb.Auth', 'UserDelete'],
  ['/v3/auth/user/changepw', 'etcdserverpb.Auth', 'UserChangePassword'],
  ['/v3/auth/user/grant', 'etcdserverpb.Auth', 'UserGrantRole'],
  ['/v3/auth/user/revoke', 'etcdserverpb.Auth', 'UserRevokeRole'],
  ['/v3/auth/role/add', 'etcdserverpb.Auth', 'RoleAdd'],
  ['/v3/auth/role/get', 'etcdserverpb.Auth', 'RoleGet'],
  ['/v3/auth/role/list', 'etcdserverpb.Auth', 'RoleList'],
  ['/v3/auth/role/delete', 'etcdserverpb.Auth', 'RoleDelete'],
  ['/v3/auth/role/grant', 'etcdserverpb.Auth', 'RoleGrantPermission'],
  ['/v3/auth/role/revoke', 'etcdserverpb.Auth', 'RoleRevokePermission'],
  ['/v3/lock/lock', 'v3lockpb.Lock', 'Lock'],
  ['/v3/lock/unlock', 'v3lockpb.Lock', 'Unlock'],
  ['/v3/election/campaign', 'v3electionpb.Election', 'Campaign'],
  ['/v3/election/proclaim', 'v3electionpb.Election', 'Proclaim'],
  ['/v3/election/leader', 'v3electionpb.Election', 'Leader'],
  ['/v3/election/observe', 'v3electionpb.Election', 'Observe'],
  ['/v3/election/resign', 'v3electionpb.Election', 'Resign'],
]

let cached: ReadonlyMap<string, Route> | undefined

/** The routes by HTTP path, resolved against the served protos (once). */
export function gatewayRoutes(): ReadonlyMap<string, Route> {
  if (cached === undefined) {
    const root = gatewayRoot()
    const routes = new Map<string, Route>()
    for (const [path, service, name] of TABLE) {
      const method = root.lookupService(service).methods[name]
      if (method === undefined) throw new Error(`gateway: ${service} has no method ${name}`)
      method.resolve()
      const requestType = method.resolvedRequestType
      const responseType = method.resolvedResponseType
      if (requestType === null || responseType === null) throw new Error(`gateway: ${service}.${name} has unresolved types`)
      const kind: RouteKind = method.requestStream === true ? 'bidi' : method.responseStream === true ? 'server-stream' : 'unary'
      routes.set(path, { method: `/${service}/${name}`, kind, requestType, responseType })
    }
    cached = routes
  }
  return cached
}
