// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Long } from '@grpc/proto-loader';

export interface HashKVResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'hash'?: (number);
  'compact_revision'?: (number | string | Long);
}

export interface HashKVResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'hash': (number);
  'compact_revision': (string);
}
