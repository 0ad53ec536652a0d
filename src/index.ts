// Public surface: explicit named exports only.
export { openEtcd, Etcd } from './embed/etcd.js'
export type { Listener } from './embed/etcd.js'
export type { EtcdOptions, ListenOptions } from './embed/options.js'
export { ETCD_DEFAULTS } from './embed/options.js'
export type {
  Compare, CompareResult, CompareTarget, CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse,
  KeyValue, PutRequest, PutResponse, RangeRequest, RangeResponse, RequestOp, ResponseHeader, ResponseOp, SortOrder,
  SortTarget, TxnRequest, TxnResponse,
} from './etcdserver/types.js'
export { EtcdError, isEtcdError } from './pkg/errors.js'
export type { ErrorCode } from './pkg/errors.js'
export { CompactedError, FutureRevError } from './mvcc/errors.js'
export { prefixEnd } from './pkg/bytes.js'
export type { Logger, LogLevel } from './pkg/logger.js'
export { createLogger } from './pkg/logger.js'
