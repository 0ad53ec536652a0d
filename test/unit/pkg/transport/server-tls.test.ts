// serverTls(): what etcd does with its client TLS flags before serving, in etcd's order and words:
// version and cipher checks, --auto-tls (made in <data-dir>/fixtures/client, replacing every other client
// TLS flag), warnings for http:// URLs, the refusal of an https:// URL without a certificate, and the
// reading and checking of the files (only when some URL is https://).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync, X509Certificate } from 'node:crypto'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { peerTls, serverTls, type TlsInfoFlags, type ServerTlsOptions } from '../../../../src/pkg/transport/server-tls.js'
import { createSelfSignedCertificate } from '../../../../src/pkg/transport/self-signed-certificate.js'
import { pemEncode } from '../../../../src/pkg/transport/pem.js'
import { KeyPairError } from '../../../../src/pkg/transport/key-pair.js'
import { TlsConfigError } from '../../../../src/pkg/tlsutil/tls-config-error.js'
import type { ListenTlsOptions } from '../../../../src/embed/options.js'
import type { Logger } from '../../../../src/pkg/logger.js'
import { tempDir } from '../../../helpers/tmp.js'

const NO_FLAGS: TlsInfoFlags = {
  certFile: '', keyFile: '', trustedCaFile: '', clientCertAuth: false, crlFile: '', clientCertFile: '', clientKeyFile: '', autoTls: false, allowedHostnames: [],
}

function recorder(): { logger: Logger; lines: [string, string, Record<string, unknown> | undefined][] } {
  const lines: [string, string, Record<string, unknown> | undefined][] = []
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>): void => {
    lines.push([level, msg, fields])
  }
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines }
}

let tmp: { path: string; remove(): Promise<void> }
let certFile: string
let keyFile: string
let caFile: string
let certPem: string
let keyPem: string

before(async () => {
  tmp = await tempDir('etcdlite-servertls-')
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' })
  certPem = pemEncode('CERTIFICATE', createSelfSignedCertificate({
    serial: Buffer.from([7]), organization: 'etcd', notBefore: new Date(), notAfter: new Date(Date.now() + 86400e3), dnsNames: ['localhost'], ipAddresses: [Buffer.from([127, 0, 0, 1])], extKeyUsages: ['serverAuth'],
  }, privateKey))
  keyPem = String(privateKey.export({ type: 'sec1', format: 'pem' }))
  certFile = join(tmp.path, 'server.pem')
  keyFile = join(tmp.path, 'server-key.pem')
  caFile = join(tmp.path, 'ca.pem')
  await writeFile(certFile, certPem)
  await writeFile(keyFile, keyPem)
  await writeFile(caFile, certPem)
})

after(async () => {
  await tmp.remove()
})

const options = (over: Partial<ServerTlsOptions> & Pick<ServerTlsOptions, 'logger'>): ServerTlsOptions => ({
  dataDir: join(tmp.path, 'data'), listenUrls: ['https://127.0.0.1:2379'], validityYears: 1, cipherSuites: [], minVersion: '', maxVersion: '', ...over,
})

describe('serverTls', () => {
  it('no flags, http:// only: no TLS and not a word', async () => {
    const { logger, lines } = recorder()
    assert.equal(await serverTls(NO_FLAGS, options({ logger, listenUrls: ['http://127.0.0.1:2379'] })), undefined)
    assert.deepEqual(lines, [])
  })

  it('every flag: the files read and checked, everything else passed on as listen() takes it', async () => {
    const { logger, lines } = recorder()
    const flags = { ...NO_FLAGS, certFile, keyFile, trustedCaFile: caFile, clientCertAuth: true, crlFile: '/x.crl', clientCertFile: certFile, clientKeyFile: keyFile, allowedHostnames: ['a.example'] }
    const tls = await serverTls(flags, options({ logger, cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'], minVersion: 'TLS1.2', maxVersion: 'TLS1.3' }))
    const listen: ListenTlsOptions | undefined = tls
    assert.deepEqual(listen, {
      cert: certPem, key: keyPem, trustedCa: [certPem], clientCertAuth: true, crlFile: '/x.crl', allowedHostnames: ['a.example'],
      cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'], minVersion: 'TLS1.2', maxVersion: 'TLS1.3', logRejectedConnections: true,
    })
    assert.deepEqual(lines, [['info', 'starting with client TLS', {
      'tls-info': `cert = ${certFile}, key = ${keyFile}, client-cert=${certFile}, client-key=${keyFile}, trusted-ca = ${caFile}, client-cert-auth = true, crl-file = /x.crl`,
      'cipher-suites': ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
    }]])
  })

  it('--auto-tls: makes the certificate in <data-dir>/fixtures/client for the listen hosts, and drops the other client TLS flags as etcd does', async () => {
    const { logger, lines } = recorder()
    const dataDir = join(tmp.path, 'auto')
    const flags = { ...NO_FLAGS, autoTls: true, trustedCaFile: caFile, clientCertAuth: true, crlFile: '/x.crl', allowedHostnames: ['h'] }
    const tls = await serverTls(flags, options({ logger, dataDir, listenUrls: ['https://127.0.0.1:1', 'http://user@etcd.example:2/x'] }))
    const dir = join(dataDir, 'fixtures', 'client')
    assert.equal(tls?.cert, await readFile(join(dir, 'cert.pem'), 'utf8'))
    assert.equal(tls?.key, await readFile(join(dir, 'key.pem'), 'utf8'))
    assert.deepEqual({ ...tls, cert: '', key: '' }, {
      cert: '', key: '', clientCertAuth: false, allowedHostnames: [], cipherSuites: [], minVersion: '', maxVersion: '', logRejectedConnections: false,
    })
    assert.equal(new X509Certificate(tls?.cert ?? '').subjectAltName, 'DNS:etcd.example, IP Address:127.0.0.1')
    assert.deepEqual(lines.map(([level, msg]) => [level, msg]), [
      ['warn', 'automatically generate certificates'], ['info', 'created cert file'], ['info', 'created key file'],
      ['warn', 'scheme is http or unix while key and cert files are present; ignoring key and cert files'],
      ['info', 'starting with client TLS'],
    ])
    assert.deepEqual(lines[3]?.[2], { 'client-url': 'http://user@etcd.example:2/x' })
    // The next start reuses the files.
    const again = recorder()
    assert.equal((await serverTls(flags, options({ logger: again.logger, dataDir })))?.cert, tls?.cert)
    assert.deepEqual(again.lines.map(([, msg]) => msg), ['starting with client TLS'])
  })

  it('--auto-tls with certificate files given: etcd warns and uses the files', async () => {
    const { logger, lines } = recorder()
    const dataDir = join(tmp.path, 'auto-ignored')
    const tls = await serverTls({ ...NO_FLAGS, autoTls: true, certFile, keyFile }, options({ logger, dataDir }))
    assert.equal(tls?.cert, certPem)
    assert.equal(tls?.logRejectedConnections, true)
    assert.deepEqual(lines[0], ['warn', 'ignoring client auto TLS since certs given', undefined])
    await assert.rejects(stat(join(dataDir, 'fixtures')))
  })

  it('http:// URLs: warns about the flags they ignore, and reads no file', async () => {
    const { logger, lines } = recorder()
    const flags = { ...NO_FLAGS, certFile: '/missing/cert.pem', keyFile: '/missing/key.pem', clientCertAuth: true }
    assert.equal(await serverTls(flags, options({ logger, listenUrls: ['http://127.0.0.1:1', 'unix://sock'] })), undefined)
    assert.deepEqual(lines.map(([level, msg, f]) => [level, msg, f?.['client-url']]), [
      ['warn', 'scheme is http or unix while key and cert files are present; ignoring key and cert files', 'http://127.0.0.1:1'],
      ['warn', 'scheme is http or unix while --client-cert-auth is enabled; ignoring client cert auth for this URL', 'http://127.0.0.1:1'],
      ['warn', 'scheme is http or unix while key and cert files are present; ignoring key and cert files', 'unix://sock'],
      ['warn', 'scheme is http or unix while --client-cert-auth is enabled; ignoring client cert auth for this URL', 'unix://sock'],
      ['info', 'starting with client TLS', undefined],
    ])
  })

  it('refuses, with etcd\'s messages, what etcd refuses', async () => {
    const { logger } = recorder()
    const config = (message: string) => (e: unknown): boolean => e instanceof TlsConfigError && e.message === message
    await assert.rejects(serverTls(NO_FLAGS, options({ logger, listenUrls: ['http://a:1', 'https://127.0.0.1:2379'] })),
      config('TLS key/cert (--cert-file, --key-file) must be provided for client url https://127.0.0.1:2379 with HTTPS scheme'))
    await assert.rejects(serverTls({ ...NO_FLAGS, certFile }, options({ logger })), config(`KeyFile and CertFile must both be present[key: , cert: ${certFile}]`))
    await assert.rejects(serverTls({ ...NO_FLAGS, certFile, keyFile, clientCertFile: certFile }, options({ logger })),
      config(`ClientKeyFile and ClientCertFile must both be present or both absent: key: , cert: ${certFile}]`))
    await assert.rejects(serverTls({ ...NO_FLAGS, certFile, keyFile }, options({ logger, cipherSuites: ['nope'] })), config('unexpected TLS cipher suite "nope"'))
    await assert.rejects(serverTls({ ...NO_FLAGS, certFile, keyFile }, options({ logger, minVersion: 'TLS1.3', maxVersion: 'TLS1.2' })),
      config('min version (TLS1.3) is greater than max version (TLS1.2)'))
    await assert.rejects(serverTls({ ...NO_FLAGS, certFile: keyFile, keyFile }, options({ logger })),
      (e: unknown) => e instanceof KeyPairError && e.message.startsWith('tls: failed to find certificate PEM data in certificate input'))
    await assert.rejects(serverTls({ ...NO_FLAGS, certFile, keyFile, trustedCaFile: '/no/ca.pem' }, options({ logger })),
      (e: unknown) => e instanceof KeyPairError && e.message === 'open /no/ca.pem: no such file or directory')
  })
})

describe('peerTls', () => {
  const none = { certFile: '', keyFile: '', trustedCaFile: '', clientCertAuth: false, crlFile: '', clientCertFile: '', clientKeyFile: '', autoTls: false }

  it('--peer-auto-tls: the certificate in <data-dir>/fixtures/peer for the peer listen hosts, and etcd\'s lines', async () => {
    const { logger, lines } = recorder()
    const dataDir = join(tmp.path, 'peer')
    const files = await peerTls({ ...none, autoTls: true }, { logger, dataDir, listenPeerUrls: ['http://10.0.0.1:2380'], validityYears: 1, cipherSuites: [] })
    const dir = join(dataDir, 'fixtures', 'peer')
    assert.deepEqual(files, { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') })
    assert.equal(new X509Certificate(await readFile(join(dir, 'cert.pem'))).subjectAltName, 'IP Address:10.0.0.1')
    assert.deepEqual(lines.map(([, msg]) => msg), ['automatically generate certificates', 'created cert file', 'created key file', 'starting with peer TLS'])
    assert.equal(lines[3]?.[2]?.['tls-info'], `cert = ${join(dir, 'cert.pem')}, key = ${join(dir, 'key.pem')}, client-cert=${join(dir, 'cert.pem')}, client-key=${join(dir, 'key.pem')}, trusted-ca = , client-cert-auth = false, crl-file = `)
  })

  it('with peer certificate files: etcd\'s warning, and no certificate made; without any: nothing', async () => {
    const { logger, lines } = recorder()
    const dataDir = join(tmp.path, 'peer-files')
    assert.deepEqual(await peerTls({ ...none, autoTls: true, certFile, keyFile }, { logger, dataDir, listenPeerUrls: [], validityYears: 1, cipherSuites: [] }), { certFile, keyFile })
    assert.deepEqual(lines.map(([level, msg]) => [level, msg]), [['warn', 'ignoring peer auto TLS since certs given'], ['info', 'starting with peer TLS']])
    await assert.rejects(stat(join(dataDir, 'fixtures')))
    const quiet = recorder()
    assert.equal(await peerTls(none, { logger: quiet.logger, dataDir, listenPeerUrls: [], validityYears: 1, cipherSuites: [] }), undefined)
    assert.deepEqual(quiet.lines, [])
  })
})
