// Original file: proto/etcdserverpb/rpc.proto


export interface AuthRoleDeleteRequest {
  'role'?: (string);
}

export interface AuthRoleDeleteRequest__Output {
  'role': (string);
}
