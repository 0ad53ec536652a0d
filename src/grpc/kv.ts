// The KV service (etcd v3rpc/key.go): convert, call the server core, convert back, map errors once.
import type { sendUnaryData } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { KVHandlers } from './generated/etcdserverpb/KV.js'
import {
  toDomainCompaction, toDomainDeleteRange, toDomainPut, toDomainRange, toDomainTxn, toPbCompactionResponse,
  toPbDeleteRangeResponse, toPbPutResponse, toPbRangeResponse, toPbTxnResponse,
} from './convert.js'
import { toServiceError, type ErrorReporter } from './status.js'

/** Answer a unary call from a promise, mapping any failure through the one status table. */
function reply<Res>(cb: sendUnaryData<Res>, p: Promise<Res>, report: ErrorReporter): void {
  p.then(
    (res) => cb(null, res),
    (err: unknown) => cb(toServiceError(err, report)),
  )
}

export function kvHandlers(server: EtcdServer, report: ErrorReporter): KVHandlers {
  return {
    Range(call, cb) {
      try {
        cb(null, toPbRangeResponse(server.range(toDomainRange(call.request))))
      } catch (err) {
        cb(toServiceError(err, report))
      }
    },
    Put(call, cb) {
      reply(cb, server.put(toDomainPut(call.request)).then(toPbPutResponse), report)
    },
    DeleteRange(call, cb) {
      reply(cb, server.deleteRange(toDomainDeleteRange(call.request)).then(toPbDeleteRangeResponse), report)
    },
    Txn(call, cb) {
      reply(cb, server.txn(toDomainTxn(call.request)).then(toPbTxnResponse), report)
    },
    Compact(call, cb) {
      reply(cb, server.compact(toDomainCompaction(call.request)).then(toPbCompactionResponse), report)
    },
  }
}

