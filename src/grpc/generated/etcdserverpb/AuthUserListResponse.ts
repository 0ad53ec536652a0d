// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface AuthUserListResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'users'?: (string)[];
}

export interface AuthUserListResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'users': (string)[];
}
