// Original file: proto/etcdserverpb/rpc.proto

import type { Permission as _authpb_Permission, Permission__Output as _authpb_Permission__Output } from '../authpb/Permission.js';

export interface AuthRoleGrantPermissionRequest {
  'name'?: (string);
  'perm'?: (_authpb_Permission | null);
}

export interface AuthRoleGrantPermissionRequest__Output {
  'name': (string);
  'perm': (_authpb_Permission__Output | null);
}
