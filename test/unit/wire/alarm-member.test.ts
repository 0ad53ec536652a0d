// The stored alarm key (src/wire/alarm-member.ts) against protobufjs over rpc.proto's AlarmMember: the same
// bytes for every alarm type and member IDs up to 2^64-1, round trips, unknown fields skipped and an alarm
// number the proto lacks read as NONE.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import protobuf from 'protobufjs'
import { PROTO_DIR } from '../../../src/grpc/proto.js'
import type { AlarmMember } from '../../../src/etcdserver/types/maintenance.js'
import { decodeAlarmMember, encodeAlarmMember } from '../../../src/wire/alarm-member.js'

const root = new protobuf.Root()
root.resolvePath = (_origin, target) => `${PROTO_DIR}/${target}`
root.loadSync('etcdserverpb/rpc.proto', { keepCase: true })
const T = root.lookupType('etcdserverpb.AlarmMember')

describe('AlarmMember codec', () => {
  const cases: AlarmMember[] = [
    { memberId: 0n, alarm: 'NONE' },
    { memberId: 0n, alarm: 'NOSPACE' },
    { memberId: 1n, alarm: 'NONE' },
    { memberId: 13988464155605699416n, alarm: 'NOSPACE' },
    { memberId: 2n ** 64n - 1n, alarm: 'CORRUPT' },
  ]
  for (const m of cases) {
    it(`member ${m.memberId}, ${m.alarm}: byte-identical to protobufjs and round-trips`, () => {
      // Go (gogoproto) omits proto3 zero values; protobufjs writes whatever is set, so set only non-zero fields.
      const obj: Record<string, unknown> = {}
      if (m.memberId !== 0n) obj['memberID'] = m.memberId.toString()
      if (m.alarm !== 'NONE') obj['alarm'] = m.alarm
      const ours = encodeAlarmMember(m)
      assert.deepEqual(Buffer.from(ours), Buffer.from(T.encode(T.fromObject(obj)).finish()))
      assert.deepEqual(decodeAlarmMember(ours), m)
    })
  }

  it('skips unknown fields and reads an alarm number the proto lacks as NONE', () => {
    // memberID 7, an unknown string field 9, alarm 5.
    const b = Uint8Array.from([0x08, 7, 0x4a, 2, 0x61, 0x62, 0x10, 5])
    assert.deepEqual(decodeAlarmMember(b), { memberId: 7n, alarm: 'NONE' })
  })
})
