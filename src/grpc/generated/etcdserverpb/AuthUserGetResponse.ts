// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface AuthUserGetResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'roles'?: (string)[];
}

export interface AuthUserGetResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'roles': (string)[];
}
