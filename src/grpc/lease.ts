// The Lease service (etcd v3rpc/lease.go): Grant, Revoke, KeepAlive (bidirectional), TimeToLive, Leases.
import type {
  ServerDuplexStream, ServiceDefinition, UntypedServiceImplementation,
} from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import { EtcdError } from '../pkg/errors.js'
import type { LeaseHandlers } from './generated/etcdserverpb/Lease.js'
import type { LeaseKeepAliveRequest__Output } from './generated/etcdserverpb/LeaseKeepAliveRequest.js'
import type { LeaseKeepAliveResponse } from './generated/etcdserverpb/LeaseKeepAliveResponse.js'
import {
  toDomainLeaseGrant, toDomainLeaseKeepAlive, toDomainLeaseRevoke, toDomainLeaseTimeToLive, toPbLeaseGrantResponse,
  toPbLeaseKeepAliveResponse, toPbLeaseLeasesResponse, toPbLeaseRevokeResponse, toPbLeaseTimeToLiveResponse,
} from './convert.js'
import { toServiceError, type ErrorReporter } from './status.js'
import { reply } from './unary.js'
import type { WatchCalls } from './watch.js'

/** Keep-alive responses queued on one stream before it stops reading requests (etcd sends synchronously). */
const KEEPALIVE_QUEUE = 128

export function leaseHandlers(
  def: ServiceDefinition,
  server: EtcdServer,
  report: ErrorReporter,
  calls: WatchCalls,
): UntypedServiceImplementation {
  void def
  const handlers: LeaseHandlers = {
    LeaseGrant(call, cb) {
      reply(cb, () => server.leaseGrant(toDomainLeaseGrant(call.request)).then(toPbLeaseGrantResponse), report)
    },
    LeaseRevoke(call, cb) {
      reply(cb, () => server.leaseRevoke(toDomainLeaseRevoke(call.request)).then(toPbLeaseRevokeResponse), report)
    },
    LeaseTimeToLive(call, cb) {
      reply(cb, () => toPbLeaseTimeToLiveResponse(server.leaseTimeToLive(toDomainLeaseTimeToLive(call.request))), report)
    },
    LeaseLeases(_call, cb) {
      reply(cb, () => toPbLeaseLeasesResponse(server.leaseLeases()), report)
    },
    LeaseKeepAlive(call) {
      serveKeepAlive(server, call, report, calls)
    },
  }
  return handlers
}

/**
 * One keep-alive stream: requests are renewed one at a time, in order, each answered before the next is
 * read (etcd's leaseKeepAlive loop), so responses come back in request order. When the client stops
 * reading, responses queue up to KEEPALIVE_QUEUE and then the stream stops reading requests until 'drain'.
 */
function serveKeepAlive(
  server: EtcdServer,
  call: ServerDuplexStream<LeaseKeepAliveRequest__Output, LeaseKeepAliveResponse>,
  report: ErrorReporter,
  calls: WatchCalls,
): void {
  let done = false
  const pending: LeaseKeepAliveRequest__Output[] = []
  let busy = false
  let ended = false
  const finish = (): void => {
    calls.remove(stop)
    done = true
  }
  const stop = (): void => {
    if (done) return
    finish()
    call.emit('error', toServiceError(new EtcdError('STOPPED')))
  }
  const fail = (err: unknown): void => {
    if (done) return
    finish()
    call.emit('error', toServiceError(err, report))
  }
  const pump = (): void => {
    if (busy || done) return
    const req = pending.shift()
    if (req === undefined) {
      if (ended) {
        finish()
        call.end()
      }
      return
    }
    busy = true
    server.leaseRenew(toDomainLeaseKeepAlive(req)).then(
      (resp) => {
        busy = false
        if (done) return
        const ok = call.write(toPbLeaseKeepAliveResponse(resp))
        if (!ok && call.writableLength >= KEEPALIVE_QUEUE) {
          call.pause()
          call.once('drain', () => {
            if (!done) call.resume()
            pump()
          })
          return
        }
        pump()
      },
      (err: unknown) => {
        busy = false
        fail(err)
      },
    )
  }
  if (!calls.add(stop)) {
    done = true
    call.emit('error', toServiceError(new EtcdError('STOPPED')))
    return
  }
  call.on('data', (req: LeaseKeepAliveRequest__Output) => {
    pending.push(req)
    // Requests are small; while one renew is in flight the next wait here, bounded by flow control.
    if (pending.length >= KEEPALIVE_QUEUE) call.pause()
    pump()
    if (pending.length < KEEPALIVE_QUEUE && !done && call.isPaused() && call.writableLength < KEEPALIVE_QUEUE) call.resume()
  })
  // The client half-closed: answer what was asked, then end with OK (etcd returns nil on io.EOF).
  call.on('end', () => {
    ended = true
    pump()
  })
  call.on('cancelled', finish)
  call.on('error', finish)
  call.on('close', finish)
}
