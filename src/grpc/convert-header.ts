// etcdserverpb.ResponseHeader <-> the domain ResponseHeader, which every service's responses carry.
import type { ResponseHeader } from '../etcdserver/types/header.js'
import type { ResponseHeader as pb_ResponseHeader, ResponseHeader__Output as pb_ResponseHeader__Output } from './generated/etcdserverpb/ResponseHeader.js'
import { num, u64 } from './convert-scalars.js'

const NO_HEADER: ResponseHeader = { clusterId: 0n, memberId: 0n, revision: 0, raftTerm: 0 }

/** A message that carries nothing but its header (PutResponse without prev_kv, UnlockResponse, ...). */
export interface HeaderOnly {
  readonly header: pb_ResponseHeader__Output | null
}

export function toPbHeader(h: ResponseHeader): pb_ResponseHeader {
  return { cluster_id: h.clusterId.toString(), member_id: h.memberId.toString(), revision: h.revision, raft_term: h.raftTerm }
}

export function fromPbHeader(h: pb_ResponseHeader__Output | null): ResponseHeader {
  if (h === null) return NO_HEADER
  return { clusterId: u64(h.cluster_id), memberId: u64(h.member_id), revision: num(h.revision), raftTerm: num(h.raft_term) }
}

export const fromPbHeaderOnly = (r: HeaderOnly): { header: ResponseHeader } => ({ header: fromPbHeader(r.header) })
