// Original file: proto/etcdserverpb/rpc.proto


export interface AuthRoleListRequest {
}

export interface AuthRoleListRequest__Output {
}
