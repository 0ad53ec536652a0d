// The Cluster service's messages, protobuf (proto-loader objects) <-> domain, the server's direction: it
// reads the Member* requests and builds MemberList's response.
import type { Member as pb_Member } from './generated/etcdserverpb/Member.js'
import type { MemberAddRequest__Output as pb_MemberAddRequest__Output } from './generated/etcdserverpb/MemberAddRequest.js'
import type { MemberListRequest__Output as pb_MemberListRequest__Output } from './generated/etcdserverpb/MemberListRequest.js'
import type { MemberListResponse as pb_MemberListResponse } from './generated/etcdserverpb/MemberListResponse.js'
import type { MemberPromoteRequest__Output as pb_MemberPromoteRequest__Output } from './generated/etcdserverpb/MemberPromoteRequest.js'
import type { MemberRemoveRequest__Output as pb_MemberRemoveRequest__Output } from './generated/etcdserverpb/MemberRemoveRequest.js'
import type { MemberUpdateRequest__Output as pb_MemberUpdateRequest__Output } from './generated/etcdserverpb/MemberUpdateRequest.js'
import type {
  Member, MemberAddRequest, MemberListRequest, MemberListResponse, MemberPromoteRequest, MemberRemoveRequest,
  MemberUpdateRequest,
} from '../etcdserver/types/cluster.js'
import { toPbHeader } from './convert-header.js'
import { u64 } from './convert-scalars.js'

export function toDomainMemberList(r: pb_MemberListRequest__Output): MemberListRequest {
  return { linearizable: r.linearizable }
}

export function toDomainMemberAdd(r: pb_MemberAddRequest__Output): MemberAddRequest {
  return { peerUrls: r.peerURLs, isLearner: r.isLearner }
}

export function toDomainMemberRemove(r: pb_MemberRemoveRequest__Output): MemberRemoveRequest {
  return { id: u64(r.ID) }
}

export function toDomainMemberUpdate(r: pb_MemberUpdateRequest__Output): MemberUpdateRequest {
  return { id: u64(r.ID), peerUrls: r.peerURLs }
}

export function toDomainMemberPromote(r: pb_MemberPromoteRequest__Output): MemberPromoteRequest {
  return { id: u64(r.ID) }
}

const toPbMember = (m: Member): pb_Member => ({
  ID: m.id.toString(), name: m.name, peerURLs: [...m.peerUrls], clientURLs: [...m.clientUrls], isLearner: m.isLearner,
})

export function toPbMemberListResponse(r: MemberListResponse): pb_MemberListResponse {
  return { header: toPbHeader(r.header), members: r.members.map(toPbMember) }
}
