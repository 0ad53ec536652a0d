// The contract every compliance adapter implements, shaped like etcd's tests/framework Client: the KV calls
// take the DOMAIN requests of src/etcdserver/types.ts and resolve to normalized DOMAIN responses (outer
// header filled: clusterId, memberId, revision, raftTerm), whatever transport sits in between.
import type {
  CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse, PutRequest, PutResponse,
  RangeRequest, RangeResponse, TxnRequest, TxnResponse,
} from '../../src/etcdserver/types.js'
import type { TestWatchStream } from '../helpers/watch-stream.js'

/**
 * The one error shape every adapter throws for a failed call: the gRPC status code (numeric, as in
 * `@grpc/grpc-js` `status`) and etcd's text (the status details, e.g. "etcdserver: key not found").
 * Anything else thrown by an adapter is a bug in the adapter or in the server and fails the test.
 */
export class ClientError extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
    this.name = 'ClientError'
  }
}

/**
 * A client bound to one fresh server. `close()` releases the client, every watch stream it opened and the
 * server it started.
 */
export interface EtcdTestClient {
  range(req: RangeRequest): Promise<RangeResponse>
  put(req: PutRequest): Promise<PutResponse>
  deleteRange(req: DeleteRangeRequest): Promise<DeleteRangeResponse>
  txn(req: TxnRequest): Promise<TxnResponse>
  compact(req: CompactionRequest): Promise<CompactionResponse>
  /**
   * Open a new watch stream (one gRPC Watch call, or one embedded watchStream()) on the same server.
   * Responses arrive as domain WatchResponses; a failure of the whole stream ends it (WatchStreamEnded).
   */
  watch(): TestWatchStream
  close(): Promise<void>
}

/** Starts a fresh server (empty store at revision 1) and returns a client bound to it. */
export type ClientFactory = () => Promise<EtcdTestClient>

/** Capabilities a case may require; an adapter lacking one skips that case with the reason. */
export interface Supports {
  /** Txns nested in RequestOp (etcd 3.3+). */
  readonly nestedTxn: boolean
  /** Writes over --max-request-bytes are refused with "etcdserver: request is too large". */
  readonly requestSizeLimit: boolean
  /** Compaction with physical=true. */
  readonly physicalCompaction: boolean
}

export type Feature = keyof Supports

/** Everything runComplianceSuite needs to know about one front end. */
export interface Adapter {
  readonly name: string
  readonly factory: ClientFactory
  readonly supports: Supports
  /** True for the real etcd: `todo` marks (known etcdlite deviations) do not apply to it. */
  readonly oracle?: boolean
  /**
   * The oracle's etcd release (e.g. "3.4.23"). A case whose `fixedIn` is a later release expects the
   * behaviour of that release and is skipped here; absent: no case is skipped for its version.
   */
  readonly etcdVersion?: string
  /** Set when the whole suite cannot run here; the text says why. */
  readonly skip?: string
  /** Cases run at once (each on its own server); default 1. */
  readonly concurrency?: number
}

export const SUPPORTS_ALL: Supports = { nestedTxn: true, requestSizeLimit: true, physicalCompaction: true }
