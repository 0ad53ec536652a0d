// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { KeyValue as _mvccpb_KeyValue, KeyValue__Output as _mvccpb_KeyValue__Output } from '../mvccpb/KeyValue.js';
import type { Long } from '@grpc/proto-loader';

export interface DeleteRangeResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'deleted'?: (number | string | Long);
  'prev_kvs'?: (_mvccpb_KeyValue)[];
}

export interface DeleteRangeResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'deleted': (string);
  'prev_kvs': (_mvccpb_KeyValue__Output)[];
}
