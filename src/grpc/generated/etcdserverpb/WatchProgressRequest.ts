// Original file: proto/etcdserverpb/rpc.proto


export interface WatchProgressRequest {
}

export interface WatchProgressRequest__Output {
}
