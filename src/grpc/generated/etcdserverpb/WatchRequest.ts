// Original file: proto/etcdserverpb/rpc.proto

import type { WatchCreateRequest as _etcdserverpb_WatchCreateRequest, WatchCreateRequest__Output as _etcdserverpb_WatchCreateRequest__Output } from '../etcdserverpb/WatchCreateRequest.js';
import type { WatchCancelRequest as _etcdserverpb_WatchCancelRequest, WatchCancelRequest__Output as _etcdserverpb_WatchCancelRequest__Output } from '../etcdserverpb/WatchCancelRequest.js';
import type { WatchProgressRequest as _etcdserverpb_WatchProgressRequest, WatchProgressRequest__Output as _etcdserverpb_WatchProgressRequest__Output } from '../etcdserverpb/WatchProgressRequest.js';

export interface WatchRequest {
  'create_request'?: (_etcdserverpb_WatchCreateRequest | null);
  'cancel_request'?: (_etcdserverpb_WatchCancelRequest | null);
  'progress_request'?: (_etcdserverpb_WatchProgressRequest | null);
  'request_union'?: "create_request"|"cancel_request"|"progress_request";
}

export interface WatchRequest__Output {
  'create_request'?: (_etcdserverpb_WatchCreateRequest__Output | null);
  'cancel_request'?: (_etcdserverpb_WatchCancelRequest__Output | null);
  'progress_request'?: (_etcdserverpb_WatchProgressRequest__Output | null);
  'request_union'?: "create_request"|"cancel_request"|"progress_request";
}
