// Original file: proto/v3electionpb/v3election.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaderKey {
  'name'?: (Buffer | Uint8Array | string);
  'key'?: (Buffer | Uint8Array | string);
  'rev'?: (number | string | Long);
  'lease'?: (number | string | Long);
}

export interface LeaderKey__Output {
  'name': (Buffer);
  'key': (Buffer);
  'rev': (string);
  'lease': (string);
}
