// etcdserverpb.ResponseHeader on the wire, shared by the response codecs of src/wire/. Hand-written for speed
// (one encoding per header object, and the server shares one per revision); it must stay byte-identical to
// protobufjs/grpc-js output.
import { bigVarintSize, varintSize, writeBigVarint, writeVarint, writeVarintField, WIRE_LEN, WIRE_VARINT } from './protobuf.js'

/** The fields of etcdserverpb.ResponseHeader (structurally the domain ResponseHeader). */
export interface WireHeader {
  readonly clusterId: bigint
  readonly memberId: bigint
  readonly revision: number
  readonly raftTerm: number
}

/** Encoded size of the header's body (without its own tag and length). */
export function headerSize(h: WireHeader): number {
  return (h.clusterId ? 1 + bigVarintSize(h.clusterId) : 0) + (h.memberId ? 1 + bigVarintSize(h.memberId) : 0) +
    (h.revision ? 1 + varintSize(h.revision) : 0) + (h.raftTerm ? 1 + varintSize(h.raftTerm) : 0)
}

/** Write the header as field 1 (tag, length `size` from headerSize, body); returns the new position. */
export function writeHeader(out: Uint8Array, pos: number, h: WireHeader, size: number): number {
  out[pos++] = (1 << 3) | WIRE_LEN
  pos = writeVarint(out, pos, size)
  if (h.clusterId) {
    out[pos++] = (1 << 3) | WIRE_VARINT
    pos = writeBigVarint(out, pos, h.clusterId)
  }
  if (h.memberId) {
    out[pos++] = (2 << 3) | WIRE_VARINT
    pos = writeBigVarint(out, pos, h.memberId)
  }
  if (h.revision) pos = writeVarintField(out, pos, 3, h.revision)
  if (h.raftTerm) pos = writeVarintField(out, pos, 4, h.raftTerm)
  return pos
}

/** Encoded header fields (tag, length, body) by identity: the server shares one header object per revision. */
const encoded = new WeakMap<WireHeader, Uint8Array>()

/** The header as field 1, encoded once per header object. */
export function encodeHeaderField(h: WireHeader): Uint8Array {
  let b = encoded.get(h)
  if (b === undefined) {
    const hs = headerSize(h)
    b = new Uint8Array(1 + varintSize(hs) + hs)
    writeHeader(b, 0, h, hs)
    encoded.set(h, b)
  }
  return b
}
