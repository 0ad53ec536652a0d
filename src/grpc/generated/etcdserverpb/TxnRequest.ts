// Original file: proto/etcdserverpb/rpc.proto

import type { Compare as _etcdserverpb_Compare, Compare__Output as _etcdserverpb_Compare__Output } from '../etcdserverpb/Compare.js';
import type { RequestOp as _etcdserverpb_RequestOp, RequestOp__Output as _etcdserverpb_RequestOp__Output } from '../etcdserverpb/RequestOp.js';

export interface TxnRequest {
  'compare'?: (_etcdserverpb_Compare)[];
  'success'?: (_etcdserverpb_RequestOp)[];
  'failure'?: (_etcdserverpb_RequestOp)[];
}

export interface TxnRequest__Output {
  'compare': (_etcdserverpb_Compare__Output)[];
  'success': (_etcdserverpb_RequestOp__Output)[];
  'failure': (_etcdserverpb_RequestOp__Output)[];
}
