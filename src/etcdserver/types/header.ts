// The header every etcd v3 response carries.

export interface ResponseHeader {
  readonly clusterId: bigint
  readonly memberId: bigint
  readonly revision: number
  readonly raftTerm: number
}
