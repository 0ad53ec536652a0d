// Original file: proto/etcdserverpb/rpc.proto


export interface AuthRoleGetRequest {
  'role'?: (string);
}

export interface AuthRoleGetRequest__Output {
  'role': (string);
}
