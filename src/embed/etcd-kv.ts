// The embedded Etcd's KV service: etcd's Range, Put, DeleteRange, Txn and Compact, in process, with the
// semantics and errors of the gRPC service.
import type {
  CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse, PutRequest, PutResponse,
  RangeRequest, RangeResponse, TxnRequest, TxnResponse,
} from '../etcdserver/types/kv.js'
import { asError } from '../pkg/as-error.js'
import { EtcdCore } from './etcd-core.js'
import { checkPut, type Input } from './input.js'

export abstract class EtcdKv extends EtcdCore {
  /** Keys in [key, rangeEnd) (see RangeRequest); rejects with etcd's errors as EtcdError. */
  range(req: Input<RangeRequest>): Promise<RangeResponse> {
    return this.checked('range', req, (r) => this.server.kvService.range(r, this.creds))
  }

  /** Put a key; resolves once the write is durable. */
  put(req: Input<PutRequest>): Promise<PutResponse> {
    // The hot path: inline rather than through checked(); a request of the server's types is not copied.
    let r: PutRequest
    try {
      r = checkPut(req)
    } catch (err) {
      return Promise.reject(asError(err))
    }
    return this.server.kvService.put(r, this.creds)
  }

  deleteRange(req: Input<DeleteRangeRequest>): Promise<DeleteRangeResponse> {
    return this.checked('deleteRange', req, (r) => this.server.kvService.deleteRange(r, this.creds))
  }

  txn(req: Input<TxnRequest>): Promise<TxnResponse> {
    return this.checked('txn', req, (r) => this.server.kvService.txn(r, this.creds))
  }

  compact(req: Input<CompactionRequest>): Promise<CompactionResponse> {
    return this.checked('compact', req, (r) => this.server.kvService.compact(r, this.creds))
  }
}
