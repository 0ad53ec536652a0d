// Original file: proto/etcdserverpb/rpc.proto


export interface DefragmentRequest {
}

export interface DefragmentRequest__Output {
}
