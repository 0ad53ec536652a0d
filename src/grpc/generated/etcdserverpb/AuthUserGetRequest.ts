// Original file: proto/etcdserverpb/rpc.proto


export interface AuthUserGetRequest {
  'name'?: (string);
}

export interface AuthUserGetRequest__Output {
  'name': (string);
}
