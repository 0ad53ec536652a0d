// Original file: proto/etcdserverpb/rpc.proto


export interface MemberListRequest {
}

export interface MemberListRequest__Output {
}
