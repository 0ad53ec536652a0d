// Original file: proto/v3electionpb/v3election.proto

import type { Long } from '@grpc/proto-loader';

export interface CampaignRequest {
  'name'?: (Buffer | Uint8Array | string);
  'lease'?: (number | string | Long);
  'value'?: (Buffer | Uint8Array | string);
}

export interface CampaignRequest__Output {
  'name': (Buffer);
  'lease': (string);
  'value': (Buffer);
}
