// The Lock service (etcd's v3lock): Lock waits for the lock and is ended by the client's cancel (or
// deadline) and by server shutdown; Unlock deletes the lock key.
import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import { LockServer } from '../etcdserver/v3lock.js'
import { asCaller } from '../etcdserver/concurrency.js'
import { credentialsOf } from './interceptor.js'
import type { LockHandlers } from './generated/v3lockpb/Lock.js'
import { toDomainLock, toDomainUnlock, toPbLockResponse, toPbUnlockResponse } from './convert-concurrency.js'
import { reply, replyLong } from './concurrency-call.js'
import type { ErrorReporter } from './status.js'
import type { WatchCalls } from './watch.js'

/** `calls`: the server's long-lived calls, so shutdown ends a waiting Lock instead of waiting for it. */
export function lockHandlers(def: ServiceDefinition, server: EtcdServer, report: ErrorReporter, calls?: WatchCalls): UntypedServiceImplementation {
  void def
  // Each call acts with its caller's credentials (v3lock runs as the client that called it).
  const locks = (call: Parameters<typeof credentialsOf>[0]): LockServer => new LockServer(asCaller(server, credentialsOf(call)))
  const handlers: LockHandlers = {
    Lock(call, cb) {
      replyLong(call, cb, calls, report, (signal) => locks(call).lock(toDomainLock(call.request), { signal }).then(toPbLockResponse))
    },
    Unlock(call, cb) {
      reply(cb, report, () => locks(call).unlock(toDomainUnlock(call.request)).then(toPbUnlockResponse))
    },
  }
  return handlers
}
