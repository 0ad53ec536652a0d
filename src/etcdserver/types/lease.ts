// Requests and responses of etcd's Lease service.
// Domain form: camelCase, Uint8Array keys and values, number revisions (checked safe at the edge), bigint IDs;
// optional request fields default to etcd's proto3 zero values.
import type { ResponseHeader } from './header.js'

/** Grant a lease. `id` 0n (or absent): the server picks a random positive ID. `ttl` in seconds. */
export interface LeaseGrantRequest {
  readonly ttl: number
  readonly id?: bigint
}

export interface LeaseGrantResponse {
  readonly header: ResponseHeader
  readonly id: bigint
  /** The TTL granted: the requested one, raised to the minimum TTL. */
  readonly ttl: number
  /** Always empty; etcd reports failures as errors, not here. */
  readonly error: string
}

export interface LeaseRevokeRequest {
  readonly id: bigint
}

export interface LeaseRevokeResponse {
  readonly header: ResponseHeader
}

export interface LeaseKeepAliveRequest {
  readonly id: bigint
}

/** TTL 0 means the lease does not exist (it expired or was revoked); that is not an error. */
export interface LeaseKeepAliveResponse {
  readonly header: ResponseHeader
  readonly id: bigint
  readonly ttl: number
}

export interface LeaseTimeToLiveRequest {
  readonly id: bigint
  /** Also list the keys attached to the lease. */
  readonly keys?: boolean
}

/** For an unknown lease TTL is -1 and grantedTtl 0 (not an error). */
export interface LeaseTimeToLiveResponse {
  readonly header: ResponseHeader
  readonly id: bigint
  /** Whole seconds left before expiry. */
  readonly ttl: number
  readonly grantedTtl: number
  readonly keys: Uint8Array[]
}

export interface LeaseStatus {
  readonly id: bigint
}

export interface LeaseLeasesResponse {
  readonly header: ResponseHeader
  readonly leases: LeaseStatus[]
}
