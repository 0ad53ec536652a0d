// The Lease service (etcd v3rpc/lease.go): Grant, Revoke, KeepAlive (bidirectional), TimeToLive, Leases.
import type {
  handleUnaryCall, ServerDuplexStream, ServiceDefinition, UntypedServiceImplementation,
} from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import { EtcdError } from '../pkg/errors.js'
import type { LeaseHandlers } from './generated/etcdserverpb/Lease.js'
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseRevokeRequest,
  LeaseRevokeResponse,
} from '../etcdserver/types/lease.js'
import { toDomainLeaseTimeToLive, toPbLeaseLeasesResponse, toPbLeaseTimeToLiveResponse } from './convert-lease.js'
import {
  decodeLeaseGrantRequest, decodeLeaseKeepAliveRequest, decodeLeaseRevokeRequest, encodeLeaseGrantResponse,
  encodeLeaseKeepAliveResponse, encodeLeaseRevokeResponse,
} from '../wire/lease.js'
import { toServiceError, type ErrorReporter } from './status.js'
import { credentialsOf } from './interceptor.js'
import { reply } from './unary.js'
import type { WatchCalls } from './watch.js'

/** Keep-alive responses queued on one stream before it stops reading requests (etcd sends synchronously). */
const KEEPALIVE_QUEUE = 128

/** The Lease service definition with the hand-written codec on Grant, Revoke and KeepAlive (lease churn). */
export function leaseServiceDefinition(base: ServiceDefinition): ServiceDefinition {
  const grant = base['LeaseGrant']
  const revoke = base['LeaseRevoke']
  const keepAlive = base['LeaseKeepAlive']
  if (grant === undefined || revoke === undefined || keepAlive === undefined) throw new Error('Lease service definition lacks a method')
  return {
    ...base,
    LeaseGrant: { ...grant, requestDeserialize: decodeLeaseGrantRequest, responseSerialize: encodeLeaseGrantResponse },
    LeaseRevoke: { ...revoke, requestDeserialize: decodeLeaseRevokeRequest, responseSerialize: encodeLeaseRevokeResponse },
    LeaseKeepAlive: { ...keepAlive, requestDeserialize: decodeLeaseKeepAliveRequest, responseSerialize: encodeLeaseKeepAliveResponse },
  }
}

export function leaseHandlers(
  def: ServiceDefinition,
  server: EtcdServer,
  report: ErrorReporter,
  calls: WatchCalls,
): UntypedServiceImplementation {
  void def
  const grant: handleUnaryCall<LeaseGrantRequest, LeaseGrantResponse> = (call, cb) => {
    reply(cb, () => server.leaseService.leaseGrant(call.request, credentialsOf(call)), report)
  }
  const revoke: handleUnaryCall<LeaseRevokeRequest, LeaseRevokeResponse> = (call, cb) => {
    reply(cb, () => server.leaseService.leaseRevoke(call.request, credentialsOf(call)), report)
  }
  const rest: Pick<LeaseHandlers, 'LeaseTimeToLive' | 'LeaseLeases'> = {
    LeaseTimeToLive(call, cb) {
      reply(cb, () => toPbLeaseTimeToLiveResponse(server.leaseService.leaseTimeToLive(toDomainLeaseTimeToLive(call.request), credentialsOf(call))), report)
    },
    LeaseLeases(call, cb) {
      reply(cb, () => toPbLeaseLeasesResponse(server.leaseService.leaseLeases(credentialsOf(call))), report)
    },
  }
  const keepAlive = (call: ServerDuplexStream<LeaseKeepAliveRequest, LeaseKeepAliveResponse>): void => {
    serveKeepAlive(server, call, report, calls)
  }
  return { ...rest, LeaseGrant: grant, LeaseRevoke: revoke, LeaseKeepAlive: keepAlive }
}

/**
 * One keep-alive stream: requests are renewed one at a time, in order, each answered before the next is
 * read (etcd's leaseKeepAlive loop), so responses come back in request order. When the client stops
 * reading, responses queue up to KEEPALIVE_QUEUE and then the stream stops reading requests until 'drain'.
 */
function serveKeepAlive(
  server: EtcdServer,
  call: ServerDuplexStream<LeaseKeepAliveRequest, LeaseKeepAliveResponse>,
  report: ErrorReporter,
  calls: WatchCalls,
): void {
  // Read once: the metadata of a stream does not change.
  const creds = credentialsOf(call)
  let done = false
  const pending: LeaseKeepAliveRequest[] = []
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
    server.leaseService.leaseRenew(req, creds).then(
      (resp) => {
        busy = false
        if (done) return
        const ok = call.write(resp)
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
  call.on('data', (req: LeaseKeepAliveRequest) => {
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
