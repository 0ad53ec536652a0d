// The TLS files as etcd judges them (tlsutil.NewCert: Go's tls.X509KeyPair; tlsutil.NewCertPool), with
// Go's messages for each way a certificate or key file can be wrong.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { KeyPairError, newCert, newCertPool, x509KeyPair } from '../../../../src/pkg/transport/key-pair.js'
import { createSelfSignedCertificate } from '../../../../src/pkg/transport/self-signed-certificate.js'
import { pemEncode } from '../../../../src/pkg/transport/pem.js'
import { tempDir } from '../../../helpers/tmp.js'

const ec = (): KeyObject => generateKeyPairSync('ec', { namedCurve: 'P-521' }).privateKey
const certFor = (key: KeyObject): string => pemEncode('CERTIFICATE', createSelfSignedCertificate({
  serial: Buffer.from([1]), organization: 'etcd', notBefore: new Date(), notAfter: new Date(Date.now() + 86400e3), dnsNames: ['localhost'], ipAddresses: [], extKeyUsages: ['serverAuth'],
}, key))
const sec1 = (key: KeyObject): string => String(key.export({ type: 'sec1', format: 'pem' }))
const pkcs8 = (key: KeyObject): string => String(key.export({ type: 'pkcs8', format: 'pem' }))

const key = ec()
const cert = certFor(key)
const other = certFor(ec())
const refused = (message: string) => (e: unknown): boolean => e instanceof KeyPairError && e.message === message
const pair = (c: string, k: string): ReturnType<typeof x509KeyPair> => x509KeyPair(Buffer.from(c), Buffer.from(k))

let tmp: { path: string; remove(): Promise<void> }
before(async () => {
  tmp = await tempDir('etcdlite-keypair-')
})
after(async () => {
  await tmp.remove()
})

describe('X509KeyPair', () => {
  it('takes a certificate chain and a SEC1 or PKCS#8 key that belongs to its first certificate, text around the blocks skipped', () => {
    assert.deepEqual(pair(cert, sec1(key)), { cert, key: sec1(key) })
    assert.deepEqual(pair(`subject=O = etcd\n${cert}junk\n${other}`, `junk\n${pkcs8(key)}`), { cert: cert + other, key: pkcs8(key) })
  })

  it('refuses certificate input without a certificate, with Go\'s messages', () => {
    assert.throws(() => pair('', sec1(key)), refused('tls: failed to find any PEM data in certificate input'))
    assert.throws(() => pair(sec1(key), cert), refused('tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched'))
    assert.throws(() => pair(pemEncode('X', Buffer.from([1])) + pemEncode('Y', Buffer.from([1])), sec1(key)),
      refused('tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [X Y]'))
  })

  it('refuses key input without a key, with Go\'s messages', () => {
    assert.throws(() => pair(cert, 'nothing'), refused('tls: failed to find any PEM data in key input'))
    assert.throws(() => pair(cert, cert), refused('tls: found a certificate rather than a key in the PEM for the private key'))
    assert.throws(() => pair(cert, pemEncode('PUBLIC KEY', Buffer.from([1])) + cert),
      refused('tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [PUBLIC KEY CERTIFICATE]'))
  })

  it('refuses a broken certificate or key, and a key that is not the certificate\'s', () => {
    assert.throws(() => pair(pemEncode('CERTIFICATE', Buffer.from('3000', 'hex')), sec1(key)), refused('x509: malformed certificate'))
    assert.throws(() => pair(cert, pemEncode('EC PRIVATE KEY', Buffer.from('3000', 'hex'))), refused('tls: failed to parse private key'))
    assert.throws(() => pair(cert, sec1(ec())), refused('tls: private key does not match public key'))
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey
    assert.throws(() => pair(cert, pkcs8(rsa)), refused('tls: private key type does not match public key type'))
  })
})

describe('NewCert and NewCertPool', () => {
  it('read the files, failing as Go\'s os.Open does', async () => {
    const c = join(tmp.path, 'c.pem')
    const k = join(tmp.path, 'k.pem')
    await writeFile(c, cert)
    await writeFile(k, sec1(key))
    assert.deepEqual(await newCert(c, k), { cert, key: sec1(key) })
    const missing = join(tmp.path, 'missing.pem')
    await assert.rejects(newCert(missing, k), refused(`open ${missing}: no such file or directory`))
    await assert.rejects(newCert(c, missing), refused(`open ${missing}: no such file or directory`))
    await assert.rejects(newCert(tmp.path, k), refused(`read ${tmp.path}: is a directory`))
  })

  it('a CA file: every block must be a certificate, whatever its type line; no block at all is an empty pool', async () => {
    const ca = join(tmp.path, 'ca.pem')
    await writeFile(ca, `${cert}\n${other}`)
    assert.deepEqual(await newCertPool([ca]), [cert, other])
    await writeFile(ca, cert.replace(/CERTIFICATE/g, 'TRUSTED THING'))
    assert.deepEqual(await newCertPool([ca]), [cert])
    await writeFile(ca, cert + sec1(key))
    await assert.rejects(newCertPool([ca]), refused('x509: malformed certificate'))
    await writeFile(ca, 'no pem here')
    assert.deepEqual(await newCertPool([ca]), [])
  })
})
