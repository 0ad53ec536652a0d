// Original file: proto/v3electionpb/v3election.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';

export interface ProclaimResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
}

export interface ProclaimResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
}
