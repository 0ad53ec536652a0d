// Original file: proto/v3lockpb/v3lock.proto

import type { Long } from '@grpc/proto-loader';

export interface LockRequest {
  'name'?: (Buffer | Uint8Array | string);
  'lease'?: (number | string | Long);
}

export interface LockRequest__Output {
  'name': (Buffer);
  'lease': (string);
}
