// Original file: proto/etcdserverpb/rpc.proto


export interface AuthUserRevokeRoleRequest {
  'name'?: (string);
  'role'?: (string);
}

export interface AuthUserRevokeRoleRequest__Output {
  'name': (string);
  'role': (string);
}
