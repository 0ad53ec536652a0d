// etcdlite served over gRPC, reached through the `etcd3` npm client: its own protos (renamed enums, same
// numbers), its own connection pool, and its own error casting (castGrpcError). Errors are mapped back
// from what etcd3 hands out (error class + message), so the suite proves a real client parses ours.
// Watch streams go through etcd3's own RPC-layer WatchClient and decoder (etcd3-watch.ts).
import {
  Etcd3, EtcdLeaseInvalidError, GRPCAbortedError, GRPCAlreadyExistsError, GRPCCancelledError, GRPCDataLossError,
  GRPCDeadlineExceededError, GRPCFailedPreconditionError, GRPCInternalError, GRPCInvalidArgumentError,
  GRPCNotFoundError, GRPCNotImplementedError, GRPCOutOfRangeError, GRPCResourceExhastedError,
  GRPCUnauthenticatedError, GRPCUnavailableError, GRPCUnknownError, EtcdPermissionDeniedError,
} from 'etcd3'
// Auth
import {
  EtcdAuthenticationFailedError, EtcdInvalidAuthTokenError, EtcdRoleExistsError, EtcdRoleNotFoundError,
  EtcdRoleNotGrantedError, EtcdUserExistsError, EtcdUserNotFoundError, type IOptions,
} from 'etcd3'
import { TEST_BCRYPT_COST } from '../client.js'
import {
  fromPbAuthenticate, fromPbAuthStatus, fromPbHeaderOnly, fromPbRoleGet, fromPbRoleList, fromPbUserGet, fromPbUserList,
  toPbMemberAdd, toPbRoleGrantPermission, toPbRoleRevokePermission, toPbUserAdd, toPbUserChangePassword,
} from './pb-auth.js'
import { openEtcd } from '../../../../src/embed/etcd.js'
import { ClientError, SUPPORTS_ALL, type Adapter, type EtcdTestClient } from '../client.js'
import { etcd3WatchStream } from './etcd3-watch.js'
import {
  fromPbAlarm, fromPbCompaction, fromPbDefragment, fromPbDeleteRange, fromPbHash, fromPbHashKv, fromPbLeaseGrant,
  fromPbLeaseKeepAlive, fromPbLeaseLeases, fromPbLeaseRevoke, fromPbLeaseTimeToLive, fromPbMemberList, fromPbMoveLeader, fromPbDowngrade,
  fromPbPut, fromPbRange, fromPbStatus, fromPbTxn, toPbAlarm, toPbCompaction, toPbDeleteRange, toPbHashKv,
  toPbLeaseGrant, toPbLeaseId, toPbLeaseTimeToLive, toPbMoveLeader, toPbPut, toPbRange, toPbTxn,
} from './pb.js'
import { keepAliveExchange, type KeepAliveDuplex } from './raw.js'

type ErrorClass = abstract new (...args: never[]) => Error

/** etcd3's grpcCodeToError, inverted: the class it picks tells the status code. */
const CLASS_CODES: ReadonlyArray<readonly [ErrorClass, number]> = [
  [GRPCCancelledError, 1], [GRPCUnknownError, 2], [GRPCInvalidArgumentError, 3], [GRPCDeadlineExceededError, 4],
  [GRPCNotFoundError, 5], [GRPCAlreadyExistsError, 6], [EtcdPermissionDeniedError, 7], [GRPCResourceExhastedError, 8],
  [GRPCFailedPreconditionError, 9], [GRPCAbortedError, 10], [GRPCOutOfRangeError, 11], [GRPCNotImplementedError, 12],
  [GRPCInternalError, 13], [GRPCUnavailableError, 14], [GRPCDataLossError, 15], [GRPCUnauthenticatedError, 16],
]

/** grpc-js puts "<code> <STATUS_NAME>: <details>" in the message; etcd3 keeps it. */
const STATUS_TEXT = /^(\d+) [A-Z_]+: ([\s\S]*)$/
/** etcd3 matches "etcdserver: requested lease not found" and wraps the whole text in its own sentence. */
const LEASE_TEXT = /^Lease ([\s\S]*) is expired or revoked$/

/**
 * etcd3 picks these classes by the message text alone (its grpcMessageToError) and drops the status code; the
 * code is still in the message grpc-js wrote ("9 FAILED_PRECONDITION: etcdserver: role name not found").
 */
const MESSAGE_CLASSES: readonly ErrorClass[] = [
  EtcdRoleExistsError, EtcdUserExistsError, EtcdRoleNotGrantedError, EtcdRoleNotFoundError, EtcdUserNotFoundError,
  EtcdAuthenticationFailedError, EtcdInvalidAuthTokenError,
]

/** The part of etcd3's connection pool a Snapshot call needs: a pooled grpc-js client and etcd3's metadata. */
interface SnapshotPool {
  withConnection<T>(
    service: 'Maintenance',
    fn: (conn: {
      readonly client: { snapshot(req: object, metadata: unknown): { on(event: string, listener: (x: never) => void): unknown } }
      readonly metadata: unknown
    }) => Promise<T>,
  ): Promise<T>
}

/** A status from a stream etcd3 hands out uncast (its Snapshot stream): grpc-js's own error object. */
function uncastStatus(e: Error): ClientError | undefined {
  const { code, details } = e as Error & { code?: unknown; details?: unknown }
  return e.constructor === Error && typeof code === 'number' && typeof details === 'string' ? new ClientError(code, details) : undefined
}

function toClientError(e: Error): ClientError | undefined {
  // Auth
  if (MESSAGE_CLASSES.some((cls) => e instanceof cls)) {
    const m = STATUS_TEXT.exec(e.message)
    return m?.[1] === undefined || m[2] === undefined ? undefined : new ClientError(Number(m[1]), m[2])
  }
  const plain = uncastStatus(e)
  if (plain !== undefined) return plain
  if (e instanceof EtcdLeaseInvalidError) {
    const inner = LEASE_TEXT.exec(e.message)?.[1]
    const m = inner === undefined ? null : STATUS_TEXT.exec(inner)
    return m?.[2] === undefined ? undefined : new ClientError(5, m[2])
  }
  const row = CLASS_CODES.find(([cls]) => e instanceof cls)
  const m = STATUS_TEXT.exec(e.message)
  if (row === undefined || m?.[2] === undefined) return undefined
  if (Number(m[1]) !== row[1]) throw new Error(`etcd3 cast status ${m[1]} to ${e.constructor.name}`, { cause: e })
  return new ClientError(row[1], m[2])
}

async function call<T>(p: () => Promise<unknown>, parse: (x: unknown) => T): Promise<T> {
  let res: unknown
  try {
    res = await p()
  } catch (e) {
    const ce = e instanceof Error ? toClientError(e) : undefined
    throw ce ?? e
  }
  return parse(res)
}

/**
 * Bind an etcd3 client to `endpoint` (any etcd: etcdlite here, the real one when checking the adapter
 * itself); `close()` closes it, then runs `dispose` (stop the server). With `auth`, etcd3 authenticates as
 * that user (and again whenever its token is refused) and sends its token with every call.
 */
export function etcd3TestClient(endpoint: string, dispose: () => Promise<void>, auth?: IOptions['auth']): EtcdTestClient {
  const client = new Etcd3({ hosts: `http://${endpoint}`, ...(auth === undefined ? {} : { auth }) })
  const kv = client.kv
  const lease = client.leaseClient
  const mnt = client.maintenance
  // etcd3 1.1.2's MaintenanceClient.hashKV() asks its pool for method 'hashKV', which the grpc-js client
  // does not have (proto-loader names it 'hashKv'): every call throws "client[method] is not a function".
  // So HashKV goes through the same pool (etcd3's connection, retry policy and decoder) by its real name.
  const pool = (client as unknown as { readonly pool: { exec(service: 'Maintenance', method: string, payload: unknown): Promise<unknown> } }).pool
  const toError = (e: unknown): Error => (e instanceof Error ? (toClientError(e) ?? e) : new Error(String(e)))
  // Auth
  const streamPool = (client as unknown as { readonly pool: SnapshotPool }).pool
  return {
    range: (r) => call(() => kv.range(toPbRange(r)), fromPbRange),
    put: (r) => call(() => kv.put(toPbPut(r)), fromPbPut),
    deleteRange: (r) => call(() => kv.deleteRange(toPbDeleteRange(r)), fromPbDeleteRange),
    txn: (r) => call(() => kv.txn(toPbTxn(r)), fromPbTxn),
    compact: (r) => call(() => kv.compact(toPbCompaction(r)), fromPbCompaction),
    watch: () => etcd3WatchStream(client),
    leaseGrant: (r) => call(() => lease.leaseGrant(toPbLeaseGrant(r)), fromPbLeaseGrant),
    leaseRevoke: (r) => call(() => lease.leaseRevoke(toPbLeaseId(r)), fromPbLeaseRevoke),
    // etcd3's own RPC-layer duplex (its pool picks the connection, its decoder parses the responses).
    leaseKeepAlive: async (reqs) => {
      const stream: KeepAliveDuplex = await lease.leaseKeepAlive()
      return keepAliveExchange(stream, reqs, fromPbLeaseKeepAlive, toError)
    },
    leaseTimeToLive: (r) => call(() => lease.leaseTimeToLive(toPbLeaseTimeToLive(r)), fromPbLeaseTimeToLive),
    leaseLeases: () => call(() => lease.leaseLeases(), fromPbLeaseLeases),
    status: () => call(() => mnt.status(), fromPbStatus),
    hash: () => call(() => mnt.hash(), fromPbHash),
    hashKV: (r) => call(() => pool.exec('Maintenance', 'hashKv', toPbHashKv(r)), fromPbHashKv),
    alarm: (r) => call(() => mnt.alarm(toPbAlarm(r)), fromPbAlarm),
    defragment: () => call(() => mnt.defragment(), fromPbDefragment),
    moveLeader: (r) => call(() => mnt.moveLeader(toPbMoveLeader(r)), fromPbMoveLeader),
    memberList: (r = {}) => call(() => client.cluster.memberList(r), fromPbMemberList),
    // etcd3's enum holds the wire numbers (its names are spelled Validate, Enable, Cancel).
    downgrade: (r) => call(() => mnt.downgrade({ action: typeof r.action === 'number' ? r.action : DOWNGRADE_ACTIONS[r.action ?? 'VALIDATE'], version: r.version }), fromPbDowngrade),
    // Auth
    authEnable: () => call(() => client.auth.authEnable(), fromPbHeaderOnly),
    authDisable: () => call(() => client.auth.authDisable(), fromPbHeaderOnly),
    authStatus: () => call(() => client.auth.authStatus(), fromPbAuthStatus),
    authenticate: (r) => call(() => client.auth.authenticate(r), fromPbAuthenticate),
    userAdd: (r) => call(() => client.auth.userAdd(toPbUserAdd(r)), fromPbHeaderOnly),
    userGet: (r) => call(() => client.auth.userGet(r), fromPbUserGet),
    userList: () => call(() => client.auth.userList(), fromPbUserList),
    userDelete: (r) => call(() => client.auth.userDelete(r), fromPbHeaderOnly),
    userChangePassword: (r) => call(() => client.auth.userChangePassword(toPbUserChangePassword(r)), fromPbHeaderOnly),
    userGrantRole: (r) => call(() => client.auth.userGrantRole(r), fromPbHeaderOnly),
    userRevokeRole: (r) => call(() => client.auth.userRevokeRole(r), fromPbHeaderOnly),
    roleAdd: (r) => call(() => client.auth.roleAdd(r), fromPbHeaderOnly),
    roleGet: (r) => call(() => client.auth.roleGet(r), fromPbRoleGet),
    roleList: () => call(() => client.auth.roleList(), fromPbRoleList),
    roleDelete: (r) => call(() => client.auth.roleDelete(r), fromPbHeaderOnly),
    // etcd3's IPermission declares its renamed enum names; the numbers go on the wire all the same.
    roleGrantPermission: (r) => call(() => client.auth.roleGrantPermission(toPbRoleGrantPermission(r) as never), fromPbHeaderOnly),
    roleRevokePermission: (r) => call(() => client.auth.roleRevokePermission(toPbRoleRevokePermission(r)), fromPbHeaderOnly),
    // etcd3 keeps its token to itself: check the password here (so a wrong one fails as Authenticate does),
    // then hand out a client that authenticates on its own.
    login: async (name, password) => {
      await call(() => client.auth.authenticate({ name, password }), fromPbAuthenticate)
      return { client: etcd3TestClient(endpoint, () => Promise.resolve(), { username: name, password }) }
    },
    memberAdd: (r) => call(() => client.cluster.memberAdd(toPbMemberAdd(r)), fromPbMemberList),
    // etcd3 1.1.2's MaintenanceClient.snapshot() calls the grpc-js method as (metadata, options, {}), so its
    // metadata (the token) is sent as the request and never as metadata: every snapshot of an authenticated
    // client is refused. So Snapshot goes through etcd3's own pool, connection and metadata, called right.
    snapshot: () =>
      call(
        () =>
          streamPool.withConnection('Maintenance', ({ client: c, metadata }) =>
            new Promise<number>((resolve, reject) => {
              const stream = c.snapshot({}, metadata)
              let n = 0
              stream.on('data', (d: { readonly blob?: Uint8Array }) => (n += d.blob?.byteLength ?? 0))
              stream.on('error', (e: Error) => reject(toError(e)))
              stream.on('end', () => resolve(n))
            }),
          ),
        (n) => n as number,
      ),
    async close() {
      client.close()
      await dispose()
    },
  }
}

/** The wire number of each DowngradeRequest action. */
const DOWNGRADE_ACTIONS = { VALIDATE: 0, ENABLE: 1, CANCEL: 2 } as const

export const etcd3Adapter: Adapter = {
  name: 'etcd3',
  // etcd3 takes RESOURCE_EXHAUSTED for a transient fault: it retries the call and then opens its circuit
  // breaker, so the NOSPACE error never reaches the caller and every later call fails.
  // etcd3 manages its own token: no raw tokens, so no token-level cases.
  // (etcd3 also takes UNKNOWN for a transient fault: it retries and opens its circuit breaker.)
  // (and UNAVAILABLE: a Downgrade ENABLE that timed out is sent again, and then finds itself in process.)
  supports: { ...SUPPORTS_ALL, noSpaceErrors: false, authToken: false, unknownErrors: false },
  async factory(server): Promise<EtcdTestClient> {
    const ttl = server?.authTokenTtl === undefined ? {} : { authTokenTtl: server.authTokenTtl }
    const etcd = await openEtcd({ memory: true, bcryptCost: TEST_BCRYPT_COST, ...ttl })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      return etcd3TestClient(endpoint, () => etcd.close())
    } catch (e) {
      await etcd.close()
      throw e
    }
  },
}
