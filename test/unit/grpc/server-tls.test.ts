// GrpcServer's TLS front on the wire: ALPN choices, what a plaintext client gets from a TLS port (the
// connection closed without a byte of HTTP, as etcd's TLS listener does), and shutdown closing every
// connection, including those mid-handshake, without waiting out the grace period or reporting errors.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect as netConnect, type Socket } from 'node:net'
import { connect as tlsConnect, type TLSSocket } from 'node:tls'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { GrpcServer, type GrpcEndpoint } from '../../../src/grpc/server.js'
import { createPki, type Pki } from '../../helpers/certs.js'
import { until } from '../../helpers/until.js'

let pki: Pki
let etcd: Etcd

before(async () => {
  pki = await createPki()
  etcd = await openEtcd({ memory: true })
})

after(async () => {
  await etcd.close()
  await pki.remove()
})

/** A GrpcServer with TLS on port 0; errors it reports are collected (there must be none). */
async function tlsServer(clientCertAuth = false): Promise<{ server: GrpcServer; at: GrpcEndpoint; reported: unknown[] }> {
  const reported: unknown[] = []
  const server = new GrpcServer(etcd.server, {
    maxRequestBytes: 1 << 20,
    report: (err) => reported.push(err),
    tls: { cert: pki.server.cert, key: pki.server.key, ca: pki.ca, clientCertAuth },
  })
  return { server, at: await server.bind('127.0.0.1', 0), reported }
}

/** Connect with TLS; resolves with the socket once secure, rejects if the handshake fails. */
function tlsClient(port: number, alpn?: readonly string[], cert?: { cert: string; key: string }): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, ca: pki.ca, ...(alpn === undefined ? {} : { ALPNProtocols: [...alpn] }), ...cert })
    s.once('secureConnect', () => resolve(s))
    s.once('error', reject)
  })
}

/**
 * Resolves once the server has refused the client: in the handshake, or (TLS 1.3, where the client's side of
 * the handshake ends before the server has checked its certificate) by closing the connection without
 * answering a request. Fails if the request is answered.
 */
async function refused(port: number, cert?: { cert: string; key: string }): Promise<void> {
  const s = await tlsClient(port, ['http/1.1'], cert).catch(() => undefined)
  if (s === undefined) return
  s.on('error', () => undefined)
  let got = ''
  await new Promise<void>((resolve) => {
    s.on('data', (d: Buffer) => {
      got += d.toString()
      resolve()
    })
    s.once('close', () => resolve())
    s.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
  })
  s.destroy()
  assert.equal(got, '', 'a refused client got an answer')
}

/** Send `bytes` in plaintext; resolves with everything received until the server closed the connection. */
async function plaintextExchange(port: number, bytes: string): Promise<string> {
  const s = netConnect({ host: '127.0.0.1', port })
  let got = ''
  s.on('data', (d: Buffer) => (got += d.toString('latin1')))
  s.on('error', () => undefined)
  await once(s, 'connect')
  s.write(bytes)
  await once(s, 'close')
  return got
}

describe('TLS front: ALPN', () => {
  let srv: Awaited<ReturnType<typeof tlsServer>>
  let client: { cert: string; key: string }
  before(async () => {
    srv = await tlsServer(true)
    client = await pki.client('alpn')
  })
  after(() => srv.server.shutdown(60_000))

  const cases: ReadonlyArray<{ name: string; offer?: readonly string[]; want: 'h2' | 'http/1.1' | false | 'refused' }> = [
    { name: 'a gRPC client (h2 only) gets h2', offer: ['h2'], want: 'h2' },
    { name: 'an HTTP client offering h2 and http/1.1 gets http/1.1', offer: ['h2', 'http/1.1'], want: 'http/1.1' },
    { name: 'an HTTP/1.1 client gets http/1.1', offer: ['http/1.1'], want: 'http/1.1' },
    { name: 'a client without ALPN negotiates none', want: false },
    { name: 'a client offering only unknown protocols is refused', offer: ['spdy/3'], want: 'refused' },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const s = tlsClient(srv.at.port, c.offer, client)
      if (c.want === 'refused') {
        await assert.rejects(s)
        return
      }
      const sock = await s
      assert.equal(sock.alpnProtocol, c.want)
      sock.destroy()
    })
  }
})

describe('TLS front: a plaintext client on a TLS port', () => {
  let srv: Awaited<ReturnType<typeof tlsServer>>
  before(async () => {
    srv = await tlsServer()
  })
  after(() => srv.server.shutdown(60_000))

  const cases = [
    { name: 'an HTTP/1.1 request gets the connection closed, no HTTP answer', bytes: 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n' },
    { name: 'an HTTP/2 (gRPC) preface gets the connection closed', bytes: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' },
  ] as const
  for (const c of cases) {
    it(c.name, async () => {
      const got = await plaintextExchange(srv.at.port, c.bytes)
      assert.doesNotMatch(got, /HTTP\//)
      assert.deepEqual(srv.reported, [])
    })
  }
})

describe('TLS front: shutdown', () => {
  it('closes connections mid-handshake, established ones and refused ones, without waiting out the grace period', { timeout: 20_000 }, async () => {
    const srv = await tlsServer(true)
    const other = await createPki()
    try {
      const [client, stranger] = await Promise.all([pki.client('shutdown'), other.client('stranger')])
      // Refused: no client certificate, a certificate from another CA.
      await refused(srv.at.port)
      await refused(srv.at.port, stranger)
      // Mid-handshake: connected, says nothing.
      const silent: Socket = netConnect({ host: '127.0.0.1', port: srv.at.port })
      silent.on('error', () => undefined)
      await once(silent, 'connect')
      // Established and idle (HTTP/1.1 keep-alive, after one request).
      const idle = await tlsClient(srv.at.port, ['http/1.1'], client)
      idle.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
      let answer = ''
      idle.on('data', (d: Buffer) => (answer += d.toString()))
      idle.on('error', () => undefined)
      // This GrpcServer has no HTTP handler: every path is 404.
      await until(() => answer.startsWith('HTTP/1.1 404'), 'the HTTP answer')

      const closed = [silent, idle].map((s) => (s.closed ? Promise.resolve() : once(s, 'close')))
      // The grace period is longer than the test's timeout: a connection left open would fail the test.
      await srv.server.shutdown(60_000)
      await Promise.all(closed)
      assert.deepEqual(srv.reported, [])
    } finally {
      await srv.server.shutdown(0)
      await other.remove()
    }
  })
})
