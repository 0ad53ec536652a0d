// Original file: proto/v3lockpb/v3lock.proto


export interface UnlockRequest {
  'key'?: (Buffer | Uint8Array | string);
}

export interface UnlockRequest__Output {
  'key': (Buffer);
}
