// The JSON gateway over WebSocket (etcd wraps its gateway in grpc-websocket-proxy): the same sessions
// against etcdlite and the real etcd 3.4.23, compared message by message with the IDs, revisions' owners
// and raft term masked: a watch created by one message, its event, a second request on the same socket; a
// unary call, answered and then dropped, also when its request comes in two messages; malformed requests; the "Bearer" subprotocol and its token; an
// upgrade to something else than WebSocket, served as a plain request; and a client that goes away.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { WebSocket } from 'ws'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { startGatewayEtcd } from '../helpers/gateway-etcd.js'
import { gatewayRequest } from '../helpers/gateway-http.js'
import { haveEtcd, type ServerProcess } from '../helpers/processes.js'
import { until } from '../helpers/until.js'

const b64 = (s: string): string => Buffer.from(s).toString('base64')

/** What a session saw: the messages, masked, then how the connection ended. */
interface Transcript {
  readonly protocol: string
  readonly messages: unknown[]
  readonly closed: string
}

const MASKED = new Set(['cluster_id', 'member_id', 'raft_term', 'watch_id'])
/** A JSON message with the IDs masked; any other text as it is. */
function mask(text: string): unknown {
  try {
    return JSON.parse(text, (k, v: unknown) => (MASKED.has(k) ? '<masked>' : v))
  } catch {
    return text
  }
}

/**
 * Open a WebSocket to `path`, send `send` (each a message), wait for `expect` messages, then for the server
 * to end the connection (a call that ends) or close it (a stream that stays open), and return what came.
 */
async function session(
  endpoint: string, path: string, send: readonly string[], expect: number,
  opts: { protocols?: string[]; between?: () => Promise<void>; stream?: boolean } = {},
): Promise<Transcript> {
  const ws = new WebSocket(`ws://${endpoint}${path}`, opts.protocols ?? [])
  const messages: unknown[] = []
  let closed = ''
  ws.on('message', (data: Buffer) => messages.push(mask(data.toString())))
  const ended = new Promise<void>((resolve) => ws.once('close', (code) => {
    closed = code === 1006 ? 'dropped' : `close ${code}`
    resolve()
  }))
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  for (const m of send) ws.send(m)
  await until(() => messages.length >= Math.min(expect, 1) || closed !== '', 'the first message', 10_000)
  if (opts.between !== undefined) await opts.between()
  await until(() => messages.length >= expect || closed !== '', `${expect} messages`, 10_000)
  if (opts.stream !== true) await until(() => closed !== '', 'the server to end the connection', 10_000)
  if (closed === '') {
    ws.close()
    await ended
    closed = 'by the client'
  }
  return { protocol: ws.protocol, messages, closed }
}

/** POST an HTTP/1.1 request that also asks to upgrade to h2c, as `curl --http2` does on http://. */
function postWithUpgrade(endpoint: string, path: string, body: string): Promise<{ status: number; body: string }> {
  const [host, port] = endpoint.split(':')
  return new Promise((resolve, reject) => {
    const req = request({
      host, port: Number(port), path, method: 'POST', agent: false,
      headers: { Connection: 'Upgrade, HTTP2-Settings', Upgrade: 'h2c', 'HTTP2-Settings': 'AAMAAABkAARAAAAAAAIAAAAA', 'Content-Length': String(Buffer.byteLength(body)) },
    }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('upgrade', () => reject(new Error('the server switched protocols')))
    req.on('error', reject)
    req.end(body)
  })
}

async function transcripts(endpoint: string): Promise<Record<string, unknown>> {
  const put = (key: string, value: string): Promise<unknown> => gatewayRequest(endpoint, { path: '/v3/kv/put', body: JSON.stringify({ key: b64(key), value: b64(value) }) })
  const out: Record<string, unknown> = {}
  out['watch'] = await session(endpoint, '/v3/watch', [JSON.stringify({ create_request: { key: b64('ws/a') } })], 2, {
    between: async () => void (await put('ws/a', '1')),
    stream: true,
  })
  out['two watches on one socket'] = await session(endpoint, '/v3/watch', [
    JSON.stringify({ create_request: { key: b64('ws/b'), start_revision: 2 } }),
    JSON.stringify({ create_request: { key: b64('ws/a'), start_revision: 2 } }),
  ], 3, { stream: true })
  out['unary range'] = await session(endpoint, '/v3/kv/range', [JSON.stringify({ key: b64('ws/a') })], 1)
  out['v3beta'] = await session(endpoint, '/v3beta/kv/range', [JSON.stringify({ key: b64('ws/a') })], 1)
  out['a field of the wrong type'] = await session(endpoint, '/v3/kv/range', ['{"key": 5}'], 1)
  out['not JSON'] = await session(endpoint, '/v3/kv/range', ['{"key" 5}'], 1)
  out['one request in two messages'] = await session(endpoint, '/v3/kv/range', ['{"key":', `"${b64('ws/a')}"}`], 1)
  out['unknown route'] = await session(endpoint, '/v3/kv/nothing', [JSON.stringify({})], 1)
  out['bearer subprotocol'] = await session(endpoint, '/v3/kv/range', [JSON.stringify({ key: b64('ws/a') })], 1, { protocols: ['Bearer', 'sometoken'] })
  out['h2c upgrade served as a plain request'] = await postWithUpgrade(endpoint, '/v3/kv/range', JSON.stringify({ key: b64('ws/a') }))
    .then((r) => ({ status: r.status, body: mask(r.body) }))
  return out
}

describe('the JSON gateway over WebSocket', () => {
  let etcd: Etcd
  let endpoint: string
  let reference: ServerProcess | undefined

  before(async () => {
    etcd = await openEtcd({ memory: true, etcdVersion: '3.4.23' })
    endpoint = (await etcd.listen({ port: 0 })).endpoint
    if (haveEtcd()) reference = await startGatewayEtcd()
  })
  after(async () => {
    await reference?.dispose()
    await etcd.close()
  })

  it('answers every session as the real etcd does', { skip: haveEtcd() ? false : 'no `etcd` binary on PATH' }, async () => {
    const want = await transcripts(reference?.endpoint ?? assert.fail('no reference'))
    const got = await transcripts(endpoint)
    assert.deepEqual(got, want)
  })

  it('a client that goes away ends its watch on the server', async () => {
    const ws = new WebSocket(`ws://${endpoint}/v3/watch`)
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    const created = new Promise<void>((resolve) => ws.once('message', () => resolve()))
    ws.send(JSON.stringify({ create_request: { key: b64('gone/'), range_end: b64('gone0') } }))
    await created
    const watchers = (): number => {
      const c = etcd.server.watchable.counts()
      return c.synced + c.unsynced + c.victims
    }
    const streams = etcd.server.watchable.streamCount()
    const watching = watchers()
    assert.ok(watching >= 1)
    ws.terminate()
    await until(() => watchers() === watching - 1 && etcd.server.watchable.streamCount() === streams - 1, 'the watcher and its stream to go')
  })
})
