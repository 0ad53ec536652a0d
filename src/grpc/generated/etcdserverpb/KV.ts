// Original file: proto/etcdserverpb/rpc.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CompactionRequest as _etcdserverpb_CompactionRequest, CompactionRequest__Output as _etcdserverpb_CompactionRequest__Output } from '../etcdserverpb/CompactionRequest.js';
import type { CompactionResponse as _etcdserverpb_CompactionResponse, CompactionResponse__Output as _etcdserverpb_CompactionResponse__Output } from '../etcdserverpb/CompactionResponse.js';
import type { DeleteRangeRequest as _etcdserverpb_DeleteRangeRequest, DeleteRangeRequest__Output as _etcdserverpb_DeleteRangeRequest__Output } from '../etcdserverpb/DeleteRangeRequest.js';
import type { DeleteRangeResponse as _etcdserverpb_DeleteRangeResponse, DeleteRangeResponse__Output as _etcdserverpb_DeleteRangeResponse__Output } from '../etcdserverpb/DeleteRangeResponse.js';
import type { PutRequest as _etcdserverpb_PutRequest, PutRequest__Output as _etcdserverpb_PutRequest__Output } from '../etcdserverpb/PutRequest.js';
import type { PutResponse as _etcdserverpb_PutResponse, PutResponse__Output as _etcdserverpb_PutResponse__Output } from '../etcdserverpb/PutResponse.js';
import type { RangeRequest as _etcdserverpb_RangeRequest, RangeRequest__Output as _etcdserverpb_RangeRequest__Output } from '../etcdserverpb/RangeRequest.js';
import type { RangeResponse as _etcdserverpb_RangeResponse, RangeResponse__Output as _etcdserverpb_RangeResponse__Output } from '../etcdserverpb/RangeResponse.js';
import type { TxnRequest as _etcdserverpb_TxnRequest, TxnRequest__Output as _etcdserverpb_TxnRequest__Output } from '../etcdserverpb/TxnRequest.js';
import type { TxnResponse as _etcdserverpb_TxnResponse, TxnResponse__Output as _etcdserverpb_TxnResponse__Output } from '../etcdserverpb/TxnResponse.js';

export interface KVClient extends grpc.Client {
  Compact(argument: _etcdserverpb_CompactionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_CompactionResponse__Output>): grpc.ClientUnaryCall;
  Compact(argument: _etcdserverpb_CompactionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_CompactionResponse__Output>): grpc.ClientUnaryCall;
  Compact(argument: _etcdserverpb_CompactionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_CompactionResponse__Output>): grpc.ClientUnaryCall;
  Compact(argument: _etcdserverpb_CompactionRequest, callback: grpc.requestCallback<_etcdserverpb_CompactionResponse__Output>): grpc.ClientUnaryCall;
  compact(argument: _etcdserverpb_CompactionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_CompactionResponse__Output>): grpc.ClientUnaryCall;
  compact(argument: _etcdserverpb_CompactionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_CompactionResponse__Output>): grpc.ClientUnaryCall;
  compact(argument: _etcdserverpb_CompactionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_CompactionResponse__Output>): grpc.ClientUnaryCall;
  compact(argument: _etcdserverpb_CompactionRequest, callback: grpc.requestCallback<_etcdserverpb_CompactionResponse__Output>): grpc.ClientUnaryCall;
  
  DeleteRange(argument: _etcdserverpb_DeleteRangeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DeleteRangeResponse__Output>): grpc.ClientUnaryCall;
  DeleteRange(argument: _etcdserverpb_DeleteRangeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_DeleteRangeResponse__Output>): grpc.ClientUnaryCall;
  DeleteRange(argument: _etcdserverpb_DeleteRangeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DeleteRangeResponse__Output>): grpc.ClientUnaryCall;
  DeleteRange(argument: _etcdserverpb_DeleteRangeRequest, callback: grpc.requestCallback<_etcdserverpb_DeleteRangeResponse__Output>): grpc.ClientUnaryCall;
  deleteRange(argument: _etcdserverpb_DeleteRangeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DeleteRangeResponse__Output>): grpc.ClientUnaryCall;
  deleteRange(argument: _etcdserverpb_DeleteRangeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_DeleteRangeResponse__Output>): grpc.ClientUnaryCall;
  deleteRange(argument: _etcdserverpb_DeleteRangeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_DeleteRangeResponse__Output>): grpc.ClientUnaryCall;
  deleteRange(argument: _etcdserverpb_DeleteRangeRequest, callback: grpc.requestCallback<_etcdserverpb_DeleteRangeResponse__Output>): grpc.ClientUnaryCall;
  
  Put(argument: _etcdserverpb_PutRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_PutResponse__Output>): grpc.ClientUnaryCall;
  Put(argument: _etcdserverpb_PutRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_PutResponse__Output>): grpc.ClientUnaryCall;
  Put(argument: _etcdserverpb_PutRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_PutResponse__Output>): grpc.ClientUnaryCall;
  Put(argument: _etcdserverpb_PutRequest, callback: grpc.requestCallback<_etcdserverpb_PutResponse__Output>): grpc.ClientUnaryCall;
  put(argument: _etcdserverpb_PutRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_PutResponse__Output>): grpc.ClientUnaryCall;
  put(argument: _etcdserverpb_PutRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_PutResponse__Output>): grpc.ClientUnaryCall;
  put(argument: _etcdserverpb_PutRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_PutResponse__Output>): grpc.ClientUnaryCall;
  put(argument: _etcdserverpb_PutRequest, callback: grpc.requestCallback<_etcdserverpb_PutResponse__Output>): grpc.ClientUnaryCall;
  
  Range(argument: _etcdserverpb_RangeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_RangeResponse__Output>): grpc.ClientUnaryCall;
  Range(argument: _etcdserverpb_RangeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_RangeResponse__Output>): grpc.ClientUnaryCall;
  Range(argument: _etcdserverpb_RangeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_RangeResponse__Output>): grpc.ClientUnaryCall;
  Range(argument: _etcdserverpb_RangeRequest, callback: grpc.requestCallback<_etcdserverpb_RangeResponse__Output>): grpc.ClientUnaryCall;
  range(argument: _etcdserverpb_RangeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_RangeResponse__Output>): grpc.ClientUnaryCall;
  range(argument: _etcdserverpb_RangeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_RangeResponse__Output>): grpc.ClientUnaryCall;
  range(argument: _etcdserverpb_RangeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_RangeResponse__Output>): grpc.ClientUnaryCall;
  range(argument: _etcdserverpb_RangeRequest, callback: grpc.requestCallback<_etcdserverpb_RangeResponse__Output>): grpc.ClientUnaryCall;
  
  Txn(argument: _etcdserverpb_TxnRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_TxnResponse__Output>): grpc.ClientUnaryCall;
  Txn(argument: _etcdserverpb_TxnRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_TxnResponse__Output>): grpc.ClientUnaryCall;
  Txn(argument: _etcdserverpb_TxnRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_TxnResponse__Output>): grpc.ClientUnaryCall;
  Txn(argument: _etcdserverpb_TxnRequest, callback: grpc.requestCallback<_etcdserverpb_TxnResponse__Output>): grpc.ClientUnaryCall;
  txn(argument: _etcdserverpb_TxnRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_TxnResponse__Output>): grpc.ClientUnaryCall;
  txn(argument: _etcdserverpb_TxnRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_etcdserverpb_TxnResponse__Output>): grpc.ClientUnaryCall;
  txn(argument: _etcdserverpb_TxnRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_etcdserverpb_TxnResponse__Output>): grpc.ClientUnaryCall;
  txn(argument: _etcdserverpb_TxnRequest, callback: grpc.requestCallback<_etcdserverpb_TxnResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface KVHandlers extends grpc.UntypedServiceImplementation {
  Compact: grpc.handleUnaryCall<_etcdserverpb_CompactionRequest__Output, _etcdserverpb_CompactionResponse>;
  
  DeleteRange: grpc.handleUnaryCall<_etcdserverpb_DeleteRangeRequest__Output, _etcdserverpb_DeleteRangeResponse>;
  
  Put: grpc.handleUnaryCall<_etcdserverpb_PutRequest__Output, _etcdserverpb_PutResponse>;
  
  Range: grpc.handleUnaryCall<_etcdserverpb_RangeRequest__Output, _etcdserverpb_RangeResponse>;
  
  Txn: grpc.handleUnaryCall<_etcdserverpb_TxnRequest__Output, _etcdserverpb_TxnResponse>;
  
}

export interface KVDefinition extends grpc.ServiceDefinition {
  Compact: MethodDefinition<_etcdserverpb_CompactionRequest, _etcdserverpb_CompactionResponse, _etcdserverpb_CompactionRequest__Output, _etcdserverpb_CompactionResponse__Output>
  DeleteRange: MethodDefinition<_etcdserverpb_DeleteRangeRequest, _etcdserverpb_DeleteRangeResponse, _etcdserverpb_DeleteRangeRequest__Output, _etcdserverpb_DeleteRangeResponse__Output>
  Put: MethodDefinition<_etcdserverpb_PutRequest, _etcdserverpb_PutResponse, _etcdserverpb_PutRequest__Output, _etcdserverpb_PutResponse__Output>
  Range: MethodDefinition<_etcdserverpb_RangeRequest, _etcdserverpb_RangeResponse, _etcdserverpb_RangeRequest__Output, _etcdserverpb_RangeResponse__Output>
  Txn: MethodDefinition<_etcdserverpb_TxnRequest, _etcdserverpb_TxnResponse, _etcdserverpb_TxnRequest__Output, _etcdserverpb_TxnResponse__Output>
}
