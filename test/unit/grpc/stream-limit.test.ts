// --max-concurrent-streams on the wire. The SETTINGS every connection is told (the HTTP/2 front rewrites
// nghttp2's first SETTINGS frame; connections handed over natively get nghttp2's own), and what a client
// that ignores the limit gets, as from etcd: RST_STREAM for each stream beyond it, REFUSED_STREAM on a
// plaintext port, on a TLS port REFUSED_STREAM before the client has acknowledged the SETTINGS and
// PROTOCOL_ERROR after; the other streams and the connection carry on, and a stream the client resets
// makes room at once.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect as http2Connect, constants, type Settings } from 'node:http2'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { frameHeader } from '../../../src/grpc/http2-frame-filter.js'
import { SettingsRewriter } from '../../../src/grpc/stream-limit.js'
import { createPki, type CertFiles, type Pki } from '../../helpers/certs.js'
import { until } from '../../helpers/until.js'
import { RawClient, settingsFrame } from '../../helpers/raw-http2.js'

describe('SettingsRewriter', () => {
  it('rewrites the max-concurrent-streams entry of the first SETTINGS frame, whatever the chunking', () => {
    const first = settingsFrame([[5, 16384], [3, 0xffffffff], [4, 65535]])
    const rest = Buffer.from('after')
    for (const size of [1, 4, 9, 10, first.length, first.length + 5]) {
      const r = new SettingsRewriter(7)
      const all = Buffer.concat([first, rest])
      const out: Buffer[] = []
      for (let i = 0; i < all.length; i += size) out.push(...r.push(all.subarray(i, i + size)))
      assert.deepEqual(Buffer.concat(out), Buffer.concat([settingsFrame([[5, 16384], [3, 7], [4, 65535]]), rest]), `chunks of ${size}`)
      assert.ok(r.done)
    }
  })

  it('adds the entry when nghttp2 sent none, and leaves anything but an initial SETTINGS frame alone', () => {
    assert.deepEqual(Buffer.concat(new SettingsRewriter(9).push(settingsFrame([[5, 16384]]))), settingsFrame([[5, 16384], [3, 9]]))
    const ack = settingsFrame([], 1)
    assert.deepEqual(Buffer.concat(new SettingsRewriter(9).push(ack)), ack)
    const ping = Buffer.concat([frameHeader(8, 6, 0, 0), Buffer.alloc(8)])
    assert.deepEqual(Buffer.concat(new SettingsRewriter(9).push(ping)), ping)
  })
})

let pki: Pki
let alice: CertFiles
let etcd: Etcd

before(async () => {
  pki = await createPki()
  alice = await pki.client('alice')
  etcd = await openEtcd({ memory: true })
})

after(async () => {
  await etcd.close()
  await pki.remove()
})

/** The server's SETTINGS as node:http2 reads them. */
async function remoteSettings(url: string, opts: { cert?: CertFiles } = {}): Promise<Settings> {
  const s = http2Connect(url, { ca: pki.ca, ...(opts.cert === undefined ? {} : { cert: opts.cert.cert, key: opts.cert.key }) })
  s.on('error', () => undefined)
  const [settings] = (await once(s, 'remoteSettings')) as [Settings]
  s.close()
  return settings
}

describe('the SETTINGS every connection is told', () => {
  it('the limit given, on plaintext, TLS and TLS with client certificates; etcd\'s default; 0 as etcd reads it', async () => {
    const tls = { cert: pki.server.cert, key: pki.server.key }
    const at = async (max: number | undefined, kind: 'plain' | 'tls' | 'mtls'): Promise<number | undefined> => {
      const l = await etcd.listen({
        port: 0, ...(max === undefined ? {} : { maxConcurrentStreams: max }),
        ...(kind === 'plain' ? {} : { tls: kind === 'tls' ? tls : { ...tls, trustedCa: pki.ca, clientCertAuth: true } }),
      })
      return (await remoteSettings(`${kind === 'plain' ? 'http' : 'https'}://127.0.0.1:${l.port}`, kind === 'mtls' ? { cert: alice } : {})).maxConcurrentStreams
    }
    assert.equal(await at(3, 'plain'), 3)
    assert.equal(await at(3, 'tls'), 3)
    assert.equal(await at(3, 'mtls'), 3)
    assert.equal(await at(undefined, 'plain'), 2 ** 32 - 1)
    assert.equal(await at(undefined, 'tls'), 2 ** 32 - 1)
    assert.equal(await at(0, 'plain'), 2 ** 32 - 1)
    assert.equal(await at(0, 'tls'), 250)
  })

  it('refuses a limit outside 0..2^32-1', async () => {
    await assert.rejects(etcd.listen({ port: 0, maxConcurrentStreams: -1 }), TypeError)
    await assert.rejects(etcd.listen({ port: 0, maxConcurrentStreams: 2 ** 32 }), TypeError)
  })
})

describe('a client that opens more streams than allowed', () => {
  const limited = async (secure: boolean): Promise<number> =>
    (await etcd.listen({ port: 0, maxConcurrentStreams: 2, ...(secure ? { tls: { cert: pki.server.cert, key: pki.server.key } } : {}) })).port

  for (const secure of [false, true]) {
    const kind = secure ? 'TLS' : 'plaintext'
    it(`${kind}: the stream beyond the limit is reset (${secure ? 'PROTOCOL_ERROR' : 'REFUSED_STREAM'} once SETTINGS are acknowledged), the rest carries on`, async () => {
      const c = await RawClient.open(await limited(secure), secure ? pki.ca : undefined)
      try {
        await c.serverSettings()
        c.ack()
        c.open(1, 'watch')
        c.open(3, 'watch')
        c.open(5, 'status')
        await until(() => c.resets().has(5), 'the third stream reset')
        assert.equal(c.resets().get(5), secure ? constants.NGHTTP2_PROTOCOL_ERROR : constants.NGHTTP2_REFUSED_STREAM)
        assert.ok(!c.answered(5))
        // The client cancels a watch: that makes room for the next call at once.
        c.reset(1)
        c.open(7, 'status')
        await until(() => c.answered(7), 'the call after the cancellation answered')
        assert.ok(!c.resets().has(3) && !c.resets().has(7))
        assert.ok(!c.goaway())
      } finally {
        c.close()
      }
    })
  }

  it('TLS, SETTINGS not yet acknowledged: REFUSED_STREAM', async () => {
    const c = await RawClient.open(await limited(true), pki.ca)
    try {
      c.open(1, 'watch')
      c.open(3, 'watch')
      c.open(5, 'status')
      await until(() => c.resets().has(5), 'the third stream reset')
      assert.equal(c.resets().get(5), constants.NGHTTP2_REFUSED_STREAM)
      assert.ok(!c.goaway())
    } finally {
      c.close()
    }
  })

  it('a node:http2 client keeps to the limit by itself: its third call waits for a stream to end, and is never refused', async () => {
    const port = await limited(false)
    const s = http2Connect(`http://127.0.0.1:${port}`)
    try {
      // Until the server's SETTINGS arrive a client may open any number (a stream beyond the limit is then refused).
      await once(s, 'remoteSettings')
      const req = (path: string): ReturnType<typeof s.request> => {
        const r = s.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' }, { endStream: false })
        r.on('error', () => undefined)
        return r
      }
      const w1 = req('/etcdserverpb.Watch/Watch')
      const w2 = req('/etcdserverpb.Watch/Watch')
      const status = req('/etcdserverpb.Maintenance/Status')
      status.end(Buffer.alloc(5))
      let answered = false
      status.on('response', () => (answered = true))
      w1.close(constants.NGHTTP2_CANCEL)
      await until(() => answered, 'the waiting call answered once a watch ended')
      assert.ok(status.rstCode === undefined || status.rstCode === constants.NGHTTP2_NO_ERROR)
      w2.close(constants.NGHTTP2_CANCEL)
    } finally {
      s.destroy()
    }
  })
})
