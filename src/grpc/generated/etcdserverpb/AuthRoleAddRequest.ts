// Original file: proto/etcdserverpb/rpc.proto


export interface AuthRoleAddRequest {
  'name'?: (string);
}

export interface AuthRoleAddRequest__Output {
  'name': (string);
}
