// The Maintenance service's messages, protobuf (proto-loader objects) <-> domain, both directions: the
// server reads every Maintenance request and builds every response; the client (connect()) builds the
// requests it sends (Status, HashKV, Downgrade) and reads their responses.
import type { AlarmMember as pb_AlarmMember } from './generated/etcdserverpb/AlarmMember.js'
import type { AlarmRequest__Output as pb_AlarmRequest__Output } from './generated/etcdserverpb/AlarmRequest.js'
import type { AlarmResponse as pb_AlarmResponse } from './generated/etcdserverpb/AlarmResponse.js'
import type { DowngradeRequest as pb_DowngradeRequest, DowngradeRequest__Output as pb_DowngradeRequest__Output } from './generated/etcdserverpb/DowngradeRequest.js'
import type { DowngradeResponse as pb_DowngradeResponse, DowngradeResponse__Output as pb_DowngradeResponse__Output } from './generated/etcdserverpb/DowngradeResponse.js'
import type { HashKVRequest as pb_HashKVRequest, HashKVRequest__Output as pb_HashKVRequest__Output } from './generated/etcdserverpb/HashKVRequest.js'
import type { HashKVResponse as pb_HashKVResponse, HashKVResponse__Output as pb_HashKVResponse__Output } from './generated/etcdserverpb/HashKVResponse.js'
import type { HashResponse as pb_HashResponse } from './generated/etcdserverpb/HashResponse.js'
import type { MoveLeaderRequest__Output as pb_MoveLeaderRequest__Output } from './generated/etcdserverpb/MoveLeaderRequest.js'
import type { SnapshotResponse as pb_SnapshotResponse } from './generated/etcdserverpb/SnapshotResponse.js'
import type { StatusResponse as pb_StatusResponse, StatusResponse__Output as pb_StatusResponse__Output } from './generated/etcdserverpb/StatusResponse.js'
import type {
  AlarmMember, AlarmRequest, AlarmResponse, DowngradeAction, DowngradeRequest, DowngradeResponse, HashKVRequest,
  HashKVResponse, HashResponse, MoveLeaderRequest, SnapshotChunk, StatusResponse,
} from '../etcdserver/types/maintenance.js'
import { ALARM_ACTIONS, ALARM_TYPES, DOWNGRADE_ACTIONS } from '../wire/enums.js'
import { fromPbHeader, toPbHeader } from './convert-header.js'
import { enumOf, num, opt, u64 } from './convert-scalars.js'

export function toDomainHashKV(r: pb_HashKVRequest__Output): HashKVRequest {
  return { revision: num(r.revision) }
}

export function toDomainAlarm(r: pb_AlarmRequest__Output): AlarmRequest {
  // An action etcd does not know changes nothing there; GET (also read-only) stands in for it.
  return { action: enumOf(ALARM_ACTIONS, r.action, 'GET'), memberId: u64(r.memberID), alarm: enumOf(ALARM_TYPES, r.alarm, 'NONE') }
}

/**
 * A Downgrade request. An enum value etcd does not define arrives as its number (proto3 keeps it, and
 * etcd answers it with "unknown method"), so it stays a number here.
 */
export function toDomainDowngrade(r: pb_DowngradeRequest__Output): DowngradeRequest {
  const a: string | number = r.action
  const action: DowngradeAction | number =
    typeof a === 'number' ? (DOWNGRADE_ACTIONS[a] ?? a) : (DOWNGRADE_ACTIONS.find((n) => n === a) ?? -1)
  return { action, version: r.version }
}

export function toPbDowngradeResponse(r: DowngradeResponse): pb_DowngradeResponse {
  return { header: toPbHeader(r.header), version: r.version }
}

export function toDomainMoveLeader(r: pb_MoveLeaderRequest__Output): MoveLeaderRequest {
  return { targetId: u64(r.targetID) }
}

export function toPbStatusResponse(r: StatusResponse): pb_StatusResponse {
  return {
    header: toPbHeader(r.header),
    version: r.version,
    dbSize: r.dbSize,
    leader: r.leader.toString(),
    raftIndex: r.raftIndex,
    raftTerm: r.raftTerm,
    raftAppliedIndex: r.raftAppliedIndex,
    errors: r.errors,
    dbSizeInUse: r.dbSizeInUse,
    isLearner: r.isLearner,
  }
}

export function toPbHashResponse(r: HashResponse): pb_HashResponse {
  return { header: toPbHeader(r.header), hash: r.hash }
}

export function toPbHashKVResponse(r: HashKVResponse): pb_HashKVResponse {
  return { header: toPbHeader(r.header), hash: r.hash, compact_revision: r.compactRevision }
}

export function toPbSnapshotResponse(r: SnapshotChunk): pb_SnapshotResponse {
  const out: pb_SnapshotResponse = { remaining_bytes: r.remainingBytes, blob: r.blob }
  if (r.header !== undefined) out.header = toPbHeader(r.header)
  return out
}

const toPbAlarmMember = (m: AlarmMember): pb_AlarmMember => ({ memberID: m.memberId.toString(), alarm: m.alarm })

/** No header, as etcd sends none on Alarm responses. */
export function toPbAlarmResponse(r: AlarmResponse): pb_AlarmResponse {
  return { alarms: r.alarms.map(toPbAlarmMember) }
}

export const toPbHashKVRequest = (r: HashKVRequest): pb_HashKVRequest => ({ ...opt('revision', r.revision) })

/** A Downgrade request; actions go by name (a number, which only the wire carries, is refused). */
export function toPbDowngradeRequest(r: DowngradeRequest): pb_DowngradeRequest {
  if (typeof r.action === 'number') throw new TypeError('downgrade: action must be VALIDATE, ENABLE or CANCEL')
  return { ...(r.action === undefined ? {} : { action: r.action }), ...(r.version === undefined ? {} : { version: r.version }) }
}

export function fromPbStatusResponse(r: pb_StatusResponse__Output): StatusResponse {
  return {
    header: fromPbHeader(r.header), version: r.version, dbSize: num(r.dbSize), dbSizeInUse: num(r.dbSizeInUse),
    leader: u64(r.leader), raftIndex: num(r.raftIndex), raftTerm: num(r.raftTerm), raftAppliedIndex: num(r.raftAppliedIndex),
    errors: r.errors, isLearner: r.isLearner,
  }
}

export const fromPbHashKVResponse = (r: pb_HashKVResponse__Output): HashKVResponse =>
  ({ header: fromPbHeader(r.header), hash: r.hash, compactRevision: num(r.compact_revision) })
export const fromPbDowngradeResponse = (r: pb_DowngradeResponse__Output): DowngradeResponse =>
  ({ header: fromPbHeader(r.header), version: r.version })
