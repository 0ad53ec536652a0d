// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface AuthUserChangePasswordResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
}

export interface AuthUserChangePasswordResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
}
