// The hand-written KV codec must agree with protobufjs (through proto-loader's objects and convert-kv.ts)
// on every message, both directions, including unknown fields, negative int64s and big IDs.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import protobuf from 'protobufjs'
import { PROTO_DIR } from '../../../src/grpc/proto.js'
import { toDomainPut, toDomainRange, toPbPutResponse, toPbRangeResponse } from '../../../src/grpc/convert-kv.js'
import { decodePutRequest, decodeRangeRequest, encodePutResponse, encodeRangeResponse } from '../../../src/wire/kv.js'
import type { KeyValue, PutResponse, RangeResponse } from '../../../src/etcdserver/types/kv.js'

const root = new protobuf.Root()
root.resolvePath = (_origin, target) => `${PROTO_DIR}/${target}`
root.loadSync('etcdserverpb/rpc.proto', { keepCase: true })
const T = (name: string): protobuf.Type => root.lookupType(name)
const OBJ = { longs: String, enums: String, bytes: Buffer, defaults: true, oneofs: true } as const

let seed = 1234
const rnd = (n: number): number => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed % n
}
const bytes = (): Buffer => Buffer.from(Array.from({ length: rnd(4) === 0 ? 0 : rnd(20) }, () => rnd(256)))
const int64 = (): string => ['0', '1', '-1', '127', '128', '300', '9007199254740991', '-9223372036854775808', '9223372036854775807'][rnd(9)] as string
const bool = (): boolean => rnd(2) === 1

/** Normalise Uint8Arrays to Buffers so deepEqual compares contents. */
const norm = (v: unknown): unknown =>
  v instanceof Uint8Array ? Buffer.from(v) : Array.isArray(v) ? v.map(norm) : v !== null && typeof v === 'object' && typeof v !== 'bigint'
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)])) : v

describe('KV wire codec', () => {
  it('decodes RangeRequest exactly as protobufjs + convert-kv.ts do', () => {
    const RR = T('etcdserverpb.RangeRequest')
    for (let i = 0; i < 500; i++) {
      const msg = {
        key: bytes(), range_end: bytes(), limit: int64(), revision: int64(), sort_order: rnd(4), sort_target: rnd(6),
        serializable: bool(), keys_only: bool(), count_only: bool(), min_mod_revision: int64(), max_mod_revision: int64(),
        min_create_revision: int64(), max_create_revision: int64(),
      }
      let buf = Buffer.from(RR.encode(RR.fromObject(msg)).finish())
      // an unknown field (tag 99, length-delimited) must be skipped
      if (rnd(3) === 0) buf = Buffer.concat([buf, Buffer.from([0x9a, 0x06, 0x02, 0x01, 0x02])])
      const viaPbjs = toDomainRange(RR.toObject(RR.decode(buf), OBJ) as Parameters<typeof toDomainRange>[0])
      // protobufjs writes an empty range_end that was set; etcd reads a range_end sent empty as "\0" (from
      // key), which proto-loader's defaulted objects cannot tell apart from an absent one.
      const want = msg.range_end.length === 0 ? { ...viaPbjs, rangeEnd: Buffer.from([0]) } : viaPbjs
      assert.deepEqual(norm(decodeRangeRequest(buf)), norm(want), `case ${i}`)
    }
  })

  it('decodes PutRequest exactly as protobufjs + convert-kv.ts do', () => {
    const PR = T('etcdserverpb.PutRequest')
    for (let i = 0; i < 500; i++) {
      const msg = { key: bytes(), value: bytes(), lease: int64(), prev_kv: bool(), ignore_value: bool(), ignore_lease: bool() }
      const buf = Buffer.from(PR.encode(PR.fromObject(msg)).finish())
      const viaPbjs = toDomainPut(PR.toObject(PR.decode(buf), OBJ) as Parameters<typeof toDomainPut>[0])
      assert.deepEqual(norm(decodePutRequest(buf)), norm(viaPbjs), `case ${i}`)
    }
  })

  const kv = (): KeyValue => ({
    key: bytes(), value: bytes(), createRevision: rnd(3) === 0 ? 0 : rnd(2 ** 30), modRevision: rnd(2 ** 20), version: rnd(5),
    lease: [0n, 1n, 0x7fffffffffffffffn, 123456789012345n][rnd(4)] as bigint,
  })
  const header = (): RangeResponse['header'] => ({
    clusterId: [0n, 1n, 0xffffffffffffffffn, 14841639068965178418n][rnd(4)] as bigint,
    memberId: [0n, 10276657743932975437n][rnd(2)] as bigint, revision: rnd(2 ** 31), raftTerm: rnd(4),
  })

  it('encodes RangeResponse to what protobufjs decodes as convert-kv.ts would have encoded it', () => {
    const RS = T('etcdserverpb.RangeResponse')
    for (let i = 0; i < 300; i++) {
      const r: RangeResponse = { header: header(), kvs: Array.from({ length: rnd(4) }, kv), more: bool(), count: rnd(1000) }
      const ours = RS.toObject(RS.decode(encodeRangeResponse(r)), OBJ)
      const theirs = RS.toObject(RS.decode(RS.encode(RS.fromObject(toPbRangeResponse(r))).finish()), OBJ)
      assert.deepEqual(ours, theirs, `case ${i}`)
    }
  })

  it('encodes PutResponse to what protobufjs decodes as convert-kv.ts would have encoded it', () => {
    const PS = T('etcdserverpb.PutResponse')
    for (let i = 0; i < 300; i++) {
      const r: PutResponse = rnd(2) === 0 ? { header: header() } : { header: header(), prevKv: kv() }
      const ours = PS.toObject(PS.decode(encodePutResponse(r)), OBJ)
      const theirs = PS.toObject(PS.decode(PS.encode(PS.fromObject(toPbPutResponse(r))).finish()), OBJ)
      assert.deepEqual(ours, theirs, `case ${i}`)
    }
  })

  it('rejects malformed input with an error, never a crash or a hang', () => {
    for (const bad of [[0x0a, 0x05, 0x01], [0x18], [0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], [0x0f]]) {
      assert.throws(() => decodeRangeRequest(Uint8Array.from(bad)))
      assert.throws(() => decodePutRequest(Uint8Array.from(bad)))
    }
  })

  it('skips unknown groups, nested ones too, up to the end group that closes them, as Go does', () => {
    // key "a", group 127 { varint 1; group 3 {} } closed by an end group of another field, then limit 5.
    const bytes = Uint8Array.from([0x0a, 1, 0x61, 0xfb, 0x07, 0x08, 0x01, 0x1b, 0x1c, 0x84, 0x08, 0x18, 0x05])
    const r = decodeRangeRequest(bytes)
    assert.deepEqual([Buffer.from(r.key).toString(), r.limit], ['a', 5])
    assert.equal(decodePutRequest(Uint8Array.from([0x0a, 1, 0x6b, 0x13, 0x14, 0x12, 1, 0x76])).value?.[0], 0x76)
  })
})
