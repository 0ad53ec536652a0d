// Malformed and hostile input never crashes the server: random bytes, mutated valid messages and absurdly
// deep txns sent to every KV method get an answer (a response or a status), and the server keeps serving
// with its data intact.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as grpc from '@grpc/grpc-js'
import protobuf from 'protobufjs'
import { openEtcd } from '../../src/embed/etcd.js'
import { PROTO_DIR } from '../../src/grpc/proto.js'
import { Prng } from '../helpers/prng.js'
import { rawClient } from '../helpers/grpc-client.js'
import { putTxn, wrapTxn } from '../helpers/nested-txn.js'

const METHODS = ['Range', 'Put', 'DeleteRange', 'Txn', 'Compact'] as const

const root = new protobuf.Root()
root.resolvePath = (_o, target) => `${PROTO_DIR}/${target}`
root.loadSync('etcdserverpb/rpc.proto', { keepCase: true })

/** Send raw bytes to a KV method; resolves with the status code (0 for OK). */
async function sendRaw(client: grpc.Client, method: string, bytes: Buffer): Promise<number> {
  return (await callRaw(client, method, bytes)).code
}

/** Send raw bytes to a KV method; resolves with the status code (0 for OK) and message. */
function callRaw(client: grpc.Client, method: string, bytes: Buffer): Promise<{ code: number; details: string }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(`/etcdserverpb.KV/${method}`, (b: Buffer) => b, (b: Buffer) => b, bytes, (err) => {
      resolve(err === null ? { code: 0, details: '' } : { code: err.code, details: err.details })
    })
  })
}

/** A TxnRequest of `depth` levels that each hold the next in their success; the innermost one puts `leaf`. */
function nestedTxn(depth: number, leaf?: string): Buffer {
  return leaf === undefined ? wrapTxn(depth, Buffer.alloc(0)) : wrapTxn(depth - 1, putTxn(leaf))
}

describe('hostile input over gRPC', () => {
  it('random and mutated messages get an answer, and the server keeps serving', { timeout: 120_000 }, async () => {
    const etcd = await openEtcd({ memory: true })
    const { endpoint } = await etcd.listen({ port: 0 })
    const client = new grpc.Client(endpoint, grpc.credentials.createInsecure())
    const kv = rawClient(endpoint)
    try {
      await kv.kv.Put({ key: Buffer.from('keep'), value: Buffer.from('me') })
      const rnd = new Prng(20261122)
      const valid: Record<string, Buffer> = {
        Range: Buffer.from(root.lookupType('etcdserverpb.RangeRequest').encode({ key: Buffer.from('a'), range_end: Buffer.from('z'), limit: 5 }).finish()),
        Put: Buffer.from(root.lookupType('etcdserverpb.PutRequest').encode({ key: Buffer.from('fuzz'), value: Buffer.from('v'), prev_kv: true }).finish()),
        DeleteRange: Buffer.from(root.lookupType('etcdserverpb.DeleteRangeRequest').encode({ key: Buffer.from('fuzz') }).finish()),
        Txn: Buffer.from(root.lookupType('etcdserverpb.TxnRequest').encode({
          compare: [{ key: Buffer.from('fuzz'), target: 3, result: 0, value: Buffer.from('v') }],
          success: [{ request_put: { key: Buffer.from('fuzz'), value: Buffer.from('w') } }],
          failure: [{ request_range: { key: Buffer.from('fuzz') } }],
        }).finish()),
        Compact: Buffer.from(root.lookupType('etcdserverpb.CompactionRequest').encode({ revision: 1 }).finish()),
      }
      for (let i = 0; i < 1500; i++) {
        const method = METHODS[rnd.int(METHODS.length)] as (typeof METHODS)[number]
        let bytes: Buffer
        if (rnd.chance(0.4)) bytes = Buffer.from(Array.from({ length: rnd.int(64) }, () => rnd.int(256)))
        else {
          bytes = Buffer.from(valid[method] as Buffer)
          for (let j = 0; j <= rnd.int(4); j++) if (bytes.length > 0) bytes[rnd.int(bytes.length)] = rnd.int(256)
          if (rnd.chance(0.2)) bytes = bytes.subarray(0, rnd.int(bytes.length + 1))
        }
        const code = await sendRaw(client, method, bytes)
        assert.notEqual(code, grpc.status.UNAVAILABLE, `${method} ${bytes.toString('hex')} lost the connection`)
      }
      for (const depth of [100, 1000, 20000]) {
        const code = await sendRaw(client, 'Txn', nestedTxn(depth))
        assert.notEqual(code, grpc.status.UNAVAILABLE, `a txn nested ${depth} deep lost the connection`)
      }
      const r = await kv.kv.Range({ key: Buffer.from('keep') })
      const kvs = r['kvs'] as { value: Buffer }[]
      assert.equal(kvs[0]?.value.toString(), 'me', 'the server still serves, data intact')
    } finally {
      client.close()
      kv.close()
      await etcd.close()
    }
  })

  it('a nested txn is applied and answered up to the depth etcd takes, and refused before applying beyond it', { timeout: 60_000 }, async () => {
    const etcd = await openEtcd({ memory: true })
    const { endpoint } = await etcd.listen({ port: 0 })
    const client = new grpc.Client(endpoint, grpc.credentials.createInsecure())
    const kv = rawClient(endpoint)
    const revision = async (): Promise<number> => {
      const r = await kv.kv.Range({ key: Buffer.from('none') })
      return Number((r['header'] as { revision: string }).revision)
    }
    try {
      // With --max-txn-ops 128 etcd takes 128 levels whose innermost puts: each level spends one op.
      for (const depth of [10, 49, 50, 100, 128]) {
        const before = await revision()
        const answer = await callRaw(client, 'Txn', nestedTxn(depth, `d${depth}`))
        assert.deepEqual(answer, { code: 0, details: '' }, `a txn nested ${depth} deep is answered`)
        assert.equal(await revision(), before + 1, `a txn nested ${depth} deep is applied once`)
        const r = await kv.kv.Range({ key: Buffer.from(`d${depth}`) })
        assert.equal((r['kvs'] as unknown[]).length, 1)
      }
      for (const depth of [129, 1000, 10000, 100000]) {
        const before = await revision()
        const answer = await callRaw(client, 'Txn', nestedTxn(depth, `d${depth}`))
        assert.deepEqual(
          answer,
          { code: grpc.status.INVALID_ARGUMENT, details: 'etcdserver: too many operations in txn request' },
          `a txn nested ${depth} deep is refused as etcd refuses it`,
        )
        assert.equal(await revision(), before, `a txn nested ${depth} deep is not applied`)
      }
    } finally {
      client.close()
      kv.close()
      await etcd.close()
    }
  })

  it('a request etcd cannot unmarshal gets its INTERNAL status and Go text, not a check of what we decoded', async () => {
    const etcd = await openEtcd({ memory: true })
    const { endpoint } = await etcd.listen({ port: 0 })
    const client = new grpc.Client(endpoint, grpc.credentials.createInsecure())
    try {
      const prefix = 'grpc: error unmarshalling request: '
      // The key sent as a varint (wire type 0): etcd's Unmarshal refuses it.
      assert.deepEqual(await callRaw(client, 'Range', Buffer.from([0x08, 0x01])), {
        code: grpc.status.INTERNAL, details: `${prefix}proto: wrong wireType = 0 for field Key`,
      })
      assert.deepEqual(await callRaw(client, 'Put', Buffer.from([0x0a, 0x01, 0x6b, 0x12, 0x05, 0x76])), {
        code: grpc.status.INTERNAL, details: `${prefix}unexpected EOF`,
      })
      assert.deepEqual(await callRaw(client, 'Txn', Buffer.from([0x12, 0x04, 0x0a, 0x02, 0x00, 0x00])), {
        code: grpc.status.INTERNAL, details: `${prefix}proto: RangeRequest: illegal tag 0 (wire type 0)`,
      })
      // An unknown group is skipped, as etcd does: the Range goes on to its own check.
      assert.deepEqual(await callRaw(client, 'Range', Buffer.from([0xfb, 0x07, 0x08, 0x01, 0xfc, 0x07])), {
        code: grpc.status.INVALID_ARGUMENT, details: 'etcdserver: key is not provided',
      })
    } finally {
      client.close()
      await etcd.close()
    }
  })

  it('a request over the receive limit gets grpc-go\'s RESOURCE_EXHAUSTED text, and the server keeps serving', { timeout: 60_000 }, async () => {
    const etcd = await openEtcd({ memory: true })
    const { endpoint } = await etcd.listen({ port: 0 })
    const client = new grpc.Client(endpoint, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 })
    try {
      // The limit is --max-request-bytes (1.5 MiB by default) plus gRPC's 512 KiB overhead: 2097152.
      for (const size of [2_097_153, 3_000_000, 64 * 1024 * 1024]) {
        assert.deepEqual(await callRaw(client, 'Range', Buffer.alloc(size, 0x61)), {
          code: grpc.status.RESOURCE_EXHAUSTED, details: `grpc: received message larger than max (${size} vs. 2097152)`,
        })
      }
      assert.deepEqual(await callRaw(client, 'Range', Buffer.from([0x0a, 0x01, 0x61])), { code: 0, details: '' })
    } finally {
      client.close()
      await etcd.close()
    }
  })
})
