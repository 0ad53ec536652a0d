// Original file: proto/v3electionpb/v3election.proto

import type { LeaderKey as _v3electionpb_LeaderKey, LeaderKey__Output as _v3electionpb_LeaderKey__Output } from '../v3electionpb/LeaderKey.js';

export interface ProclaimRequest {
  'leader'?: (_v3electionpb_LeaderKey | null);
  'value'?: (Buffer | Uint8Array | string);
}

export interface ProclaimRequest__Output {
  'leader': (_v3electionpb_LeaderKey__Output | null);
  'value': (Buffer);
}
