// Original file: proto/v3electionpb/v3election.proto

import type { LeaderKey as _v3electionpb_LeaderKey, LeaderKey__Output as _v3electionpb_LeaderKey__Output } from '../v3electionpb/LeaderKey.js';

export interface ResignRequest {
  'leader'?: (_v3electionpb_LeaderKey | null);
}

export interface ResignRequest__Output {
  'leader': (_v3electionpb_LeaderKey__Output | null);
}
