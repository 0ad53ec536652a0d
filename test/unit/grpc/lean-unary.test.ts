// The lean unary path answers exactly as grpc-js does. Two servers in the same state get the same calls: one
// as the lean path serves them (no deadline), the other with a deadline, which sends the call to grpc-js.
// Every response header (in order, as HPACK encodes them; `date` aside), every trailer, whether the answer
// was trailers-only, and every body byte must be the same.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect as h2connect, type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2'
import { once } from 'node:events'
import { openEtcd } from '../../../src/embed/etcd.js'

function grpcMessage(body: Buffer, flag = 0): Buffer {
  const h = Buffer.alloc(5)
  h[0] = flag
  h.writeUInt32BE(body.length, 1)
  return Buffer.concat([h, body])
}

const KEY_K = Buffer.from([0x0a, 0x01, 0x6b])
/** PutRequest{key: "k", value: "v"}. */
const PUT_KV = Buffer.from([0x0a, 0x01, 0x6b, 0x12, 0x01, 0x76])
/** TxnRequest{success: [RequestOp{request_put: {key: "t", value: "1"}}]}. */
const TXN_PUT = Buffer.from([0x12, 0x08, 0x12, 0x06, 0x0a, 0x01, 0x74, 0x12, 0x01, 0x31])
/** CompactionRequest{revision: 1000}: a future revision, an etcd error. */
const COMPACT_FUTURE = Buffer.from([0x08, 0xe8, 0x07])

interface Answer {
  readonly headers: string[]
  readonly trailersOnly: boolean
  readonly trailers: string[]
  readonly body: string
}

/** Without `date`, whose value is the time. */
function ordered(raw: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i] !== 'date') out.push(`${raw[i]}: ${raw[i + 1]}`)
  return out
}

async function call(session: ClientHttp2Session, path: string, body: Buffer[], extra: OutgoingHttpHeaders): Promise<Answer> {
  const s = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...extra })
  let headers: string[] = []
  let trailers: string[] = []
  let trailersOnly = false
  const chunks: Buffer[] = []
  s.on('response', (_h: unknown, flags: number, raw: string[]) => {
    headers = ordered(raw)
    trailersOnly = (flags & 0x1) !== 0
  })
  s.on('trailers', (_t: unknown, _flags: unknown, raw: string[]) => (trailers = ordered(raw)))
  s.on('data', (c: Buffer) => chunks.push(c))
  s.on('error', () => undefined)
  for (const b of body) s.write(b)
  s.end()
  await once(s, 'close')
  return { headers, trailersOnly, trailers, body: Buffer.concat(chunks).toString('hex') }
}

const KV = '/etcdserverpb.KV/'
const CASES: readonly { readonly name: string; readonly path: string; readonly body: Buffer[]; readonly headers?: OutgoingHttpHeaders }[] = [
  { name: 'Put', path: `${KV}Put`, body: [grpcMessage(PUT_KV)] },
  { name: 'Range', path: `${KV}Range`, body: [grpcMessage(KEY_K)] },
  { name: 'Range, the message in two writes', path: `${KV}Range`, body: [grpcMessage(KEY_K).subarray(0, 3), grpcMessage(KEY_K).subarray(3)] },
  { name: 'Txn', path: `${KV}Txn`, body: [grpcMessage(TXN_PUT)] },
  { name: 'a Txn gogoproto refuses', path: `${KV}Txn`, body: [grpcMessage(Buffer.from([0x0a, 0x02, 0x0c, 0x00]))] },
  { name: 'DeleteRange', path: `${KV}DeleteRange`, body: [grpcMessage(Buffer.from([0x0a, 0x01, 0x74]))] },
  { name: 'Compact to a future revision', path: `${KV}Compact`, body: [grpcMessage(COMPACT_FUTURE)] },
  { name: 'an empty key (an etcd error)', path: `${KV}Range`, body: [grpcMessage(Buffer.alloc(0))] },
  { name: 'no request message', path: `${KV}Range`, body: [] },
  { name: 'two request messages', path: `${KV}Range`, body: [grpcMessage(KEY_K), grpcMessage(KEY_K)] },
  { name: 'a message gogoproto refuses', path: `${KV}Range`, body: [grpcMessage(Buffer.from([0x0a, 0x05, 0x6b]))] },
  { name: 'a message over the receive limit', path: `${KV}Put`, body: [Buffer.from([0, 0x7f, 0xff, 0xff, 0xff])] },
  { name: 'the compressed flag with the identity encoding', path: `${KV}Range`, body: [grpcMessage(KEY_K, 1)], headers: { 'grpc-encoding': 'identity' } },
  { name: 'a bad token', path: `${KV}Range`, body: [grpcMessage(KEY_K)], headers: { token: 'nope' } },
  { name: 'custom metadata and application/grpc+proto', path: `${KV}Range`, body: [grpcMessage(KEY_K)], headers: { 'x-custom': 'a', 'content-type': 'application/grpc+proto' } },
]

describe('lean unary path', () => {
  it('answers every call as grpc-js does', async () => {
    // The same ids, so that the response headers match.
    const ids = { memberId: 0x1234n, clusterId: 0x5678n }
    const lean = await openEtcd({ memory: true, ...ids })
    const grpcJs = await openEtcd({ memory: true, ...ids })
    try {
      const a = h2connect(`http://${(await lean.listen({ port: 0 })).endpoint}`)
      const b = h2connect(`http://${(await grpcJs.listen({ port: 0 })).endpoint}`)
      try {
        for (const c of CASES) {
          const viaLean = await call(a, c.path, c.body, c.headers ?? {})
          const viaGrpcJs = await call(b, c.path, c.body, { ...c.headers, 'grpc-timeout': '100S' })
          assert.deepEqual(viaLean, viaGrpcJs, c.name)
          assert.notEqual(viaLean.trailersOnly ? viaLean.headers.length : viaLean.trailers.length, 0, `${c.name}: a status was sent`)
        }
      } finally {
        a.close()
        b.close()
      }
    } finally {
      await lean.close()
      await grpcJs.close()
    }
  })

  it('counts the calls it serves in the gRPC metrics', async () => {
    const etcd = await openEtcd({ memory: true })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      const s = h2connect(`http://${endpoint}`)
      try {
        for (let i = 0; i < 3; i++) await call(s, `${KV}Range`, [grpcMessage(KEY_K)], {})
        await call(s, `${KV}Range`, [grpcMessage(Buffer.alloc(0))], {})
      } finally {
        s.close()
      }
      const text = await (await fetch(`http://${endpoint}/metrics`)).text()
      assert.match(text, /grpc_server_started_total\{grpc_method="Range",grpc_service="etcdserverpb.KV",grpc_type="unary"\} 4\b/)
      assert.match(text, /grpc_server_handled_total\{grpc_code="OK",grpc_method="Range",grpc_service="etcdserverpb.KV",grpc_type="unary"\} 3\b/)
      assert.match(text, /grpc_server_handled_total\{grpc_code="InvalidArgument",grpc_method="Range",grpc_service="etcdserverpb.KV",grpc_type="unary"\} 1\b/)
    } finally {
      await etcd.close()
    }
  })
})
