// A client's stream resets over HTTP/2: cancelling calls at an ordinary rate, for as long as it likes,
// never costs the connection (etcd sends no GOAWAY for them), while a rapid-reset flood still gets
// GOAWAY(INTERNAL_ERROR), nghttp2's answer, and leaves the server serving everyone else.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect as h2connect, constants, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2'
import { connect as netConnect, type Socket } from 'node:net'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { openEtcd } from '../../src/embed/etcd.js'
import { encodeWithoutIndexing } from '../../src/grpc/hpack.js'
import { CONNECTION_PREFACE, frameHeader, FrameFlag, FrameType } from '../../src/grpc/http2-frame-filter.js'
import { rawClient } from '../helpers/grpc-client.js'

/** A gRPC length-prefixed message. */
function grpcMessage(body: Buffer): Buffer {
  const h = Buffer.alloc(5)
  h.writeUInt32BE(body.length, 1)
  return Buffer.concat([h, body])
}

/** WatchRequest{create_request: {key: "k"}} and RangeRequest{key: "k"}. */
const WATCH_CREATE = grpcMessage(Buffer.from([0x0a, 0x03, 0x0a, 0x01, 0x6b]))
const RANGE_K = grpcMessage(Buffer.from([0x0a, 0x01, 0x6b]))

function grpcRequest(session: ClientHttp2Session, path: string): ClientHttp2Stream {
  return session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' })
}

/** A unary Range on `session`: its grpc-status. */
async function rangeStatus(session: ClientHttp2Session): Promise<string | undefined> {
  const s = grpcRequest(session, '/etcdserverpb.KV/Range')
  s.on('error', () => undefined)
  s.end(RANGE_K)
  s.resume()
  let status: string | undefined
  s.on('trailers', (t: Record<string, string | undefined>) => (status = t['grpc-status']))
  await once(s, 'close')
  return status
}

/** A figure from the server's /metrics (served on the gRPC port): the first group of `re`, or -1. */
async function metric(endpoint: string, re: RegExp): Promise<number> {
  const text = await (await fetch(`http://${endpoint}/metrics`)).text()
  const m = re.exec(text)
  return m === null ? -1 : Number(m[1])
}

/** Poll an asynchronous condition every 50 ms; fail with `what` after 20 s. */
async function untilAsync(cond: () => Promise<boolean>, what: string): Promise<void> {
  const t0 = Date.now()
  while (!(await cond())) {
    if (Date.now() - t0 > 20_000) assert.fail(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** The error code of the server's first GOAWAY on a raw connection, or 'closed' if it closes without one. */
function firstGoaway(socket: Socket): Promise<number | 'closed'> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0)
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d])
      while (buf.length >= 9 && buf.length >= 9 + buf.readUIntBE(0, 3)) {
        if (buf[3] === FrameType.GOAWAY) resolve(buf.readUInt32BE(9 + 4))
        buf = buf.subarray(9 + buf.readUIntBE(0, 3))
      }
    })
    socket.on('error', () => undefined)
    socket.on('close', () => resolve('closed'))
  })
}

const EMPTY_SETTINGS = frameHeader(0, FrameType.SETTINGS, 0, 0)

/** HEADERS opening a Watch call on `streamId`, and RST_STREAM(CANCEL) for it. */
function watchHeaders(streamId: number, authority: string): Buffer {
  const block = encodeWithoutIndexing([
    { name: ':method', value: 'POST' }, { name: ':scheme', value: 'http' }, { name: ':path', value: '/etcdserverpb.Watch/Watch' },
    { name: ':authority', value: authority }, { name: 'content-type', value: 'application/grpc' }, { name: 'te', value: 'trailers' },
  ])
  return Buffer.concat([frameHeader(block.length, FrameType.HEADERS, FrameFlag.END_HEADERS, streamId), block])
}
function rstCancel(streamId: number): Buffer {
  const payload = Buffer.alloc(4)
  payload.writeUInt32BE(constants.NGHTTP2_CANCEL)
  return Buffer.concat([frameHeader(4, FrameType.RST_STREAM, 0, streamId), payload])
}

describe('HTTP/2 stream resets', () => {
  it('2,500 watches cancelled at ~200/s on one connection: no GOAWAY, the connection keeps serving', { timeout: 120_000 }, async () => {
    const etcd = await openEtcd({ memory: true })
    const { endpoint } = await etcd.listen({ port: 0 })
    const session = h2connect(`http://${endpoint}`)
    const goaway: number[] = []
    const gone = new Promise<void>((resolve) => {
      session.on('goaway', (code: number) => {
        goaway.push(code)
        resolve()
      })
      session.on('close', resolve)
    })
    session.on('error', () => undefined)
    try {
      const t0 = performance.now()
      for (let i = 0; i < 2500 && goaway.length === 0 && !session.closed && !session.destroyed; i++) {
        const wait = t0 + i * 5 - performance.now()
        if (wait > 0) await sleep(wait)
        const s = grpcRequest(session, '/etcdserverpb.Watch/Watch')
        s.on('error', () => undefined)
        s.write(WATCH_CREATE)
        // The watch is created (its first response arrived): an ordinary cancellation of a live call.
        await Promise.race([once(s, 'data'), once(s, 'close'), gone])
        s.close(constants.NGHTTP2_CANCEL)
      }
      assert.deepEqual(goaway, [], 'the server sent GOAWAY')
      assert.equal(await rangeStatus(session), '0')
      // Each cancellation reached its call: the server holds no watcher any more.
      await untilAsync(async () => (await metric(endpoint, /^etcd_debugging_mvcc_watcher_total (\d+)$/m)) === 0, 'every cancelled watch to be gone')
    } finally {
      session.destroy()
      await etcd.close()
    }
  })

  for (const variant of ['HEADERS and RST_STREAM together', 'RST_STREAM after the streams opened'] as const) {
    it(`a rapid-reset flood (${variant}) gets GOAWAY(INTERNAL_ERROR); the server keeps serving`, { timeout: 60_000 }, async () => {
      const etcd = await openEtcd({ memory: true })
      const { endpoint } = await etcd.listen({ port: 0 })
      const kv = rawClient(endpoint)
      try {
        const socket: Socket = netConnect({ host: endpoint.slice(0, endpoint.lastIndexOf(':')), port: Number(endpoint.slice(endpoint.lastIndexOf(':') + 1)) })
        await once(socket, 'connect')
        const goaway = firstGoaway(socket)
        socket.write(Buffer.concat([CONNECTION_PREFACE, EMPTY_SETTINGS]))
        const ids = Array.from({ length: 5000 }, (_, i) => 2 * i + 1)
        if (variant === 'HEADERS and RST_STREAM together') {
          for (let i = 0; i < ids.length; i += 100) {
            socket.write(Buffer.concat(ids.slice(i, i + 100).flatMap((id) => [watchHeaders(id, endpoint), rstCancel(id)])))
          }
        } else {
          socket.write(Buffer.concat(ids.map((id) => watchHeaders(id, endpoint))))
          // Every stream opened (grpc-js started its call) before the first reset arrives.
          await untilAsync(async () => (await metric(endpoint, /^grpc_server_started_total\{grpc_method="Watch",grpc_service="etcdserverpb\.Watch"[^}]*\} (\d+)$/m)) === ids.length, 'the streams to open')
          socket.write(Buffer.concat(ids.map(rstCancel)), () => undefined)
        }
        // nghttp2 sends GOAWAY and then refuses new streams; closing the connection is left to the client.
        const code = await Promise.race([goaway, sleep(30_000).then(() => 'none within 30 s' as const)])
        socket.destroy()
        assert.equal(code, constants.NGHTTP2_INTERNAL_ERROR)
        await kv.kv.Put({ key: Buffer.from('after'), value: Buffer.from('flood') })
        const res = await kv.kv.Range({ key: Buffer.from('after') })
        assert.equal((res['kvs'] as { value: Buffer }[])[0]?.value.toString(), 'flood')
      } finally {
        kv.close()
        await etcd.close()
      }
    })
  }
})
