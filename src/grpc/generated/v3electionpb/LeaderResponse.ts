// Original file: proto/v3electionpb/v3election.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { KeyValue as _mvccpb_KeyValue, KeyValue__Output as _mvccpb_KeyValue__Output } from '../mvccpb/KeyValue.js';

export interface LeaderResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'kv'?: (_mvccpb_KeyValue | null);
}

export interface LeaderResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'kv': (_mvccpb_KeyValue__Output | null);
}
