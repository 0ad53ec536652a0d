// Original file: proto/etcdserverpb/rpc.proto

import type { Long } from '@grpc/proto-loader';

export interface PutRequest {
  'key'?: (Buffer | Uint8Array | string);
  'value'?: (Buffer | Uint8Array | string);
  'lease'?: (number | string | Long);
  'prev_kv'?: (boolean);
  'ignore_value'?: (boolean);
  'ignore_lease'?: (boolean);
}

export interface PutRequest__Output {
  'key': (Buffer);
  'value': (Buffer);
  'lease': (string);
  'prev_kv': (boolean);
  'ignore_value': (boolean);
  'ignore_lease': (boolean);
}
