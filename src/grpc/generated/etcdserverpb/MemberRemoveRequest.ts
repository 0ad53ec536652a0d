// Original file: proto/etcdserverpb/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface MemberRemoveRequest {
  'ID'?: (number | string | Long);
}

export interface MemberRemoveRequest__Output {
  'ID': (string);
}
