// connect(): the remote client, reached over etcd's gRPC API at any etcd v3 endpoint (etcdlite's or etcd's).
// The connection's modules, and grpc-js with them, load with the first connect(): importing etcdlite to use
// it in process loads none of them.
import type * as grpc from '@grpc/grpc-js'
import { status } from '../grpc/status-codes.js'
import { checkRequest } from '../embed/input.js'
import { DEFAULT_BACKOFF } from './backoff.js'
import { RemoteClient } from './client.js'
import type { Connection } from './connection.js'
import type { PickedChannel } from './endpoints.js'
import { closedError, GrpcError } from './grpc-error.js'
import { DEFAULT_DIAL_TIMEOUT_MS, type ConnectOptions } from './options.js'

function refuse(what: string): never {
  throw new TypeError(`etcdlite: connect: ${what}`)
}

/** Wait until `channel` is connected (true) or has failed to connect (false), or the deadline passes (false). */
function connected(states: typeof grpc.connectivityState, channel: PickedChannel, deadline: number): Promise<boolean> {
  const ch = channel.client.getChannel()
  return new Promise((resolve) => {
    const check = (): void => {
      const state = ch.getConnectivityState(true)
      if (state === states.READY) resolve(true)
      else if (state === states.TRANSIENT_FAILURE || state === states.SHUTDOWN) resolve(false)
      else ch.watchConnectivityState(state, deadline, (err) => (err === undefined ? check() : resolve(false)))
    }
    check()
  })
}

/** Reach one endpoint (round-robin, with backoff) within the dial timeout. */
async function dial(states: typeof grpc.connectivityState, conn: Connection): Promise<void> {
  const start = Date.now()
  const backoff = conn.newBackoff()
  for (;;) {
    const channel = conn.pick()
    if (await connected(states, channel, start + conn.dialTimeoutMs)) return
    conn.failed(channel)
    if (Date.now() - start >= conn.dialTimeoutMs) {
      throw new GrpcError(status.UNAVAILABLE, `etcdlite: connect: no endpoint reachable within ${conn.dialTimeoutMs} ms`)
    }
    if (!(await conn.sleep(backoff.next()))) throw closedError()
  }
}

/**
 * Connect to an etcd cluster (etcdlite's or etcd's) at `endpoints`: resolves once one endpoint answers
 * (and, with `user`, once authenticated), with a client of the same interface as the embedded Etcd
 * (EtcdClient), or rejects after `dialTimeoutMs`. Throws a TypeError for options of the wrong types.
 */
export async function connect(opts: ConnectOptions): Promise<RemoteClient> {
  const o = checkRequest('connect', opts)
  if (o.endpoints.length === 0) refuse('endpoints must name at least one endpoint')
  if ((o.user === undefined) !== (o.password === undefined)) refuse('user and password go together')
  if (o.token !== undefined && o.user !== undefined) refuse('give a token or a user, not both')
  const dialTimeoutMs = o.dialTimeoutMs ?? DEFAULT_DIAL_TIMEOUT_MS
  if (dialTimeoutMs <= 0) refuse(`dialTimeoutMs must be positive, got ${dialTimeoutMs}`)
  const backoff = { ...DEFAULT_BACKOFF, ...o.backoff }
  if (backoff.baseMs <= 0 || backoff.capMs < backoff.baseMs) refuse('backoff needs 0 < baseMs <= capMs')
  const [{ connectivityState }, { Connection }, { Endpoints, parseEndpoint }] = await Promise.all([
    import('@grpc/grpc-js'), import('./connection.js'), import('./endpoints.js'),
  ])
  const endpoints = new Endpoints(o.endpoints.map((e) => parseEndpoint(e, o.tls !== undefined)), o.tls)
  const conn = new Connection(endpoints, {
    dialTimeoutMs, backoff,
    ...(o.token === undefined ? {} : { token: o.token }),
    ...(o.user === undefined || o.password === undefined ? {} : { user: o.user, password: o.password }),
  })
  try {
    await dial(connectivityState, conn)
    if (conn.canRenewToken) await conn.renewToken()
  } catch (e) {
    conn.close()
    throw e
  }
  return new RemoteClient(conn)
}
