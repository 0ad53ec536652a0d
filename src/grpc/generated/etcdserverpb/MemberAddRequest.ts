// Original file: proto/etcdserverpb/rpc.proto


export interface MemberAddRequest {
  'peerURLs'?: (string)[];
  'isLearner'?: (boolean);
}

export interface MemberAddRequest__Output {
  'peerURLs': (string)[];
  'isLearner': (boolean);
}
