// Original file: proto/etcdserverpb/rpc.proto


export interface AuthStatusRequest {
}

export interface AuthStatusRequest__Output {
}
