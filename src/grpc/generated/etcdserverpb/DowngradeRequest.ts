// Original file: proto/etcdserverpb/rpc.proto


// Original file: proto/etcdserverpb/rpc.proto

export const _etcdserverpb_DowngradeRequest_DowngradeAction = {
  VALIDATE: 'VALIDATE',
  ENABLE: 'ENABLE',
  CANCEL: 'CANCEL',
} as const;

export type _etcdserverpb_DowngradeRequest_DowngradeAction =
  | 'VALIDATE'
  | 0
  | 'ENABLE'
  | 1
  | 'CANCEL'
  | 2

export type _etcdserverpb_DowngradeRequest_DowngradeAction__Output = typeof _etcdserverpb_DowngradeRequest_DowngradeAction[keyof typeof _etcdserverpb_DowngradeRequest_DowngradeAction]

export interface DowngradeRequest {
  'action'?: (_etcdserverpb_DowngradeRequest_DowngradeAction);
  'version'?: (string);
}

export interface DowngradeRequest__Output {
  'action': (_etcdserverpb_DowngradeRequest_DowngradeAction__Output);
  'version': (string);
}
