// Original file: proto/etcdserverpb/rpc.proto


export interface AuthUserGrantRoleRequest {
  'user'?: (string);
  'role'?: (string);
}

export interface AuthUserGrantRoleRequest__Output {
  'user': (string);
  'role': (string);
}
