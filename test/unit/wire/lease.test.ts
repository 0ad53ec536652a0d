// The hand-written lease codec (src/wire/lease.ts) must agree with protobufjs on LeaseGrant,
// LeaseRevoke and LeaseKeepAlive in both directions: negative and 64-bit IDs, negative and huge TTLs,
// unknown fields, and a header with big cluster/member IDs.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import protobuf from 'protobufjs'
import { PROTO_DIR } from '../../../src/grpc/proto.js'
import {
  decodeLeaseGrantRequest, decodeLeaseKeepAliveRequest, decodeLeaseRevokeRequest, encodeLeaseGrantResponse,
  encodeLeaseKeepAliveResponse, encodeLeaseRevokeResponse,
} from '../../../src/wire/lease.js'
import type { ResponseHeader } from '../../../src/etcdserver/types/header.js'

const root = new protobuf.Root()
root.resolvePath = (_origin, target) => `${PROTO_DIR}/${target}`
root.loadSync('etcdserverpb/rpc.proto', { keepCase: true })
const T = (name: string): protobuf.Type => root.lookupType(name)
const OBJ = { longs: String, enums: String, bytes: Buffer, defaults: true } as const

const INT64 = ['0', '1', '-1', '2', '127', '128', '300', '9007199254740991', '-9223372036854775808', '9223372036854775807', '7587869318093373456']
/** An unknown field (number 15, length-delimited) that decoders must skip. */
const UNKNOWN = Buffer.from([0x7a, 0x02, 0x61, 0x62])

const header: ResponseHeader = { clusterId: 17350457070486207188n, memberId: 12507502303173969994n, revision: 42, raftTerm: 3 }
const pbHeader = { cluster_id: header.clusterId.toString(), member_id: header.memberId.toString(), revision: '42', raft_term: '3' }

describe('lease wire codec', () => {
  for (const a of INT64) {
    for (const b of ['0', '5', '-3', '9000000001']) {
      it(`decodes requests with ID ${a}, TTL ${b}`, () => {
        const grant = Buffer.concat([Buffer.from(T('etcdserverpb.LeaseGrantRequest').encode({ ID: a, TTL: b }).finish()), UNKNOWN])
        assert.deepEqual(decodeLeaseGrantRequest(grant), { id: BigInt(a), ttl: Number(b) })
        const revoke = Buffer.from(T('etcdserverpb.LeaseRevokeRequest').encode({ ID: a }).finish())
        assert.deepEqual(decodeLeaseRevokeRequest(Buffer.concat([UNKNOWN, revoke])), { id: BigInt(a) })
        const ka = Buffer.from(T('etcdserverpb.LeaseKeepAliveRequest').encode({ ID: a }).finish())
        assert.deepEqual(decodeLeaseKeepAliveRequest(ka), { id: BigInt(a) })
      })
    }
  }

  const responses: Array<{ id: string; ttl: number; error: string }> = [
    { id: '0', ttl: 0, error: '' },
    { id: '7587869318093373456', ttl: 60, error: '' },
    { id: '-5', ttl: -1, error: '' },
    { id: '9223372036854775807', ttl: 9_000_000_000, error: 'some error' },
  ]
  for (const r of responses) {
    it(`encodes responses for ID ${r.id}, TTL ${r.ttl}`, () => {
      const G = T('etcdserverpb.LeaseGrantResponse')
      const grant = G.toObject(G.decode(encodeLeaseGrantResponse({ header, id: BigInt(r.id), ttl: r.ttl, error: r.error })), OBJ)
      assert.deepEqual(grant, { header: pbHeader, ID: r.id, TTL: String(r.ttl), error: r.error })
      const K = T('etcdserverpb.LeaseKeepAliveResponse')
      const ka = K.toObject(K.decode(encodeLeaseKeepAliveResponse({ header, id: BigInt(r.id), ttl: r.ttl })), OBJ)
      assert.deepEqual(ka, { header: pbHeader, ID: r.id, TTL: String(r.ttl) })
      const R = T('etcdserverpb.LeaseRevokeResponse')
      assert.deepEqual(R.toObject(R.decode(encodeLeaseRevokeResponse({ header })), OBJ), { header: pbHeader })
    })
  }
})
