// The KV wire codecs on the path of every request: mvccpb.KeyValue (every revision stored, every kv in a
// response) and the hand-written gRPC codec of PutRequest and RangeResponse.
import { decodePutRequest, encodeRangeResponse } from '../../src/wire/kv.js'
import { decodeKeyValue, encodeKeyValue } from '../../src/wire/keyvalue.js'
import type { KeyValue } from '../../src/mvcc/kv.js'
import { lenFieldSize, writeBytesField } from '../../src/wire/protobuf.js'
import { bytes, utf8, type MicroSuite } from './suite.js'

const header = { clusterId: 14841639068965178418n, memberId: 10276657743932975437n, revision: 123_456, raftTerm: 2 }

function kvOf(i: number): KeyValue {
  return { key: utf8(`key-${String(i).padStart(12, '0')}`), createRevision: 100_000 + i, modRevision: 123_456, version: 3, value: bytes(256), lease: 0n }
}

function putRequest(key: Uint8Array, value: Uint8Array): Uint8Array {
  const out = new Uint8Array(lenFieldSize(key.length) + lenFieldSize(value.length))
  writeBytesField(out, writeBytesField(out, 0, 1, key), 2, value)
  return out
}

export const kvCodec: MicroSuite = {
  name: 'kv-codec',
  tasks: () => {
    const kv = kvOf(1)
    const encoded = encodeKeyValue(kv)
    const put = putRequest(kv.key, kv.value)
    const one = { header, kvs: [kv], more: false, count: 1 }
    const hundred = { header, kvs: Array.from({ length: 100 }, (_, i) => kvOf(i)), more: false, count: 100 }
    return [
      { name: 'encode KeyValue (16 B key, 256 B value)', batch: 100, fn: () => { for (let i = 0; i < 100; i++) encodeKeyValue(kv) } },
      { name: 'decode KeyValue', batch: 100, fn: () => { for (let i = 0; i < 100; i++) decodeKeyValue(encoded) } },
      { name: 'decode PutRequest', batch: 100, fn: () => { for (let i = 0; i < 100; i++) decodePutRequest(put) } },
      { name: 'encode RangeResponse, 1 kv', batch: 100, fn: () => { for (let i = 0; i < 100; i++) encodeRangeResponse(one) } },
      { name: 'encode RangeResponse, 100 kvs', fn: () => encodeRangeResponse(hundred) },
    ]
  },
}
