// The Maintenance service (etcd v3rpc/maintenance.go): Status, Hash, HashKV, Defragment, Snapshot (a server
// stream with backpressure), Alarm, MoveLeader and Downgrade, over EtcdServer.maintenance.
import { once } from 'node:events'
import type { ServerWritableStream, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { MaintenanceHandlers } from './generated/etcdserverpb/Maintenance.js'
import type { SnapshotRequest__Output } from './generated/etcdserverpb/SnapshotRequest.js'
import type { SnapshotResponse } from './generated/etcdserverpb/SnapshotResponse.js'
import {
  toDomainAlarm, toDomainDowngrade, toDomainHashKV, toPbDowngradeResponse, toDomainMoveLeader, toPbAlarmResponse, toPbHashKVResponse, toPbHashResponse,
  toPbSnapshotResponse, toPbStatusResponse,
} from './convert-maintenance.js'
import { toServiceError, type ErrorReporter } from './status.js'
import { credentialsOf } from './interceptor.js'
import { reply } from './unary.js'

/**
 * Send a snapshot: each chunk is written as the stream takes it (a full stream is waited on with 'drain');
 * a cancelled call stops the snapshot and releases it. Failures end the call with the mapped status.
 */
async function sendSnapshot(
  server: EtcdServer,
  call: ServerWritableStream<SnapshotRequest__Output, SnapshotResponse>,
  report: ErrorReporter,
): Promise<void> {
  const ac = new AbortController()
  const cancel = (): void => ac.abort(new Error('snapshot: call cancelled'))
  call.once('cancelled', cancel)
  try {
    for await (const chunk of server.maintenance.snapshot(ac.signal, credentialsOf(call))) {
      if (!call.write(toPbSnapshotResponse(chunk))) await once(call, 'drain', { signal: ac.signal })
    }
    call.end()
  } catch (err) {
    // A cancelled call has nobody to tell.
    if (!call.cancelled) call.emit('error', toServiceError(err, report))
  } finally {
    call.off('cancelled', cancel)
  }
}

export function maintenanceHandlers(def: ServiceDefinition, server: EtcdServer, report: ErrorReporter): UntypedServiceImplementation {
  void def
  const m = server.maintenance
  const handlers: MaintenanceHandlers = {
    Status(call, cb) {
      reply(cb, () => m.status(credentialsOf(call)).then(toPbStatusResponse), report)
    },
    Hash(call, cb) {
      reply(cb, () => m.hash(credentialsOf(call)).then(toPbHashResponse), report)
    },
    HashKV(call, cb) {
      reply(cb, () => m.hashKV(toDomainHashKV(call.request), credentialsOf(call)).then(toPbHashKVResponse), report)
    },
    // etcd answers Defragment and MoveLeader without a header.
    Defragment(call, cb) {
      reply(cb, () => m.defragment(credentialsOf(call)).then(() => ({})), report)
    },
    MoveLeader(call, cb) {
      reply(cb, () => m.moveLeader(toDomainMoveLeader(call.request), credentialsOf(call)).then(() => ({})), report)
    },
    Alarm(call, cb) {
      reply(cb, () => m.alarm(toDomainAlarm(call.request), credentialsOf(call)).then(toPbAlarmResponse), report)
    },
    Downgrade(call, cb) {
      reply(cb, () => m.downgrade(toDomainDowngrade(call.request), credentialsOf(call)).then(toPbDowngradeResponse), report)
    },
    Snapshot(call) {
      void sendSnapshot(server, call, report).catch(report)
    },
  }
  return handlers
}
