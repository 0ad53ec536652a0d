// The KV service (etcd v3rpc/key.go): decode, call the server core, encode, and map errors once.
// Range and Put, the hot paths, use the hand-written codec (kv-codec.ts) and receive domain requests
// directly; the other methods go through proto-loader's objects and convert.ts.
import type {
  handleUnaryCall, ServiceDefinition, UntypedServiceImplementation,
} from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { PutRequest, PutResponse, RangeRequest, RangeResponse } from '../etcdserver/types.js'
import type { KVHandlers } from './generated/etcdserverpb/KV.js'
import {
  toDomainCompaction, toDomainDeleteRange, toDomainTxn, toPbCompactionResponse, toPbDeleteRangeResponse, toPbTxnResponse,
} from './convert.js'
import { decodePutRequest, decodeRangeRequest, encodePutResponse, encodeRangeResponse } from './kv-codec.js'
import type { ErrorReporter } from './status.js'
import { reply } from './unary.js'
import { credentialsOf } from './interceptor.js'

/** The KV service definition with the hand-written codec on Range and Put. */
export function kvServiceDefinition(base: ServiceDefinition): ServiceDefinition {
  const range = base['Range']
  const put = base['Put']
  if (range === undefined || put === undefined) throw new Error('KV service definition lacks Range or Put')
  return {
    ...base,
    Range: { ...range, requestDeserialize: decodeRangeRequest, responseSerialize: encodeRangeResponse },
    Put: { ...put, requestDeserialize: decodePutRequest, responseSerialize: encodePutResponse },
  }
}

export function kvHandlers(server: EtcdServer, report: ErrorReporter): UntypedServiceImplementation {
  const range: handleUnaryCall<RangeRequest, RangeResponse> = (call, cb) => {
    reply(cb, () => server.range(call.request, credentialsOf(call)), report)
  }
  const put: handleUnaryCall<PutRequest, PutResponse> = (call, cb) => {
    reply(cb, () => server.put(call.request, credentialsOf(call)), report)
  }
  const rest: Pick<KVHandlers, 'DeleteRange' | 'Txn' | 'Compact'> = {
    DeleteRange(call, cb) {
      reply(cb, () => server.deleteRange(toDomainDeleteRange(call.request), credentialsOf(call)).then(toPbDeleteRangeResponse), report)
    },
    Txn(call, cb) {
      reply(cb, () => server.txn(toDomainTxn(call.request), credentialsOf(call)).then(toPbTxnResponse), report)
    },
    Compact(call, cb) {
      reply(cb, () => server.compact(toDomainCompaction(call.request), credentialsOf(call)).then(toPbCompactionResponse), report)
    },
  }
  return { ...rest, Range: range, Put: put }
}
