// An EtcdTestClient over raw @grpc/grpc-js clients (our protos), used by the grpc adapter (etcdlite) and
// the reference adapter (real etcd) alike: same bytes on the wire for both.
import * as grpc from '@grpc/grpc-js'
import type { ServiceError } from '@grpc/grpc-js'
import type { LeaseKeepAliveRequest } from '../../../../src/etcdserver/types/lease.js'
import { loadEtcdProto } from '../../../../src/grpc/proto.js'
import { unary, type UnaryCall } from '../../../helpers/grpc-client.js'
import { rawWatchStream } from '../../../helpers/watch-stream.js'
import { ClientError, type EtcdTestClient } from '../client.js'
// Auth
import {
  fromPbAuthenticate, fromPbAuthStatus, fromPbHeaderOnly, fromPbRoleGet, fromPbRoleList, fromPbUserGet, fromPbUserList,
  toPbMemberAdd, toPbRoleGrantPermission, toPbRoleRevokePermission, toPbUserAdd, toPbUserChangePassword,
} from './pb-auth.js'
import {
  fromPbAlarm, fromPbCompaction, fromPbDefragment, fromPbDeleteRange, fromPbHash, fromPbHashKv, fromPbLeaseGrant,
  fromPbDowngrade, fromPbLeaseKeepAlive, fromPbLeaseLeases, fromPbLeaseRevoke, fromPbLeaseTimeToLive, fromPbMemberList, fromPbMoveLeader,
  fromPbPut, fromPbRange, fromPbStatus, fromPbTxn, toPbAlarm, toPbCompaction, toPbDeleteRange, toPbHashKv,
  toPbLeaseGrant, toPbLeaseId, toPbLeaseTimeToLive, toPbMoveLeader, toPbPut, toPbRange, toPbTxn,
} from './pb.js'
import { asError } from '../../../../src/pkg/as-error.js'

function isServiceError(e: unknown): e is ServiceError {
  return e instanceof Error && typeof (e as Partial<ServiceError>).code === 'number' && typeof (e as Partial<ServiceError>).details === 'string'
}

/** A gRPC failure becomes ClientError { status code, status details }; any other Error is returned as is. */
function toClientError(e: unknown): Error {
  if (isServiceError(e)) return new ClientError(e.code, e.details)
  return asError(e)
}

/** A gRPC failure becomes ClientError { status code, status details }; anything else propagates. */
async function call<T>(fn: UnaryCall, req: object, parse: (x: unknown) => T): Promise<T> {
  let res: unknown
  try {
    res = await fn(req)
  } catch (e) {
    throw toClientError(e)
  }
  return parse(res)
}

/** The part of a client-side duplex stream (grpc-js's or etcd3's) that a keep-alive exchange uses. */
export interface KeepAliveDuplex {
  write(req: object): unknown
  end(): unknown
  cancel(): unknown
  on(event: 'data' | 'error' | 'end', listener: (x: unknown) => void): unknown
}

/** How long one keep-alive exchange may take before the case fails (only bounds a failing case). */
const KEEPALIVE_TIMEOUT_MS = 5000

/**
 * Write every request on `stream`, resolve with the first `reqs.length` responses (parsed), then end the
 * stream. A stream error rejects with `toError(error)`; so does an end before every answer arrived.
 */
export function keepAliveExchange<T>(
  stream: KeepAliveDuplex, reqs: readonly LeaseKeepAliveRequest[], parse: (x: unknown) => T, toError: (e: unknown) => Error,
): Promise<T[]> {
  return new Promise<T[]>((resolve, reject) => {
    const got: T[] = []
    let done = false
    const finish = (f: () => void): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      stream.end()
      stream.cancel()
      f()
    }
    const timer = setTimeout(() => finish(() => reject(new Error(`keep-alive: ${got.length} of ${reqs.length} responses within ${KEEPALIVE_TIMEOUT_MS} ms`))), KEEPALIVE_TIMEOUT_MS)
    stream.on('data', (d) => {
      if (done) return
      try {
        got.push(parse(d))
      } catch (e) {
        finish(() => reject(asError(e)))
        return
      }
      if (got.length === reqs.length) finish(() => resolve(got))
    })
    stream.on('error', (e) => finish(() => reject(toError(e))))
    stream.on('end', () => finish(() => reject(new Error(`keep-alive stream ended after ${got.length} of ${reqs.length} responses`))))
    for (const r of reqs) stream.write(toPbLeaseId(r))
    if (reqs.length === 0) finish(() => resolve(got))
  })
}

/** A client interceptor that puts `token` into the metadata of every call, unary and streaming alike. */
function tokenInterceptor(token: string): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set('token', token)
        next(metadata, listener)
      },
    })
}

/** Read a server stream of Snapshot to its end; resolves with the number of blob bytes, rejects as a unary call. */
function snapshotBytes(mnt: grpc.Client): Promise<number> {
  const fn = (mnt as unknown as Record<string, unknown>)['Snapshot']
  if (typeof fn !== 'function') return Promise.reject(new Error('no Snapshot method'))
  const stream = (fn as (req: object) => grpc.ClientReadableStream<unknown>).call(mnt, {})
  return new Promise((resolve, reject) => {
    let n = 0
    stream.on('data', (d: unknown) => {
      const blob = typeof d === 'object' && d !== null ? (d as Record<string, unknown>)['blob'] : undefined
      if (blob instanceof Uint8Array) n += blob.byteLength
    })
    stream.on('error', (e) => reject(toClientError(e)))
    stream.on('end', () => resolve(n))
  })
}

/**
 * Bind raw KV, Watch, Lease, Maintenance, Cluster and Auth clients to `endpoint`; `close()` closes them all
 * (and with them every stream still open), then runs `dispose` (stop the server). With `token`, every call
 * carries it as the `token` metadata.
 */
export function rawTestClient(endpoint: string, dispose: () => Promise<void>, token?: string): EtcdTestClient {
  const proto = loadEtcdProto().etcdserverpb
  const creds = grpc.credentials.createInsecure()
  // Every client carries the token.
  const opts: grpc.ClientOptions = token === undefined ? {} : { interceptors: [tokenInterceptor(token)] }
  const kv = new proto.KV(endpoint, creds, opts)
  const w = new proto.Watch(endpoint, creds, opts)
  const auth = new proto.Auth(endpoint, creds, opts)
  const lease = new proto.Lease(endpoint, creds, opts)
  const mnt = new proto.Maintenance(endpoint, creds, opts)
  const cluster = new proto.Cluster(endpoint, creds, opts)
  const u = (client: grpc.Client, method: string): UnaryCall => unary(client, method)
  // Auth
  const a = <T>(method: string, req: object, parse: (x: unknown) => T): Promise<T> => call(u(auth, method), req, parse)
  const derived = (t: string): EtcdTestClient => rawTestClient(endpoint, () => Promise.resolve(), t)
  return {
    range: (r) => call(u(kv, 'Range'), toPbRange(r), fromPbRange),
    put: (r) => call(u(kv, 'Put'), toPbPut(r), fromPbPut),
    deleteRange: (r) => call(u(kv, 'DeleteRange'), toPbDeleteRange(r), fromPbDeleteRange),
    txn: (r) => call(u(kv, 'Txn'), toPbTxn(r), fromPbTxn),
    compact: (r) => call(u(kv, 'Compact'), toPbCompaction(r), fromPbCompaction),
    watch: () => rawWatchStream(w),
    leaseGrant: (r) => call(u(lease, 'LeaseGrant'), toPbLeaseGrant(r), fromPbLeaseGrant),
    leaseRevoke: (r) => call(u(lease, 'LeaseRevoke'), toPbLeaseId(r), fromPbLeaseRevoke),
    leaseKeepAlive: (reqs) => keepAliveExchange(lease.LeaseKeepAlive(), reqs, fromPbLeaseKeepAlive, toClientError),
    leaseTimeToLive: (r) => call(u(lease, 'LeaseTimeToLive'), toPbLeaseTimeToLive(r), fromPbLeaseTimeToLive),
    leaseLeases: () => call(u(lease, 'LeaseLeases'), {}, fromPbLeaseLeases),
    status: () => call(u(mnt, 'Status'), {}, fromPbStatus),
    hash: () => call(u(mnt, 'Hash'), {}, fromPbHash),
    hashKV: (r) => call(u(mnt, 'HashKV'), toPbHashKv(r), fromPbHashKv),
    alarm: (r) => call(u(mnt, 'Alarm'), toPbAlarm(r), fromPbAlarm),
    defragment: () => call(u(mnt, 'Defragment'), {}, fromPbDefragment),
    moveLeader: (r) => call(u(mnt, 'MoveLeader'), toPbMoveLeader(r), fromPbMoveLeader),
    memberList: (r = {}) => call(u(cluster, 'MemberList'), r, fromPbMemberList),
    downgrade: (r) => call(u(mnt, 'Downgrade'), r, fromPbDowngrade),
    // Auth
    authEnable: () => a('AuthEnable', {}, fromPbHeaderOnly),
    authDisable: () => a('AuthDisable', {}, fromPbHeaderOnly),
    authStatus: () => a('AuthStatus', {}, fromPbAuthStatus),
    authenticate: (r) => a('Authenticate', r, fromPbAuthenticate),
    userAdd: (r) => a('UserAdd', toPbUserAdd(r), fromPbHeaderOnly),
    userGet: (r) => a('UserGet', r, fromPbUserGet),
    userList: () => a('UserList', {}, fromPbUserList),
    userDelete: (r) => a('UserDelete', r, fromPbHeaderOnly),
    userChangePassword: (r) => a('UserChangePassword', toPbUserChangePassword(r), fromPbHeaderOnly),
    userGrantRole: (r) => a('UserGrantRole', r, fromPbHeaderOnly),
    userRevokeRole: (r) => a('UserRevokeRole', r, fromPbHeaderOnly),
    roleAdd: (r) => a('RoleAdd', r, fromPbHeaderOnly),
    roleGet: (r) => a('RoleGet', r, fromPbRoleGet),
    roleList: () => a('RoleList', {}, fromPbRoleList),
    roleDelete: (r) => a('RoleDelete', r, fromPbHeaderOnly),
    roleGrantPermission: (r) => a('RoleGrantPermission', toPbRoleGrantPermission(r), fromPbHeaderOnly),
    roleRevokePermission: (r) => a('RoleRevokePermission', toPbRoleRevokePermission(r), fromPbHeaderOnly),
    login: async (name, password) => {
      const { token: t } = await a('Authenticate', { name, password }, fromPbAuthenticate)
      return { client: derived(t), token: t }
    },
    withToken: derived,
    memberAdd: (r) => call(u(cluster, 'MemberAdd'), toPbMemberAdd(r), fromPbMemberList),
    snapshot: () => snapshotBytes(mnt),
    async close() {
      kv.close()
      w.close()
      auth.close()
      lease.close()
      mnt.close()
      cluster.close()
      await dispose()
    },
  }
}
