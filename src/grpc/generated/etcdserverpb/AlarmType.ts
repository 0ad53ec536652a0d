// Original file: proto/etcdserverpb/rpc.proto

export const AlarmType = {
  NONE: 'NONE',
  NOSPACE: 'NOSPACE',
  CORRUPT: 'CORRUPT',
} as const;

export type AlarmType =
  | 'NONE'
  | 0
  | 'NOSPACE'
  | 1
  | 'CORRUPT'
  | 2

export type AlarmType__Output = typeof AlarmType[keyof typeof AlarmType]
