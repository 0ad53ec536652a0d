// Original file: proto/v3lockpb/v3lock.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface UnlockResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
}

export interface UnlockResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
}
