// Original file: proto/etcdserverpb/rpc.proto


export interface AuthUserChangePasswordRequest {
  'name'?: (string);
  'password'?: (string);
  'hashedPassword'?: (string);
}

export interface AuthUserChangePasswordRequest__Output {
  'name': (string);
  'password': (string);
  'hashedPassword': (string);
}
