// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Long } from '@grpc/proto-loader';

export interface AuthStatusResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'enabled'?: (boolean);
  'authRevision'?: (number | string | Long);
}

export interface AuthStatusResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'enabled': (boolean);
  'authRevision': (string);
}
