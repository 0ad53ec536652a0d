// Requests and responses of etcd's KV service (Range, Put, DeleteRange, Txn, Compact).
// Domain form: camelCase, Uint8Array keys and values, number revisions (checked safe at the edge), bigint IDs;
// optional request fields default to etcd's proto3 zero values.
import type { KeyValue } from '../../mvcc/kv.js'
import type { ResponseHeader } from './header.js'

export type { KeyValue }

export type SortOrder = 'NONE' | 'ASCEND' | 'DESCEND'
export type SortTarget = 'KEY' | 'VERSION' | 'CREATE' | 'MOD' | 'VALUE'

/**
 * Range over [key, rangeEnd). rangeEnd absent or empty: the single key `key`; rangeEnd `"\0"`: every key
 * >= key (and key `"\0"` with rangeEnd `"\0"`: every key). revision <= 0 reads the current revision.
 */
export interface RangeRequest {
  readonly key: Uint8Array
  readonly rangeEnd?: Uint8Array
  readonly limit?: number
  readonly revision?: number
  readonly sortOrder?: SortOrder
  readonly sortTarget?: SortTarget
  readonly serializable?: boolean
  readonly keysOnly?: boolean
  readonly countOnly?: boolean
  readonly minModRevision?: number
  readonly maxModRevision?: number
  readonly minCreateRevision?: number
  readonly maxCreateRevision?: number
}

export interface RangeResponse {
  readonly header: ResponseHeader
  readonly kvs: KeyValue[]
  readonly more: boolean
  readonly count: number
}

export interface PutRequest {
  readonly key: Uint8Array
  readonly value?: Uint8Array
  /** Lease ID; 0n (or absent) for none. */
  readonly lease?: bigint
  readonly prevKv?: boolean
  readonly ignoreValue?: boolean
  readonly ignoreLease?: boolean
}

export interface PutResponse {
  readonly header: ResponseHeader
  readonly prevKv?: KeyValue
}

export interface DeleteRangeRequest {
  readonly key: Uint8Array
  readonly rangeEnd?: Uint8Array
  readonly prevKv?: boolean
}

export interface DeleteRangeResponse {
  readonly header: ResponseHeader
  readonly deleted: number
  readonly prevKvs: KeyValue[]
}

/**
 * What a compare looks at. 'UNKNOWN' stands for a value the protocol does not define (a newer or broken
 * client): as in etcd, it compares nothing and counts as equal.
 */
export type CompareTarget = 'VERSION' | 'CREATE' | 'MOD' | 'VALUE' | 'LEASE' | 'UNKNOWN'
/** How a compare judges. 'UNKNOWN' stands for an undefined value: as in etcd, such a compare always holds. */
export type CompareResult = 'EQUAL' | 'GREATER' | 'LESS' | 'NOT_EQUAL' | 'UNKNOWN'

/**
 * One txn comparison. The operand is the field named by `target` (etcd's target_union); when that field
 * is absent the operand is zero (empty for VALUE), as in etcd. With rangeEnd, every key in the range must
 * satisfy the comparison. A missing key compares as a zero KeyValue, except for VALUE, which then fails.
 */
export interface Compare {
  readonly key: Uint8Array
  readonly rangeEnd?: Uint8Array
  readonly target: CompareTarget
  readonly result: CompareResult
  readonly version?: number
  readonly createRevision?: number
  readonly modRevision?: number
  readonly value?: Uint8Array
  readonly lease?: bigint
}

export type RequestOp =
  | { readonly type: 'range'; readonly request: RangeRequest }
  | { readonly type: 'put'; readonly request: PutRequest }
  | { readonly type: 'deleteRange'; readonly request: DeleteRangeRequest }
  | { readonly type: 'txn'; readonly request: TxnRequest }
  /** An op with no request set; etcd rejects it with "key not found". */
  | { readonly type: 'empty' }

export type ResponseOp =
  | { readonly type: 'range'; readonly response: RangeResponse }
  | { readonly type: 'put'; readonly response: PutResponse }
  | { readonly type: 'deleteRange'; readonly response: DeleteRangeResponse }
  | { readonly type: 'txn'; readonly response: TxnResponse }
  | { readonly type: 'empty' }

export interface TxnRequest {
  readonly compare?: readonly Compare[]
  readonly success?: readonly RequestOp[]
  readonly failure?: readonly RequestOp[]
}

export interface TxnResponse {
  readonly header: ResponseHeader
  readonly succeeded: boolean
  readonly responses: ResponseOp[]
}

export interface CompactionRequest {
  readonly revision: number
  /** Wait until the compaction has been applied to the backend. */
  readonly physical?: boolean
}

export interface CompactionResponse {
  readonly header: ResponseHeader
}
