// Original file: proto/v3lockpb/v3lock.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface LockResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'key'?: (Buffer | Uint8Array | string);
}

export interface LockResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'key': (Buffer);
}
