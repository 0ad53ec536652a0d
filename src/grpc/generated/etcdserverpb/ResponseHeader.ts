// Original file: proto/etcdserverpb/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface ResponseHeader {
  'cluster_id'?: (number | string | Long);
  'member_id'?: (number | string | Long);
  'revision'?: (number | string | Long);
  'raft_term'?: (number | string | Long);
}

export interface ResponseHeader__Output {
  'cluster_id': (string);
  'member_id': (string);
  'revision': (string);
  'raft_term': (string);
}
