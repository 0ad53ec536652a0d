// Requests and responses of etcd's Maintenance service (Status, Hash, HashKV, Snapshot, Alarm, MoveLeader, Downgrade).
// Domain form: camelCase, Uint8Array keys and values, number revisions (checked safe at the edge), bigint IDs;
// optional request fields default to etcd's proto3 zero values.
import type { ResponseHeader } from './header.js'

/** etcd's Status, for a one-member server. */
export interface StatusResponse {
  readonly header: ResponseHeader
  /** The etcd version reported to clients (the `etcdVersion` option). */
  readonly version: string
  /** Bytes the backend occupies (see Backend.size()). */
  readonly dbSize: number
  /** Bytes in use: LevelDB has no free pages to report, so this equals dbSize. */
  readonly dbSizeInUse: number
  /** Always this member. */
  readonly leader: bigint
  /** The current revision plus the writes that take no revision (leases, compactions, alarms). */
  readonly raftIndex: number
  readonly raftTerm: number
  /** Equal to raftIndex: what is committed is applied. */
  readonly raftAppliedIndex: number
  /** Raised alarms, in etcd's text form (`memberID:… alarm:NOSPACE `). */
  readonly errors: string[]
  readonly isLearner: boolean
}

export interface HashResponse {
  readonly header: ResponseHeader
  /** CRC-32C over every bucket of the backend. */
  readonly hash: number
}

/** HashKV up to `revision`; 0 (or absent) means the current revision. */
export interface HashKVRequest {
  readonly revision?: number
}

export interface HashKVResponse {
  /** header.revision is the current revision, as etcd reports it. */
  readonly header: ResponseHeader
  readonly hash: number
  /** The compacted revision (-1 before any compaction). */
  readonly compactRevision: number
}

/**
 * One chunk of a snapshot stream. The first chunk carries the header; `remainingBytes` counts the data
 * still to come; the last chunk holds the SHA-256 of everything before it, with `remainingBytes` 0.
 */
export interface SnapshotChunk {
  readonly header?: ResponseHeader
  readonly remainingBytes: number
  readonly blob: Uint8Array
}

export type AlarmType = 'NONE' | 'NOSPACE' | 'CORRUPT'
export type AlarmAction = 'GET' | 'ACTIVATE' | 'DEACTIVATE'

/** An alarm raised for a member. */
export interface AlarmMember {
  readonly memberId: bigint
  readonly alarm: AlarmType
}

/**
 * GET lists raised alarms of `alarm` (NONE or absent: all); ACTIVATE raises `alarm` for `memberId` (NONE
 * raises nothing); DEACTIVATE clears it.
 */
export interface AlarmRequest {
  readonly action: AlarmAction
  readonly memberId?: bigint
  readonly alarm?: AlarmType
}

/** As in etcd the response carries no header. */
export interface AlarmResponse {
  /** GET: the alarms; ACTIVATE/DEACTIVATE: the alarm raised or cleared (none if nothing changed). */
  readonly alarms: AlarmMember[]
}

export interface MoveLeaderRequest {
  readonly targetId: bigint
}

/** What a Downgrade call asks for (etcd 3.5's DowngradeRequest.DowngradeAction). */
export type DowngradeAction = 'VALIDATE' | 'ENABLE' | 'CANCEL'

/**
 * Downgrade: VALIDATE checks that `version` is the allowed target (one minor version below the cluster
 * version, given as major.minor or a full version) and that no downgrade is in progress; ENABLE checks
 * the same and starts it; CANCEL stops it. `action` defaults to VALIDATE and `version` to "", as on the
 * wire. A number is an action etcd's enum does not define (only the wire carries one): UNKNOWN_METHOD.
 */
export interface DowngradeRequest {
  readonly action?: DowngradeAction | number
  readonly version?: string
}

/** The cluster version (major.minor.0) when a downgrade was validated. */
export interface DowngradeResponse {
  readonly header: ResponseHeader
  readonly version: string
}

/** etcd's membership.DowngradeInfo: whether a downgrade is enabled, and to which cluster version. */
export interface DowngradeInfo {
  readonly enabled: boolean
  /** The target cluster version (major.minor.0); "" when not enabled. */
  readonly targetVersion: string
}
