// listen({ tls }): gRPC (grpc-js with SSL channel credentials) and HTTPS (/health, /version) on one TLS port,
// with and without client-certificate authentication, and MemberList advertising https:// URLs. Every
// refusal is a failed connection (UNAVAILABLE for gRPC, a socket error for HTTPS), as with etcd.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { get as httpsGet } from 'node:https'
import * as grpc from '@grpc/grpc-js'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import type { Listener } from '../../../src/embed/listeners.js'
import { loadEtcdProto } from '../../../src/grpc/proto.js'
import { unary } from '../../helpers/grpc-client.js'
import { createPki, type CertFiles, type Pki } from '../../helpers/certs.js'

let pki: Pki
let otherPki: Pki
let alice: CertFiles
let stranger: CertFiles
let etcd: Etcd
const listeners: Record<'tls' | 'mtls' | 'plain' | 'both', Listener> = {} as Record<'tls' | 'mtls' | 'plain' | 'both', Listener>

before(async () => {
  ;[pki, otherPki] = await Promise.all([createPki(), createPki()])
  ;[alice, stranger] = await Promise.all([pki.client('alice'), otherPki.client('alice')])
  etcd = await openEtcd({ memory: true })
  const server = { cert: pki.server.cert, key: pki.server.key }
  listeners.tls = await etcd.listen({ port: 0, tls: server })
  listeners.mtls = await etcd.listen({ port: 0, tls: { ...server, trustedCa: pki.ca, clientCertAuth: true } })
  listeners.plain = await etcd.listen({ port: 0 })
  listeners.both = await etcd.listen({ port: 0, tls: server, alsoInsecure: true })
})

after(async () => {
  await etcd.close()
  await Promise.all([pki.remove(), otherPki.remove()])
})

type Creds = () => grpc.ChannelCredentials
const ssl = (ca: () => string, client?: () => CertFiles): Creds => () => {
  const c = client?.()
  return grpc.credentials.createSsl(Buffer.from(ca()), c === undefined ? null : Buffer.from(c.key), c === undefined ? null : Buffer.from(c.cert))
}

describe('listen({ tls }) serves gRPC over TLS', () => {
  const cases: ReadonlyArray<{ name: string; on: keyof typeof listeners; creds: Creds; ok: boolean }> = [
    { name: 'TLS listener, client trusts the CA', on: 'tls', creds: ssl(() => pki.ca), ok: true },
    { name: 'TLS listener, client presents a certificate it is not asked for', on: 'tls', creds: ssl(() => pki.ca, () => alice), ok: true },
    { name: 'TLS listener, client trusts another CA: refused', on: 'tls', creds: ssl(() => otherPki.ca), ok: false },
    { name: 'TLS listener, plaintext client: refused', on: 'tls', creds: () => grpc.credentials.createInsecure(), ok: false },
    { name: 'client-cert-auth listener, certificate from the trusted CA', on: 'mtls', creds: ssl(() => pki.ca, () => alice), ok: true },
    { name: 'client-cert-auth listener, no client certificate: refused', on: 'mtls', creds: ssl(() => pki.ca), ok: false },
    { name: 'client-cert-auth listener, certificate from another CA: refused', on: 'mtls', creds: ssl(() => pki.ca, () => stranger), ok: false },
    { name: 'plaintext listener, TLS client: refused', on: 'plain', creds: ssl(() => pki.ca), ok: false },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const client = new (loadEtcdProto().etcdserverpb.KV)(listeners[c.on].endpoint, c.creds())
      try {
        const key = Buffer.from(`k/${c.name}`)
        const put = unary(client, 'Put')({ key, value: Buffer.from('v') })
        if (!c.ok) {
          await assert.rejects(put, (e: grpc.ServiceError) => e.code === grpc.status.UNAVAILABLE)
          return
        }
        await put
        const got = await unary(client, 'Range')({ key })
        assert.deepEqual((got['kvs'] as Array<{ value: Buffer }>).map((kv) => kv.value.toString()), ['v'])
      } finally {
        client.close()
      }
    })
  }
})

interface HttpsResult {
  readonly status: number
  readonly body: string
}

function getHttps(port: number, path: string, opts: { ca: string; cert?: string; key?: string }): Promise<HttpsResult> {
  return new Promise((resolve, reject) => {
    const req = httpsGet({ host: '127.0.0.1', port, path, agent: false, ...opts }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
  })
}

describe('listen({ tls }) serves HTTPS on the same port', () => {
  const cases: ReadonlyArray<{ name: string; on: keyof typeof listeners; path: string; client?: () => CertFiles; want: RegExp | 'refused' }> = [
    { name: '/health over TLS', on: 'tls', path: '/health', want: /"health":"true"/ },
    { name: '/version over TLS', on: 'tls', path: '/version', want: /"etcdserver":/ },
    { name: '/health with a client certificate on a client-cert-auth listener', on: 'mtls', path: '/health', client: () => alice, want: /"health":"true"/ },
    { name: '/health without a client certificate on a client-cert-auth listener: refused', on: 'mtls', path: '/health', want: 'refused' },
    { name: '/health with a certificate from another CA: refused', on: 'mtls', path: '/health', client: () => stranger, want: 'refused' },
    { name: '/health over TLS to a plaintext listener: refused', on: 'plain', path: '/health', want: 'refused' },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const cl = c.client?.()
      const res = getHttps(listeners[c.on].port, c.path, { ca: pki.ca, ...(cl === undefined ? {} : { cert: cl.cert, key: cl.key }) })
      if (c.want === 'refused') {
        await assert.rejects(res)
        return
      }
      const r = await res
      assert.equal(r.status, 200)
      assert.match(r.body, c.want)
    })
  }
})

describe('MemberList advertises each listener with its scheme', () => {
  it('https:// for TLS listeners, http:// for plaintext ones, both for one that takes both', async () => {
    const { members } = await etcd.memberList()
    assert.deepEqual(members[0]?.clientUrls, [
      `https://${listeners.tls.endpoint}`,
      `https://${listeners.mtls.endpoint}`,
      `http://${listeners.plain.endpoint}`,
      `http://${listeners.both.endpoint}`,
      `https://${listeners.both.endpoint}`,
    ])
  })
})

describe('listen({ tls, alsoInsecure }): TLS and plaintext on one port, as etcd serves an http:// and an https:// URL on the same host:port', () => {
  it('gRPC over TLS and in plaintext on the same port', async () => {
    for (const creds of [ssl(() => pki.ca)(), grpc.credentials.createInsecure()]) {
      const kv = new (loadEtcdProto().etcdserverpb.KV)(`localhost:${listeners.both.port}`, creds)
      try {
        const r = await unary(kv, 'Range')({ key: Buffer.from('k') })
        assert.ok(r['header'] !== undefined)
      } finally {
        kv.close()
      }
    }
  })

  it('HTTPS and plain HTTP on the same port', async () => {
    assert.equal((await getHttps(listeners.both.port, '/health', { ca: pki.ca })).status, 200)
    const plain = await fetch(`http://127.0.0.1:${listeners.both.port}/health`)
    assert.equal(plain.status, 200)
    assert.equal(((await plain.json()) as { health: string }).health, 'true')
  })
})
