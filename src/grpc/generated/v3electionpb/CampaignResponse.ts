// Original file: proto/v3electionpb/v3election.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { LeaderKey as _v3electionpb_LeaderKey, LeaderKey__Output as _v3electionpb_LeaderKey__Output } from '../v3electionpb/LeaderKey.js';

export interface CampaignResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'leader'?: (_v3electionpb_LeaderKey | null);
}

export interface CampaignResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'leader': (_v3electionpb_LeaderKey__Output | null);
}
