// etcdserverpb.LeaseGrant, LeaseRevoke and LeaseKeepAlive requests and responses on the wire: requests
// decode straight into domain requests, responses encode straight from domain responses, with the header
// encoded once per revision. Hand-written for speed, as these are the messages of lease churn
// (LeaseTimeToLive and LeaseLeases go through proto-loader and grpc/convert-lease.ts); they must stay
// byte-identical to protobufjs/grpc-js output, which a unit test checks in both directions.
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseRevokeRequest,
  LeaseRevokeResponse,
} from '../etcdserver/types/lease.js'
import { bigVarintSize, Reader, WIRE_LEN, WIRE_VARINT, writeBigVarint, writeVarint } from './protobuf.js'
import { encodeHeaderField } from './response-header.js'

/** Read the int64 varint fields of a message (field number -> value); other fields are skipped. */
function readInt64Fields(buf: Uint8Array, wanted: number): bigint[] {
  const out: bigint[] = []
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (wt === WIRE_VARINT && field >= 1 && field <= wanted) out[field] = rd.bigVarint()
    else rd.skip(wt)
  }
  return out
}

/** Decode an etcdserverpb.LeaseGrantRequest {TTL = 1, ID = 2}. */
export function decodeLeaseGrantRequest(buf: Uint8Array): LeaseGrantRequest {
  const f = readInt64Fields(buf, 2)
  return { ttl: Number(f[1] ?? 0n), id: f[2] ?? 0n }
}

/** Decode an etcdserverpb.LeaseRevokeRequest {ID = 1}. */
export function decodeLeaseRevokeRequest(buf: Uint8Array): LeaseRevokeRequest {
  return { id: readInt64Fields(buf, 1)[1] ?? 0n }
}

/** Decode an etcdserverpb.LeaseKeepAliveRequest {ID = 1}. */
export function decodeLeaseKeepAliveRequest(buf: Uint8Array): LeaseKeepAliveRequest {
  return { id: readInt64Fields(buf, 1)[1] ?? 0n }
}

/** Encode header (1), then the int64 fields ID (2) and TTL (3) when non-zero, then an optional string (4). */
function encodeHeaderIdTtl(header: LeaseGrantResponse['header'], id: bigint, ttl: number, error = ''): Buffer {
  const h = encodeHeaderField(header)
  const ttlBig = BigInt(ttl)
  const err = error === '' ? undefined : Buffer.from(error, 'utf8')
  const size = h.length + (id !== 0n ? 1 + bigVarintSize(id) : 0) + (ttlBig !== 0n ? 1 + bigVarintSize(ttlBig) : 0) +
    (err === undefined ? 0 : 1 + bigVarintSize(BigInt(err.length)) + err.length)
  const out = Buffer.allocUnsafe(size)
  out.set(h, 0)
  let pos = h.length
  if (id !== 0n) {
    out[pos++] = (2 << 3) | WIRE_VARINT
    pos = writeBigVarint(out, pos, id)
  }
  if (ttlBig !== 0n) {
    out[pos++] = (3 << 3) | WIRE_VARINT
    pos = writeBigVarint(out, pos, ttlBig)
  }
  if (err !== undefined) {
    out[pos++] = (4 << 3) | WIRE_LEN
    pos = writeVarint(out, pos, err.length)
    out.set(err, pos)
  }
  return out
}

/** Encode an etcdserverpb.LeaseGrantResponse. */
export function encodeLeaseGrantResponse(r: LeaseGrantResponse): Buffer {
  return encodeHeaderIdTtl(r.header, r.id, r.ttl, r.error)
}

/** Encode an etcdserverpb.LeaseRevokeResponse. */
export function encodeLeaseRevokeResponse(r: LeaseRevokeResponse): Buffer {
  return Buffer.from(encodeHeaderField(r.header))
}

/** Encode an etcdserverpb.LeaseKeepAliveResponse. */
export function encodeLeaseKeepAliveResponse(r: LeaseKeepAliveResponse): Buffer {
  return encodeHeaderIdTtl(r.header, r.id, r.ttl)
}
