// Original file: proto/etcdserverpb/rpc.proto


export interface AuthUserDeleteRequest {
  'name'?: (string);
}

export interface AuthUserDeleteRequest__Output {
  'name': (string);
}
