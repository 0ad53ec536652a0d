// Original file: proto/etcdserverpb/rpc.proto


export interface LeaseLeasesRequest {
}

export interface LeaseLeasesRequest__Output {
}
