// Original file: proto/v3electionpb/v3election.proto


export interface LeaderRequest {
  'name'?: (Buffer | Uint8Array | string);
}

export interface LeaderRequest__Output {
  'name': (Buffer);
}
