// Original file: proto/etcdserverpb/rpc.proto


export interface MemberListRequest {
  'linearizable'?: (boolean);
}

export interface MemberListRequest__Output {
  'linearizable': (boolean);
}
