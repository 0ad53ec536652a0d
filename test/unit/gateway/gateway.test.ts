// The gateway's own bounds and cleanup, and its JSON pieces: a client that hangs up on a watch leaves no
// watcher, an oversized body is refused with Go's MaxBytesReader text, and the decoder and base64 say
// what Go says.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { openEtcd } from '../../../src/embed/etcd.js'
import { gatewayRequest } from '../../helpers/gateway-http.js'
import { until } from '../../helpers/until.js'
import { JsonStreamDecoder, JsonSyntaxError, quoteChar } from '../../../src/gateway/json-decoder.js'
import { CorruptInputError, goBase64Decode } from '../../../src/gateway/go-base64.js'
import type { EtcdServer } from '../../../src/etcdserver/etcd-server.js'

const watchers = (s: EtcdServer): number => {
  const c = s.watchable.counts()
  return c.synced + c.unsynced + c.victims
}

describe('JSON gateway', () => {
  it('cancels the watch when the client hangs up', async () => {
    const etcd = await openEtcd({ memory: true })
    try {
      const l = await etcd.listen({ port: 0 })
      const server = (etcd as unknown as { server: EtcdServer }).server
      const created = await gatewayRequest(l.endpoint, { path: '/v3/watch', body: '{"create_request":{"key":"YQ=="}}', lines: 1 })
      assert.match(created.body, /"created":true/)
      await until(() => watchers(server) === 0, 'the watcher to go')
    } finally {
      await etcd.close()
    }
  })

  it('refuses a body over the limit with 400', async () => {
    const etcd = await openEtcd({ memory: true, maxRequestBytes: 1024 })
    try {
      const l = await etcd.listen({ port: 0 })
      const big = `{"key":"${'A'.repeat(2 * 1024 * 1024)}"}`
      const a = await gatewayRequest(l.endpoint, { path: '/v3/kv/put', body: big })
      assert.equal(a.status, 400)
      assert.equal(a.body, '{"error":"http: request body too large","code":3,"message":"http: request body too large"}')
      // Under the body limit but over the request limit: the server's own refusal, as to a gRPC client.
      const mid = await gatewayRequest(l.endpoint, { path: '/v3/kv/put', body: `{"key":"YQ==","value":"${'A'.repeat(4096)}"}` })
      assert.equal(mid.status, 400)
      assert.match(mid.body, /"error":"etcdserver: request is too large"/)
    } finally {
      await etcd.close()
    }
  })

  it('is off with grpcGateway: false', async () => {
    const etcd = await openEtcd({ memory: true })
    try {
      const l = await etcd.listen({ port: 0, grpcGateway: false })
      const a = await new Promise<number>((resolve, reject) => {
        const [host, port] = l.endpoint.split(':')
        const req = request({ host, port: Number(port), path: '/v3/kv/range', method: 'POST' }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on('error', reject)
        req.end('{}')
      })
      assert.equal(a, 404)
    } finally {
      await etcd.close()
    }
  })
})

describe('gateway JSON decoder', () => {
  const all = (...chunks: string[]): unknown[] => {
    const d = new JsonStreamDecoder()
    const out: unknown[] = []
    for (const c of chunks) {
      d.push(Buffer.from(c))
      for (let v = d.next(); v !== undefined && typeof v !== 'symbol'; v = d.next()) out.push(v)
    }
    d.end()
    for (let v = d.next(); v !== undefined && typeof v !== 'symbol'; v = d.next()) out.push(v)
    return out
  }

  it('reads values split anywhere', () => {
    assert.equal(all('{"a":', '1}', ' 12', '3 "x"').length, 3)
    assert.deepEqual(all('12', '3'), [{ t: 'number', raw: '123' }])
  })

  it("words syntax errors as Go's scanner", () => {
    assert.throws(() => all('{"a" x'), new JsonSyntaxError("invalid character 'x' after object key"))
    assert.throws(() => all('{"a":1,}'), new JsonSyntaxError("invalid character '}' looking for beginning of object key string"))
    assert.throws(() => all('{"a":'), new JsonSyntaxError('unexpected EOF'))
    assert.throws(() => all('[1 2]'), new JsonSyntaxError("invalid character '2' after array element"))
    assert.throws(() => all('"\x01"'), new JsonSyntaxError("invalid character '\\x01' in string literal"))
    assert.equal(quoteChar(0x27), "'\\''")
    assert.equal(quoteChar(0xff), "'ÿ'")
  })

  it("decodes base64 as Go's StdEncoding", () => {
    assert.equal(goBase64Decode(Buffer.from('YQ==')).toString(), 'a')
    assert.equal(goBase64Decode(Buffer.from('Y\nQ=\r=')).toString(), 'a')
    assert.throws(() => goBase64Decode(Buffer.from('YQ=')), new CorruptInputError(3))
    assert.throws(() => goBase64Decode(Buffer.from('YQ==YQ==x')), new CorruptInputError(4))
  })
})
