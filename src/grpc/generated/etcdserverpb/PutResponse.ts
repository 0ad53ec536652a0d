// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { KeyValue as _mvccpb_KeyValue, KeyValue__Output as _mvccpb_KeyValue__Output } from '../mvccpb/KeyValue.js';

export interface PutResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'prev_kv'?: (_mvccpb_KeyValue | null);
}

export interface PutResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'prev_kv': (_mvccpb_KeyValue__Output | null);
}
