// Original file: proto/etcdserverpb/rpc.proto


export interface AuthRoleRevokePermissionRequest {
  'role'?: (string);
  'key'?: (Buffer | Uint8Array | string);
  'range_end'?: (Buffer | Uint8Array | string);
}

export interface AuthRoleRevokePermissionRequest__Output {
  'role': (string);
  'key': (Buffer);
  'range_end': (Buffer);
}
