// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { LeaseStatus as _etcdserverpb_LeaseStatus, LeaseStatus__Output as _etcdserverpb_LeaseStatus__Output } from '../etcdserverpb/LeaseStatus.js';

export interface LeaseLeasesResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'leases'?: (_etcdserverpb_LeaseStatus)[];
}

export interface LeaseLeasesResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'leases': (_etcdserverpb_LeaseStatus__Output)[];
}
