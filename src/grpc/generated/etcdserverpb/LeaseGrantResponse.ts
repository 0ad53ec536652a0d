// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Long } from '@grpc/proto-loader';

export interface LeaseGrantResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'ID'?: (number | string | Long);
  'TTL'?: (number | string | Long);
  'error'?: (string);
}

export interface LeaseGrantResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'ID': (string);
  'TTL': (string);
  'error': (string);
}
