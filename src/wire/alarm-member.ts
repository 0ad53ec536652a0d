// etcdserverpb.AlarmMember as etcd stores it: the key of each raised alarm in the backend's `alarm` bucket
// (the value is empty). Hand-written for speed and exactness, as the other stored forms; it must stay
// byte-identical to protobufjs/grpc-js output (proto3 zero fields left out), as etcd's Marshal writes it.
import type { AlarmMember, AlarmType } from '../etcdserver/types/maintenance.js'
import { ALARM_TYPES } from './enums.js'
import { Reader, WIRE_VARINT, bigVarintSize, varintSize, writeBigVarint, writeVarint } from './protobuf.js'

/** AlarmType enum values on the wire (etcdserverpb.AlarmType). */
export const ALARM_CODES: Readonly<Record<AlarmType, number>> = { NONE: 0, NOSPACE: 1, CORRUPT: 2 }

/** Encode an AlarmMember as etcd does (proto3: zero fields left out). */
export function encodeAlarmMember(m: AlarmMember): Uint8Array {
  const code = ALARM_CODES[m.alarm]
  const size = (m.memberId !== 0n ? 1 + bigVarintSize(m.memberId) : 0) + (code !== 0 ? 1 + varintSize(code) : 0)
  const out = new Uint8Array(size)
  let pos = 0
  if (m.memberId !== 0n) {
    out[pos++] = (1 << 3) | WIRE_VARINT
    pos = writeBigVarint(out, pos, m.memberId)
  }
  if (code !== 0) {
    out[pos++] = (2 << 3) | WIRE_VARINT
    writeVarint(out, pos, code)
  }
  return out
}

/** Decode a stored AlarmMember; unknown fields are skipped, an unknown alarm code reads as NONE. */
export function decodeAlarmMember(b: Uint8Array): AlarmMember {
  let memberId = 0n
  let alarm: AlarmType = 'NONE'
  const r = new Reader(b)
  while (!r.done) {
    const tag = r.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (field === 1 && wt === WIRE_VARINT) memberId = BigInt.asUintN(64, r.bigVarint())
    else if (field === 2 && wt === WIRE_VARINT) alarm = ALARM_TYPES[r.varint()] ?? 'NONE'
    else r.skip(wt)
  }
  return { memberId, alarm }
}
