// The KV service (etcd v3rpc/key.go): decode, call the server core, encode, and map errors once.
// Range and Put, the hot paths, use the hand-written codec (wire/kv.ts), and Txn its own (wire/txn.ts,
// which nests as deep as etcd does): they receive domain requests directly. DeleteRange and Compact go
// through proto-loader's objects and convert-kv.ts.
import type {
  handleUnaryCall, ServiceDefinition, UntypedServiceImplementation,
} from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { PutRequest, PutResponse, RangeRequest, RangeResponse } from '../etcdserver/types/kv.js'
import type { KVHandlers } from './generated/etcdserverpb/KV.js'
import type { TxnRequest, TxnResponse } from '../etcdserver/types/kv.js'
import { toDomainCompaction, toDomainDeleteRange, toPbCompactionResponse, toPbDeleteRangeResponse } from './convert-kv.js'
import { decodePutRequest, decodeRangeRequest, encodePutResponse, encodeRangeResponse } from '../wire/kv.js'
import { decodeTxnRequest, encodeTxnResponse } from '../wire/txn.js'
import type { ErrorReporter } from './status.js'
import { reply } from './unary.js'
import { credentialsOf, tokenCredentialsOf } from './interceptor.js'

export interface KvServiceOptions {
  /** etcd's --max-txn-ops: how deep a txn can nest is bounded by it (wire/txn.ts). */
  readonly maxTxnOps: number
}

/** The KV service definition with the hand-written codecs on Range, Put and Txn. */
export function kvServiceDefinition(base: ServiceDefinition, opts: KvServiceOptions): ServiceDefinition {
  const range = base['Range']
  const put = base['Put']
  const txn = base['Txn']
  if (range === undefined || put === undefined || txn === undefined) throw new Error('KV service definition lacks Range, Put or Txn')
  return {
    ...base,
    Range: { ...range, requestDeserialize: decodeRangeRequest, responseSerialize: encodeRangeResponse },
    Put: { ...put, requestDeserialize: decodePutRequest, responseSerialize: encodePutResponse },
    Txn: { ...txn, requestDeserialize: (b: Buffer) => decodeTxnRequest(b, opts.maxTxnOps), responseSerialize: encodeTxnResponse },
  }
}

export interface KvHandlerOptions {
  /**
   * Whether a verified client certificate can name the caller (the listener runs TLS with
   * --client-cert-auth). False: Range and Put read only the token, as no certificate is ever reported.
   * Default true (always correct, slightly slower).
   */
  readonly clientCertAuth: boolean
}

export function kvHandlers(
  server: EtcdServer, report: ErrorReporter, opts: KvHandlerOptions = { clientCertAuth: true },
): UntypedServiceImplementation {
  const creds = opts.clientCertAuth ? credentialsOf : tokenCredentialsOf
  const range: handleUnaryCall<RangeRequest, RangeResponse> = (call, cb) => {
    reply(cb, () => server.kvService.range(call.request, creds(call)), report)
  }
  const put: handleUnaryCall<PutRequest, PutResponse> = (call, cb) => {
    reply(cb, () => server.kvService.put(call.request, creds(call)), report)
  }
  const txn: handleUnaryCall<TxnRequest, TxnResponse> = (call, cb) => {
    reply(cb, () => server.kvService.txn(call.request, creds(call)), report)
  }
  const rest: Pick<KVHandlers, 'DeleteRange' | 'Compact'> = {
    DeleteRange(call, cb) {
      reply(cb, () => server.kvService.deleteRange(toDomainDeleteRange(call.request), creds(call)).then(toPbDeleteRangeResponse), report)
    },
    Compact(call, cb) {
      reply(cb, () => server.kvService.compact(toDomainCompaction(call.request), creds(call)).then(toPbCompactionResponse), report)
    },
  }
  return { ...rest, Range: range, Put: put, Txn: txn }
}
