// Original file: proto/etcdserverpb/rpc.proto


export interface AuthDisableRequest {
}

export interface AuthDisableRequest__Output {
}
