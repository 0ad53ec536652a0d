// The Lease service's messages, protobuf (proto-loader objects) <-> domain, both directions: the server
// reads LeaseTimeToLive and LeaseLeases requests and builds their responses (LeaseGrant, LeaseRevoke and
// LeaseKeepAlive have hand-written codecs, wire/lease.ts); the client (connect()) builds every lease request
// and reads every response.
import type { LeaseGrantRequest as pb_LeaseGrantRequest } from './generated/etcdserverpb/LeaseGrantRequest.js'
import type { LeaseGrantResponse__Output as pb_LeaseGrantResponse__Output } from './generated/etcdserverpb/LeaseGrantResponse.js'
import type { LeaseKeepAliveResponse__Output as pb_LeaseKeepAliveResponse__Output } from './generated/etcdserverpb/LeaseKeepAliveResponse.js'
import type { LeaseLeasesResponse as pb_LeaseLeasesResponse, LeaseLeasesResponse__Output as pb_LeaseLeasesResponse__Output } from './generated/etcdserverpb/LeaseLeasesResponse.js'
import type { LeaseTimeToLiveRequest as pb_LeaseTimeToLiveRequest, LeaseTimeToLiveRequest__Output as pb_LeaseTimeToLiveRequest__Output } from './generated/etcdserverpb/LeaseTimeToLiveRequest.js'
import type { LeaseTimeToLiveResponse as pb_LeaseTimeToLiveResponse, LeaseTimeToLiveResponse__Output as pb_LeaseTimeToLiveResponse__Output } from './generated/etcdserverpb/LeaseTimeToLiveResponse.js'
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveResponse, LeaseLeasesResponse, LeaseTimeToLiveRequest,
  LeaseTimeToLiveResponse,
} from '../etcdserver/types/lease.js'
import { fromPbHeader, toPbHeader } from './convert-header.js'
import { big, id, num, opt } from './convert-scalars.js'

export const toDomainLeaseTimeToLive = (r: pb_LeaseTimeToLiveRequest__Output): LeaseTimeToLiveRequest => ({
  id: big(r.ID),
  keys: r.keys,
})

export const toPbLeaseTimeToLiveResponse = (r: LeaseTimeToLiveResponse): pb_LeaseTimeToLiveResponse => ({
  header: toPbHeader(r.header),
  ID: r.id.toString(),
  TTL: r.ttl,
  grantedTTL: r.grantedTtl,
  keys: r.keys,
})

export const toPbLeaseLeasesResponse = (r: LeaseLeasesResponse): pb_LeaseLeasesResponse => ({
  header: toPbHeader(r.header),
  leases: r.leases.map((l) => ({ ID: l.id.toString() })),
})

export const toPbLeaseGrantRequest = (r: LeaseGrantRequest): pb_LeaseGrantRequest => ({ TTL: r.ttl, ...opt('ID', id(r.id)) })
/** LeaseRevokeRequest and LeaseKeepAliveRequest: the ID alone. */
export const toPbLeaseIdRequest = (r: { readonly id: bigint }): { ID: string } => ({ ID: r.id.toString() })
export const toPbLeaseTimeToLiveRequest = (r: LeaseTimeToLiveRequest): pb_LeaseTimeToLiveRequest =>
  ({ ID: r.id.toString(), ...opt('keys', r.keys) })

export const fromPbLeaseGrantResponse = (r: pb_LeaseGrantResponse__Output): LeaseGrantResponse =>
  ({ header: fromPbHeader(r.header), id: big(r.ID), ttl: num(r.TTL), error: r.error })
export const fromPbLeaseKeepAliveResponse = (r: pb_LeaseKeepAliveResponse__Output): LeaseKeepAliveResponse =>
  ({ header: fromPbHeader(r.header), id: big(r.ID), ttl: num(r.TTL) })
export const fromPbLeaseTimeToLiveResponse = (r: pb_LeaseTimeToLiveResponse__Output): LeaseTimeToLiveResponse =>
  ({ header: fromPbHeader(r.header), id: big(r.ID), ttl: num(r.TTL), grantedTtl: num(r.grantedTTL), keys: r.keys })
export const fromPbLeaseLeasesResponse = (r: pb_LeaseLeasesResponse__Output): LeaseLeasesResponse =>
  ({ header: fromPbHeader(r.header), leases: r.leases.map((l) => ({ id: big(l.ID) })) })
