// Original file: proto/etcdserverpb/rpc.proto


export interface SnapshotRequest {
}

export interface SnapshotRequest__Output {
}
