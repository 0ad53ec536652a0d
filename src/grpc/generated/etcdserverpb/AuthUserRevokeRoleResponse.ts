// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface AuthUserRevokeRoleResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
}

export interface AuthUserRevokeRoleResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
}
