// Requests and responses of etcd's Cluster service (MemberList, MemberAdd, MemberRemove, MemberUpdate, MemberPromote).
// Domain form: camelCase, Uint8Array keys and values, number revisions (checked safe at the edge), bigint IDs;
// optional request fields default to etcd's proto3 zero values.
import type { ResponseHeader } from './header.js'

/** A cluster member as MemberList shows it. */
export interface Member {
  readonly id: bigint
  readonly name: string
  readonly peerUrls: readonly string[]
  readonly clientUrls: readonly string[]
  readonly isLearner: boolean
}

/**
 * MemberList. `linearizable` (etcd 3.5) asks for the list only after a linearizable read barrier; a
 * one-member server's list is always current, so it changes nothing but is accepted.
 */
export interface MemberListRequest {
  readonly linearizable?: boolean
}

/** MemberList's header has no revision, as etcd's cluster service sends it. */
export interface MemberListResponse {
  readonly header: ResponseHeader
  readonly members: Member[]
}

export interface MemberAddRequest {
  readonly peerUrls: readonly string[]
  readonly isLearner?: boolean
}

export interface MemberRemoveRequest {
  readonly id: bigint
}

export interface MemberUpdateRequest {
  readonly id: bigint
  readonly peerUrls: readonly string[]
}

export interface MemberPromoteRequest {
  readonly id: bigint
}
