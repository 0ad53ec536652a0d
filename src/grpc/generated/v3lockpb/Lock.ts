// Original file: proto/v3lockpb/v3lock.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { LockRequest as _v3lockpb_LockRequest, LockRequest__Output as _v3lockpb_LockRequest__Output } from '../v3lockpb/LockRequest.js';
import type { LockResponse as _v3lockpb_LockResponse, LockResponse__Output as _v3lockpb_LockResponse__Output } from '../v3lockpb/LockResponse.js';
import type { UnlockRequest as _v3lockpb_UnlockRequest, UnlockRequest__Output as _v3lockpb_UnlockRequest__Output } from '../v3lockpb/UnlockRequest.js';
import type { UnlockResponse as _v3lockpb_UnlockResponse, UnlockResponse__Output as _v3lockpb_UnlockResponse__Output } from '../v3lockpb/UnlockResponse.js';

export interface LockClient extends grpc.Client {
  Lock(argument: _v3lockpb_LockRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3lockpb_LockResponse__Output>): grpc.ClientUnaryCall;
  Lock(argument: _v3lockpb_LockRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3lockpb_LockResponse__Output>): grpc.ClientUnaryCall;
  Lock(argument: _v3lockpb_LockRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3lockpb_LockResponse__Output>): grpc.ClientUnaryCall;
  Lock(argument: _v3lockpb_LockRequest, callback: grpc.requestCallback<_v3lockpb_LockResponse__Output>): grpc.ClientUnaryCall;
  lock(argument: _v3lockpb_LockRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3lockpb_LockResponse__Output>): grpc.ClientUnaryCall;
  lock(argument: _v3lockpb_LockRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3lockpb_LockResponse__Output>): grpc.ClientUnaryCall;
  lock(argument: _v3lockpb_LockRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3lockpb_LockResponse__Output>): grpc.ClientUnaryCall;
  lock(argument: _v3lockpb_LockRequest, callback: grpc.requestCallback<_v3lockpb_LockResponse__Output>): grpc.ClientUnaryCall;
  
  Unlock(argument: _v3lockpb_UnlockRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3lockpb_UnlockResponse__Output>): grpc.ClientUnaryCall;
  Unlock(argument: _v3lockpb_UnlockRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3lockpb_UnlockResponse__Output>): grpc.ClientUnaryCall;
  Unlock(argument: _v3lockpb_UnlockRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3lockpb_UnlockResponse__Output>): grpc.ClientUnaryCall;
  Unlock(argument: _v3lockpb_UnlockRequest, callback: grpc.requestCallback<_v3lockpb_UnlockResponse__Output>): grpc.ClientUnaryCall;
  unlock(argument: _v3lockpb_UnlockRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3lockpb_UnlockResponse__Output>): grpc.ClientUnaryCall;
  unlock(argument: _v3lockpb_UnlockRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3lockpb_UnlockResponse__Output>): grpc.ClientUnaryCall;
  unlock(argument: _v3lockpb_UnlockRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3lockpb_UnlockResponse__Output>): grpc.ClientUnaryCall;
  unlock(argument: _v3lockpb_UnlockRequest, callback: grpc.requestCallback<_v3lockpb_UnlockResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface LockHandlers extends grpc.UntypedServiceImplementation {
  Lock: grpc.handleUnaryCall<_v3lockpb_LockRequest__Output, _v3lockpb_LockResponse>;
  
  Unlock: grpc.handleUnaryCall<_v3lockpb_UnlockRequest__Output, _v3lockpb_UnlockResponse>;
  
}

export interface LockDefinition extends grpc.ServiceDefinition {
  Lock: MethodDefinition<_v3lockpb_LockRequest, _v3lockpb_LockResponse, _v3lockpb_LockRequest__Output, _v3lockpb_LockResponse__Output>
  Unlock: MethodDefinition<_v3lockpb_UnlockRequest, _v3lockpb_UnlockResponse, _v3lockpb_UnlockRequest__Output, _v3lockpb_UnlockResponse__Output>
}
