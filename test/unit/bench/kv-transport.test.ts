import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { loadEtcdProto } from '../../../src/grpc/proto.js'
import { decodeRangeValues, decodeTxn, encodeRange, encodeTxn, frameMessage, putHasHeader, unframe } from '../../../bench/lib/h2-kv.js'
import { openTransports, type KvTransport, type TxnOutcome } from '../../../bench/lib/kv-transport.js'
import { KV_CLIENTS } from '../../../bench/lib/workloads.js'
import { haveEtcd, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../../helpers/processes.js'

const kv = loadEtcdProto().etcdserverpb.KV.service
const method = (name: string): { requestDeserialize(b: Buffer): unknown; responseSerialize(v: unknown): Buffer } => {
  const m = kv[name]
  assert.ok(m !== undefined, name)
  return m
}
const b = (s: string): Buffer => Buffer.from(s)

describe('bench KV transports: the h2 codec against protobufjs', () => {
  it('encodes Range and Txn requests that protobufjs reads back field for field', () => {
    assert.deepEqual(method('Range').requestDeserialize(Buffer.from(encodeRange(b('a'), b('b'), true))),
      { key: b('a'), range_end: b('b'), serializable: true, limit: '0', revision: '0', sort_order: 'NONE', sort_target: 'KEY', keys_only: false, count_only: false,
        min_mod_revision: '0', max_mod_revision: '0', min_create_revision: '0', max_create_revision: '0' })
    const txn = method('Txn').requestDeserialize(Buffer.from(encodeTxn({
      compareValue: { key: b('k'), value: new Uint8Array(0) },
      success: [{ put: { key: b('k'), value: b('v') } }],
      failure: [{ range: { key: b('k') } }],
    }))) as { compare: Record<string, unknown>[]; success: Record<string, unknown>[]; failure: Record<string, unknown>[] }
    assert.equal(txn.compare.length, 1)
    // An empty compare value is still sent: it is what selects the oneof.
    assert.deepEqual([txn.compare[0]?.['target'], txn.compare[0]?.['result'], txn.compare[0]?.['key'], txn.compare[0]?.['value'], txn.compare[0]?.['target_union']],
      ['VALUE', 'EQUAL', b('k'), Buffer.alloc(0), 'value'])
    assert.deepEqual((txn.success[0]?.['request_put'] as Record<string, unknown>)['value'], b('v'))
    assert.deepEqual((txn.failure[0]?.['request_range'] as Record<string, unknown>)['key'], b('k'))
  })

  it('decodes what protobufjs encodes: range values, put header, txn outcome', () => {
    const header = { cluster_id: 1, member_id: 2, revision: 3, raft_term: 4 }
    const kvs = [{ key: b('a'), value: b('1'), create_revision: 2, mod_revision: 3, version: 1 }, { key: b('b'), value: b(''), version: 1 }]
    assert.deepEqual(decodeRangeValues(method('Range').responseSerialize({ header, kvs, count: 2 })), [b('1'), b('')])
    assert.equal(putHasHeader(method('Put').responseSerialize({ header })), true)
    assert.equal(putHasHeader(method('Put').responseSerialize({})), false)
    const txn = (v: unknown): TxnOutcome => decodeTxn(method('Txn').responseSerialize(v))
    assert.deepEqual(txn({ header, succeeded: false, responses: [{ response_range: { header, kvs: [kvs[0]], count: 1 } }] }),
      { succeeded: false, responses: 1, firstRangeValue: b('1') })
    assert.deepEqual(txn({ header, succeeded: true, responses: [{ response_put: { header } }, { response_put: { header } }] }),
      { succeeded: true, responses: 2, firstRangeValue: undefined })
  })

  it('frames one message, and refuses anything else as a response body', () => {
    const framed = frameMessage(b('xyz'))
    assert.deepEqual([...framed], [0, 0, 0, 0, 3, 0x78, 0x79, 0x7a])
    assert.deepEqual(unframe(framed), b('xyz'))
    assert.throws(() => unframe(Buffer.from([0, 0, 0])), /3 bytes, not one gRPC message/)
    assert.throws(() => unframe(Buffer.from([1, 0, 0, 0, 0])), /compressed/)
    assert.throws(() => unframe(Buffer.from([0, 0, 0, 0, 2, 1])), /6 bytes for a message of 2/)
  })
})

/** The requests the workloads send, in order, and what each got: the same for every client and server. */
async function script(t: KvTransport, prefix: string): Promise<unknown[]> {
  const k = (s: string): Buffer => b(`${prefix}${s}`)
  const out: unknown[] = []
  const settle = async (p: Promise<unknown>): Promise<unknown> => p.then((v) => ({ ok: v }), (e: unknown) => ({ err: e instanceof Error ? e.message.replace(/^\d+ (?:[A-Z_]+: )?/, '') : String(e) }))
  out.push(await settle(t.put(k('a'), b('1'))))
  out.push(await settle(t.txn({ success: [{ put: { key: k('b'), value: b('2') } }, { put: { key: k('c'), value: b('') } }] })))
  out.push(await settle(t.range(k('a'), undefined, false)))
  out.push(await settle(t.range(k('a'), k('z'), true)))
  out.push(await settle(t.range(k('nothing'), undefined, false)))
  // Compare-and-swap: holds, then fails on the stale value and reads the current one.
  out.push(await settle(t.txn({ compareValue: { key: k('a'), value: b('1') }, success: [{ put: { key: k('a'), value: b('9') } }], failure: [{ range: { key: k('a') } }] })))
  out.push(await settle(t.txn({ compareValue: { key: k('a'), value: b('1') }, success: [{ put: { key: k('a'), value: b('8') } }], failure: [{ range: { key: k('a') } }] })))
  // An error status reaches the caller with etcd's text.
  out.push(await settle(t.txn({ success: [{ put: { key: k('d'), value: b('') } }, { put: { key: k('d'), value: b('') } }] })))
  return out
}

const WANT: readonly unknown[] = [
  { ok: undefined },
  { ok: { succeeded: true, responses: 2, firstRangeValue: undefined } },
  { ok: [b('1')] },
  { ok: [b('1'), b('2'), b('')] },
  { ok: [] },
  { ok: { succeeded: true, responses: 1, firstRangeValue: undefined } },
  { ok: { succeeded: false, responses: 1, firstRangeValue: b('9') } },
  { err: 'etcdserver: duplicate key given in txn request' },
]

for (const server of ['etcdlite', 'etcd'] as const) {
  describe(`bench KV transports against ${server}`, { skip: server === 'etcd' && !haveEtcd() ? 'etcd is not installed' : false }, () => {
    let s: ServerProcess | undefined
    before(async () => {
      s = server === 'etcd' ? await startReferenceEtcd() : await startEtcdliteProcess({ memory: true })
    })
    after(async () => {
      await s?.dispose()
    })
    for (const client of KV_CLIENTS) {
      it(`${client}: every request the workloads send, and an error status`, async () => {
        assert.ok(s !== undefined)
        const [t] = await openTransports(client, s.endpoint.replace(/^https?:\/\//, ''), 1, undefined)
        assert.ok(t !== undefined)
        try {
          assert.deepEqual(await script(t, `${client}/`), WANT)
        } finally {
          t.close()
        }
      })
    }
  })
}
