// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Member as _etcdserverpb_Member, Member__Output as _etcdserverpb_Member__Output } from '../etcdserverpb/Member.js';

export interface MemberUpdateResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'members'?: (_etcdserverpb_Member)[];
}

export interface MemberUpdateResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'members': (_etcdserverpb_Member__Output)[];
}
