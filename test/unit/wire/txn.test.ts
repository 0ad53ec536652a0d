// The hand-written Txn codec agrees with protobufjs on the messages protobufjs can handle, and goes on where
// protobufjs's recursion limit stops: decoding stops at the level etcd refuses anyway, encoding has no limit.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import protobuf from 'protobufjs'
import { PROTO_DIR } from '../../../src/grpc/proto.js'
import { decodeTxnRequest, encodeTxnResponse, maxTxnLevels } from '../../../src/wire/txn.js'
import type { ResponseHeader } from '../../../src/etcdserver/types/header.js'
import type { TxnRequest, TxnResponse } from '../../../src/etcdserver/types/kv.js'
import { checkTxn } from '../../../src/etcdserver/validate.js'
import { isEtcdError } from '../../../src/pkg/errors.js'
import { putTxn, wrapTxn } from '../../helpers/nested-txn.js'

const root = new protobuf.Root()
root.resolvePath = (_origin, target) => `${PROTO_DIR}/${target}`
root.loadSync('etcdserverpb/rpc.proto', { keepCase: true })
const TxnRequestPb = root.lookupType('etcdserverpb.TxnRequest')
const TxnResponsePb = root.lookupType('etcdserverpb.TxnResponse')
const OBJ = { longs: String, enums: String, bytes: Buffer, defaults: false, oneofs: false } as const
const b = (s: string): Buffer => Buffer.from(s)

/** Normalise Uint8Arrays to Buffers so deepEqual compares contents. */
const norm = (v: unknown): unknown =>
  v instanceof Uint8Array ? Buffer.from(v) : Array.isArray(v) ? v.map(norm) : v !== null && typeof v === 'object' && typeof v !== 'bigint'
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)])) : v

const header: ResponseHeader = { clusterId: 14841639068965178418n, memberId: 10276657743932975437n, revision: 7, raftTerm: 2 }
const kv = { key: b('k'), value: b('v'), createRevision: 2, modRevision: 7, version: 3, lease: 0x1234n }

/** A TxnRequest of `depth` levels, each holding the next in its success; the innermost holds a put. */
const nested = (depth: number): Buffer => wrapTxn(depth - 1, putTxn('k'))

function depthOf(r: TxnRequest): number {
  const op = r.success?.[0]
  return 1 + (op?.type === 'txn' ? depthOf(op.request) : 0)
}

describe('txn codec', () => {
  it('decodes every field of a TxnRequest as etcd reads it', () => {
    const bytes = TxnRequestPb.encode(TxnRequestPb.fromObject({
      compare: [
        { key: b('a'), range_end: b('b'), target: 'MOD', result: 'GREATER', mod_revision: '-3' },
        { key: b('c'), target: 'VALUE', result: 'NOT_EQUAL', value: b('x') },
        { key: b('d'), target: 'LEASE', result: 'LESS', lease: '-9223372036854775808' },
      ],
      success: [
        { request_range: { key: b('a'), range_end: b('z'), limit: '5', sort_order: 'DESCEND', sort_target: 'MOD', keys_only: true } },
        { request_put: { key: b('p'), value: b('v'), lease: '4660', prev_kv: true } },
        { request_delete_range: { key: b('d'), range_end: b('e'), prev_kv: true } },
        { request_txn: { compare: [{ key: b('n'), target: 'CREATE', result: 'EQUAL', create_revision: '9' }], failure: [{}] } },
      ],
      failure: [{ request_range: { key: b('f') } }],
    })).finish()
    const r = decodeTxnRequest(bytes, 128)
    assert.deepEqual(norm(r.compare), norm([
      { key: b('a'), rangeEnd: b('b'), target: 'MOD', result: 'GREATER', modRevision: -3 },
      { key: b('c'), rangeEnd: b(''), target: 'VALUE', result: 'NOT_EQUAL', value: b('x') },
      { key: b('d'), rangeEnd: b(''), target: 'LEASE', result: 'LESS', lease: -9223372036854775808n },
    ]))
    assert.deepEqual(r.success?.map((op) => op.type), ['range', 'put', 'deleteRange', 'txn'])
    const [range, put, del, txn] = r.success ?? []
    assert.ok(range?.type === 'range' && put?.type === 'put' && del?.type === 'deleteRange' && txn?.type === 'txn')
    assert.deepEqual([range.request.limit, range.request.sortOrder, range.request.sortTarget, range.request.keysOnly], [5, 'DESCEND', 'MOD', true])
    assert.deepEqual(norm(put.request), norm({ key: b('p'), value: b('v'), lease: 4660n, prevKv: true, ignoreValue: false, ignoreLease: false }))
    assert.deepEqual(norm(del.request), norm({ key: b('d'), rangeEnd: b('e'), prevKv: true }))
    assert.deepEqual(norm(txn.request), norm({
      compare: [{ key: b('n'), rangeEnd: b(''), target: 'CREATE', result: 'EQUAL', createRevision: 9 }], success: [], failure: [{ type: 'empty' }],
    }))
    assert.deepEqual(r.failure?.map((op) => op.type), ['range'])
  })

  it('reads enum values the proto lacks, and the last member of a oneof, as Go does', () => {
    // Compare { result = 9, target = 2^32 + 1 (int32: 1, CREATE), key "a", version 1, then mod_revision 2 }
    const bytes = Buffer.from([0x0a, 0x0f, 0x08, 0x09, 0x10, 0x81, 0x80, 0x80, 0x80, 0x10, 0x1a, 0x01, 0x61, 0x20, 0x01, 0x30, 0x02])
    const r = decodeTxnRequest(bytes, 128)
    assert.deepEqual(norm(r.compare), norm([{ key: b('a'), rangeEnd: b(''), target: 'CREATE', result: 'UNKNOWN', modRevision: 2 }]))
  })

  it('reads a range_end sent empty as etcd: to the end of the keyspace in a read-only txn, a single key in a write txn', () => {
    const hex = (h: string): Buffer => Buffer.from(h.replace(/ /g, ''), 'hex')
    // compare { result EQUAL, target VALUE, key "a", value "v", range_end "" (field 64) }
    const cmp = '0a 0b 10 03 1a 01 61 3a 01 76 82 04 00'
    // success: range { key "a", range_end "" }
    const rng = '12 07 0a 05 0a 01 61 12 00'
    const put = '12 08 12 06 0a 01 7a 12 01 76'
    const ends = (r: TxnRequest): number[][] => [
      ...(r.compare ?? []).map((c) => [...(c.rangeEnd ?? [])]),
      ...(r.success ?? []).map((op) => (op.type === 'range' ? [...(op.request.rangeEnd ?? [])] : [-1])),
    ]
    assert.deepEqual(ends(decodeTxnRequest(hex(cmp + rng), 128)), [[0], [0]])
    assert.deepEqual(ends(decodeTxnRequest(hex(cmp + rng + put), 128)), [[], [], [-1]])
  })

  it('decodes as deep as etcd accepts and refuses what is deeper, however deep', () => {
    assert.equal(maxTxnLevels(128), 129)
    assert.equal(depthOf(decodeTxnRequest(nested(128), 128)), 128)
    checkTxn(decodeTxnRequest(nested(128), 128), 128)
    for (const depth of [129, 130, 5000]) {
      const r = decodeTxnRequest(nested(depth), 128)
      assert.ok(depthOf(r) <= 130, `a txn nested ${depth} deep is decoded at most one level past the deepest etcd accepts`)
      assert.throws(() => checkTxn(r, 128), (e) => isEtcdError(e, 'TOO_MANY_OPS'))
    }
  })

  it('encodes a TxnResponse as protobufjs does, zero fields omitted, at any depth', () => {
    let r: TxnResponse = {
      header,
      succeeded: true,
      responses: [
        { type: 'range', response: { header, kvs: [kv], more: true, count: 3 } },
        { type: 'put', response: { header, prevKv: kv } },
        { type: 'deleteRange', response: { header, deleted: 2, prevKvs: [kv, { ...kv, lease: 0n }] } },
        { type: 'empty' },
      ],
    }
    const flat = encodeTxnResponse(r)
    const viaPb = Buffer.from(TxnResponsePb.encode(TxnResponsePb.fromObject(TxnResponsePb.toObject(TxnResponsePb.decode(flat), OBJ))).finish())
    assert.deepEqual(flat, viaPb)
    const pb = TxnResponsePb.toObject(TxnResponsePb.decode(flat), OBJ) as { responses: Record<string, { kvs?: unknown[]; deleted?: string }>[] }
    assert.equal(pb.responses[2]?.['response_delete_range']?.deleted, '2')
    for (let i = 0; i < 1000; i++) r = { header: { ...header, clusterId: 0n, memberId: 0n }, succeeded: false, responses: [{ type: 'txn', response: r }] }
    assert.ok(encodeTxnResponse(r).length > 1000 * 4)
  })
})
