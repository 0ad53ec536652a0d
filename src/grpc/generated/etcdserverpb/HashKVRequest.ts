// Original file: proto/etcdserverpb/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface HashKVRequest {
  'revision'?: (number | string | Long);
}

export interface HashKVRequest__Output {
  'revision': (string);
}
