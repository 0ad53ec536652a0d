// Original file: proto/etcdserverpb/rpc.proto


export interface StatusRequest {
}

export interface StatusRequest__Output {
}
