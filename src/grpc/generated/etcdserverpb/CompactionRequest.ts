// Original file: proto/etcdserverpb/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface CompactionRequest {
  'revision'?: (number | string | Long);
  'physical'?: (boolean);
}

export interface CompactionRequest__Output {
  'revision': (string);
  'physical': (boolean);
}
