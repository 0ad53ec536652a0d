// Original file: proto/authpb/auth.proto

import type { Permission as _authpb_Permission, Permission__Output as _authpb_Permission__Output } from '../authpb/Permission.js';

export interface Role {
  'name'?: (Buffer | Uint8Array | string);
  'keyPermission'?: (_authpb_Permission)[];
}

export interface Role__Output {
  'name': (Buffer);
  'keyPermission': (_authpb_Permission__Output)[];
}
