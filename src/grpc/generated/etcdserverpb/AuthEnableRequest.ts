// Original file: proto/etcdserverpb/rpc.proto


export interface AuthEnableRequest {
}

export interface AuthEnableRequest__Output {
}
