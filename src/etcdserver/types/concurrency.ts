// Requests and responses of etcd's concurrency services, v3lock (Lock, Unlock) and v3election (Campaign, Proclaim, Leader, Observe, Resign).
// Domain form: camelCase, Uint8Array keys and values, number revisions (checked safe at the edge), bigint IDs;
// optional request fields default to etcd's proto3 zero values.
import type { ResponseHeader } from './header.js'
import type { KeyValue } from './kv.js'

/**
 * Acquire the lock `name` (etcd's v3lock Lock). The lock key is `name + "/" + lease ID in hex`, attached to
 * the lease, so the lock goes away with the lease. `lease` 0n (or absent): the server grants a 60 s lease
 * of its own and never renews it, as etcd does.
 */
export interface LockRequest {
  readonly name: Uint8Array
  readonly lease?: bigint
}

export interface LockResponse {
  readonly header: ResponseHeader
  /** The key that exists while the caller holds the lock; Unlock takes it. */
  readonly key: Uint8Array
}

export interface UnlockRequest {
  readonly key: Uint8Array
}

export interface UnlockResponse {
  readonly header: ResponseHeader
}

/** A leadership (etcd's v3election LeaderKey): what Campaign returns and Proclaim and Resign take. */
export interface LeaderKey {
  /** The election name. */
  readonly name: Uint8Array
  /** The candidate key: `name + "/" + lease ID in hex`. */
  readonly key: Uint8Array
  /** The candidate key's create revision; Proclaim and Resign act only while the key still has it. */
  readonly rev: number
  readonly lease: bigint
}

/** Campaign in election `name` with `value`. `lease` 0n (or absent): a 60 s server-granted lease, as in etcd. */
export interface CampaignRequest {
  readonly name: Uint8Array
  readonly lease?: bigint
  readonly value?: Uint8Array
}

export interface CampaignResponse {
  readonly header: ResponseHeader
  readonly leader: LeaderKey
}

/** Set the leader's value; `leader` absent fails with etcd's `"leader" field must be provided`. */
export interface ProclaimRequest {
  readonly leader?: LeaderKey
  readonly value?: Uint8Array
}

export interface ProclaimResponse {
  readonly header: ResponseHeader
}

/** Leader and Observe: the election `name`. */
export interface LeaderRequest {
  readonly name: Uint8Array
}

/** The leader: the candidate key with the lowest create revision under `name + "/"`. */
export interface LeaderResponse {
  readonly header: ResponseHeader
  readonly kv: KeyValue
}

export interface ResignRequest {
  readonly leader?: LeaderKey
}

export interface ResignResponse {
  readonly header: ResponseHeader
}
