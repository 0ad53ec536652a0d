// Original file: proto/etcdserverpb/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseCheckpoint {
  'ID'?: (number | string | Long);
  'remaining_TTL'?: (number | string | Long);
}

export interface LeaseCheckpoint__Output {
  'ID': (string);
  'remaining_TTL': (string);
}
