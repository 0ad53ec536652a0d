// Original file: proto/etcdserverpb/rpc.proto


export interface AuthUserListRequest {
}

export interface AuthUserListRequest__Output {
}
