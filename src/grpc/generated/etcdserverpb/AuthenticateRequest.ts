// Original file: proto/etcdserverpb/rpc.proto


export interface AuthenticateRequest {
  'name'?: (string);
  'password'?: (string);
}

export interface AuthenticateRequest__Output {
  'name': (string);
  'password': (string);
}
