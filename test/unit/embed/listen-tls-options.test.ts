// listen({ tls }) with etcd's further TLS options, seen from node:tls clients: a CRL (read again for every
// connection) and allowed hostnames refuse a client right after its handshake, with etcd's log line;
// cipher suites limit TLS 1.2 only, in Go's order; the version range; etcd's messages for options it
// refuses; and the refused connections etcd logs (not with logRejectedConnections: false).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect as netConnect } from 'node:net'
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import type { ListenTlsOptions } from '../../../src/embed/options.js'
import { TlsConfigError } from '../../../src/pkg/tlsutil/tls-config-error.js'
import type { Logger } from '../../../src/pkg/logger.js'
import { createPki, type CertFiles, type Pki } from '../../helpers/certs.js'
import { until } from '../../helpers/until.js'
import { crlRevoking, serialOf } from '../../helpers/crl.js'

interface Logged {
  readonly msg: string
  readonly fields: Record<string, unknown> | undefined
}

let pki: Pki
let alice: CertFiles
let bob: CertFiles
let etcd: Etcd
const logged: Logged[] = []
const logger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (msg, fields) => logged.push({ msg, fields }),
  error: () => undefined,
}

before(async () => {
  pki = await createPki()
  ;[alice, bob] = await Promise.all([pki.client('alice'), pki.client('bob')])
  etcd = await openEtcd({ memory: true, logger })
})

after(async () => {
  await etcd.close()
  await pki.remove()
})

const serverTls = (): ListenTlsOptions => ({ cert: pki.server.cert, key: pki.server.key })
const mtls = (): ListenTlsOptions => ({ ...serverTls(), trustedCa: pki.ca, clientCertAuth: true })

type Outcome = { served: true; protocol: string | null; cipher: string } | { served: false; how: 'handshake' | 'closed' }

/**
 * Connect, and once secure ask for /health over HTTP/1.1: served (with the TLS version and cipher), refused
 * in the handshake, or closed after it without an answer.
 */
function attempt(port: number, opts: ConnectionOptions = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const s: TLSSocket = tlsConnect({ host: '127.0.0.1', port, ca: pki.ca, ALPNProtocols: ['http/1.1'], ...opts })
    let secure = false
    let got = ''
    let protocol: string | null = null
    let cipher = ''
    s.on('secureConnect', () => {
      secure = true
      protocol = s.getProtocol()
      cipher = s.getCipher().name
      s.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    })
    s.on('data', (d: Buffer) => {
      got += d.toString()
    })
    s.on('error', () => undefined)
    s.on('close', () => {
      if (got.startsWith('HTTP/1.1 200')) resolve({ served: true, protocol, cipher })
      else resolve({ served: false, how: secure ? 'closed' : 'handshake' })
    })
  })
}

const client = (c: CertFiles): ConnectionOptions => ({ cert: c.cert, key: c.key })

describe('--client-crl-file', () => {
  it('refuses a client whose certificate the CRL lists, right after the handshake, and logs it as etcd does', async () => {
    const crlFile = join(pki.dir, 'revoked.crl')
    await writeFile(crlFile, crlRevoking(alice.cert))
    const l = await etcd.listen({ port: 0, tls: { ...mtls(), crlFile } })
    assert.deepEqual(await attempt(l.port, client(alice)), { served: false, how: 'closed' })
    assert.equal((await attempt(l.port, client(bob))).served, true)
    const serial = serialOf(alice.cert).toString('hex')
    await until(() => logged.some((e) => e.fields?.['error'] === `transport: certificate serial ${serial} revoked`), 'the rejection logged')
    const line = logged.find((e) => e.fields?.['error'] === `transport: certificate serial ${serial} revoked`)
    assert.equal(line?.msg, 'rejected connection on client endpoint')
    assert.match(String(line?.fields?.['remote-addr']), /^127\.0\.0\.1:\d+$/)
    assert.deepEqual([line?.fields?.['server-name'], line?.fields?.['ip-addresses'], line?.fields?.['dns-names']], ['', [], []])
  })

  it('reads the CRL again for every connection', async () => {
    const crlFile = join(pki.dir, 'changing.crl')
    await writeFile(crlFile, crlRevoking())
    const l = await etcd.listen({ port: 0, tls: { ...mtls(), crlFile } })
    assert.equal((await attempt(l.port, client(bob))).served, true)
    await writeFile(crlFile, crlRevoking(bob.cert))
    assert.equal((await attempt(l.port, client(bob))).served, false)
  })

  it('a CRL that cannot be read refuses every client that presents a certificate', async () => {
    const l = await etcd.listen({ port: 0, tls: { ...serverTls(), trustedCa: pki.ca, crlFile: join(pki.dir, 'missing.crl') } })
    assert.equal((await attempt(l.port, client(bob))).served, false)
  })
})

describe('--client-cert-allowed-hostname', () => {
  it('serves a client whose certificate matches one of the names by its SANs, refuses the others', async () => {
    const l = await etcd.listen({ port: 0, tls: { ...mtls(), allowedHostnames: ['nothing.example', 'LOCALHOST'] } })
    // The server certificate (SANs 127.0.0.1, ::1, localhost; client auth usage) serves as a client's here.
    assert.equal((await attempt(l.port, client(pki.server))).served, true)
    assert.deepEqual(await attempt(l.port, client(alice)), { served: false, how: 'closed' })
    await until(() => logged.some((e) => e.fields?.['error'] === 'client certificate authentication failed'), 'the rejection logged')
    const byIp = await etcd.listen({ port: 0, tls: { ...mtls(), allowedHostnames: ['::1'] } })
    assert.equal((await attempt(byIp.port, client(pki.server))).served, true)
  })

  it('does nothing when client certificates are not requested', async () => {
    const l = await etcd.listen({ port: 0, tls: { ...serverTls(), allowedHostnames: ['nothing.example'] } })
    assert.equal((await attempt(l.port)).served, true)
  })
})

describe('--cipher-suites and --tls-min/max-version', () => {
  const tls12 = { maxVersion: 'TLSv1.2' } as const

  it('limit TLS 1.2 to the suites given, picked in Go\'s order; TLS 1.3 keeps its own', async () => {
    const l = await etcd.listen({ port: 0, tls: { ...serverTls(), cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305'] } })
    assert.deepEqual(await attempt(l.port, { ...tls12, ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }), { served: false, how: 'handshake' })
    assert.deepEqual(await attempt(l.port, { ...tls12, ciphers: 'ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES256-GCM-SHA384' }),
      { served: true, protocol: 'TLSv1.2', cipher: 'ECDHE-ECDSA-AES256-GCM-SHA384' })
    assert.equal((await attempt(l.port)).served, true)
  })

  it('by default: Go\'s suites only (no CBC-SHA384), AES-128-GCM first, TLS 1.2 to 1.3', async () => {
    const l = await etcd.listen({ port: 0, tls: serverTls() })
    assert.deepEqual(await attempt(l.port, { ...tls12, ciphers: 'ECDHE-ECDSA-AES256-SHA384' }), { served: false, how: 'handshake' })
    assert.deepEqual(await attempt(l.port, { ...tls12, ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256' }),
      { served: true, protocol: 'TLSv1.2', cipher: 'ECDHE-ECDSA-AES128-GCM-SHA256' })
    assert.equal((await attempt(l.port, { minVersion: 'TLSv1.3' })).served, true)
    assert.deepEqual(await attempt(l.port, { maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }), { served: false, how: 'handshake' })
  })

  it('serve only the versions asked for', async () => {
    const only13 = await etcd.listen({ port: 0, tls: { ...serverTls(), minVersion: 'TLS1.3' } })
    assert.deepEqual(await attempt(only13.port, tls12), { served: false, how: 'handshake' })
    assert.equal((await attempt(only13.port)).served, true)
    const only12 = await etcd.listen({ port: 0, tls: { ...serverTls(), maxVersion: 'TLS1.2' } })
    const r = await attempt(only12.port)
    assert.equal(r.served && r.protocol, 'TLSv1.2')
  })

  it('refuses what etcd refuses, with its messages', async () => {
    const cases: ReadonlyArray<readonly [Partial<ListenTlsOptions>, string]> = [
      [{ cipherSuites: ['ECDHE-RSA-AES128-GCM-SHA256'] }, 'unexpected TLS cipher suite "ECDHE-RSA-AES128-GCM-SHA256"'],
      [{ minVersion: 'TLS1.1' }, 'unexpected TLS version "TLS1.1" (must be one of: TLS1.2, TLS1.3)'],
      [{ minVersion: 'TLS1.3', maxVersion: 'TLS1.2' }, 'min version (TLS1.3) is greater than max version (TLS1.2)'],
      [{ minVersion: 'TLS1.3', cipherSuites: ['TLS_AES_128_GCM_SHA256'] }, 'cipher suites cannot be configured when only TLS1.3 is enabled'],
    ]
    for (const [opts, message] of cases) {
      await assert.rejects(etcd.listen({ port: 0, tls: { ...serverTls(), ...opts } }), (e: unknown) => e instanceof TlsConfigError && e.message === message)
    }
  })
})

describe('refused connections in the log', () => {
  it('logs a failed handshake with Go\'s reason, unless told not to', async () => {
    const plaintextHello = async (port: number): Promise<void> => {
      const s = netConnect({ host: '127.0.0.1', port })
      s.on('error', () => undefined)
      s.on('connect', () => s.write('GET / HTTP/1.1\r\n\r\n'))
      await new Promise((resolve) => s.on('close', resolve))
    }
    const first = 'tls: first record does not look like a TLS handshake'
    const logs = await etcd.listen({ port: 0, tls: serverTls() })
    const before = logged.filter((e) => e.fields?.['error'] === first).length
    await plaintextHello(logs.port)
    await until(() => logged.filter((e) => e.fields?.['error'] === first).length === before + 1, 'the rejection logged')
    const line = logged.filter((e) => e.fields?.['error'] === first).at(-1)
    assert.deepEqual(Object.keys(line?.fields ?? {}), ['remote-addr', 'server-name', 'error'])
    // A client that hangs up mid-handshake (as node:tls clients do when they reject the server's
    // certificate): Go reads EOF.
    const eofs = logged.filter((e) => e.fields?.['error'] === 'EOF').length
    const rejecting = tlsConnect({ host: '127.0.0.1', port: logs.port, ca: [] })
    rejecting.on('error', () => undefined)
    await until(() => logged.filter((e) => e.fields?.['error'] === 'EOF').length === eofs + 1, 'the hang-up logged')
    rejecting.destroy()

    const quiet = await etcd.listen({ port: 0, tls: { ...mtls(), logRejectedConnections: false } })
    const count = logged.length
    await plaintextHello(quiet.port)
    assert.deepEqual(await attempt(quiet.port), { served: false, how: 'closed' })
    // A logging listener after the quiet one: once its line is in, the quiet one's would have been too.
    await plaintextHello(logs.port)
    await until(() => logged.length > count, 'the later rejection logged')
    assert.deepEqual(logged.slice(count).map((e) => e.fields?.['error']), [first])
  })
})
