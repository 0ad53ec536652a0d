import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import protobuf from 'protobufjs'
import { decodeIndexFields, decodeKeyValue, encodeKeyValue } from '../../../src/wire/keyvalue.js'
import { PROTO_DIR } from '../../../src/grpc/proto.js'
import type { KeyValue } from '../../../src/mvcc/kv.js'

describe('KeyValue codec', () => {
  const root = new protobuf.Root()
  root.resolvePath = (_origin, target) => `${PROTO_DIR}/${target}`
  root.loadSync('mvccpb/kv.proto')
  const T = root.lookupType('mvccpb.KeyValue')
  const cases: KeyValue[] = [
    { key: Buffer.from('foo'), value: Buffer.from('bar'), createRevision: 2, modRevision: 3, version: 2, lease: 0n },
    { key: Buffer.from([0, 0xff]), value: new Uint8Array(0), createRevision: 0, modRevision: 0, version: 0, lease: 0n },
    { key: Buffer.from('k'), value: Buffer.alloc(300, 7), createRevision: 2 ** 40, modRevision: 2 ** 52, version: 129, lease: 0x7fff_ffff_ffff_ffffn },
  ]
  for (const [i, kv] of cases.entries()) {
    it(`case ${i} is byte-identical to protobufjs and round-trips`, () => {
      const ours = encodeKeyValue(kv)
      // Go (gogoproto) omits proto3 zero values; protobufjs writes whatever is set, so set only non-zero fields.
      const obj: Record<string, unknown> = {}
      if (kv.key.length) obj['key'] = kv.key
      if (kv.createRevision) obj['createRevision'] = kv.createRevision
      if (kv.modRevision) obj['modRevision'] = kv.modRevision
      if (kv.version) obj['version'] = kv.version
      if (kv.value.length) obj['value'] = kv.value
      if (kv.lease) obj['lease'] = kv.lease.toString()
      const theirs = T.encode(T.fromObject(obj)).finish()
      assert.deepEqual(Buffer.from(ours), Buffer.from(theirs))
      const back = decodeKeyValue(ours)
      assert.deepEqual({ ...back, key: Buffer.from(back.key), value: Buffer.from(back.value) }, { ...kv, key: Buffer.from(kv.key), value: Buffer.from(kv.value) })
      // The restore path's partial decode agrees, from a plain Uint8Array and from a Buffer view at an offset.
      const want = { key: Buffer.from(kv.key).toString('latin1'), createRevision: kv.createRevision, version: kv.version, lease: kv.lease }
      assert.deepEqual(decodeIndexFields(ours), want)
      const padded = Buffer.concat([Buffer.from([1, 2, 3]), Buffer.from(ours)]).subarray(3)
      assert.deepEqual(decodeIndexFields(padded), want)
    })
  }
  it('rejects truncated input', () => {
    assert.throws(() => decodeKeyValue(Uint8Array.from([0x0a, 5, 1])), /truncated/)
    assert.throws(() => decodeIndexFields(Uint8Array.from([0x0a, 5, 1])), /truncated/)
  })
})
