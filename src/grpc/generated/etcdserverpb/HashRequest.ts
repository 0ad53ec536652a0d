// Original file: proto/etcdserverpb/rpc.proto


export interface HashRequest {
}

export interface HashRequest__Output {
}
