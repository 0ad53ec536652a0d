// Original file: proto/authpb/auth.proto


export interface UserAddOptions {
  'no_password'?: (boolean);
}

export interface UserAddOptions__Output {
  'no_password': (boolean);
}
