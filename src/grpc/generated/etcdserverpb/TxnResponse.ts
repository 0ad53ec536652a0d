// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { ResponseOp as _etcdserverpb_ResponseOp, ResponseOp__Output as _etcdserverpb_ResponseOp__Output } from '../etcdserverpb/ResponseOp.js';

export interface TxnResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'succeeded'?: (boolean);
  'responses'?: (_etcdserverpb_ResponseOp)[];
}

export interface TxnResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'succeeded': (boolean);
  'responses': (_etcdserverpb_ResponseOp__Output)[];
}
