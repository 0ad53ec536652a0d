// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface HashResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'hash'?: (number);
}

export interface HashResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'hash': (number);
}
