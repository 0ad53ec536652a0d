// --auto-tls's certificate: what Node's X509Certificate reads from the certificate written (subject and
// issuer O=etcd, SANs from the listen hosts, usages, validity, a self-signature that verifies), its DER laid
// out as Go's x509 lays out etcd's, the files and modes SelfCert leaves, their reuse on the next start,
// and its refusals with etcd's messages and log lines.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto'
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { children, readElement, oidString, Tag } from '../../../../src/pkg/transport/der.js'
import { createSelfSignedCertificate } from '../../../../src/pkg/transport/self-signed-certificate.js'
import { selfCert, SelfCertError } from '../../../../src/pkg/transport/self-cert.js'
import { pemBlocks } from '../../../../src/pkg/transport/pem.js'
import { certificateFields } from '../../../../src/pkg/transport/certificate-fields.js'
import type { Logger } from '../../../../src/pkg/logger.js'
import { tempDir } from '../../../helpers/tmp.js'

interface Line {
  readonly level: string
  readonly msg: string
  readonly fields: Record<string, unknown> | undefined
}

function recorder(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = []
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>): void => {
    lines.push({ level, msg, fields })
  }
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines }
}

let tmp: { path: string; remove(): Promise<void> }
before(async () => {
  tmp = await tempDir('etcdlite-selfcert-')
})
after(async () => {
  await tmp.remove()
})

describe('the self-signed certificate', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' })
  const notBefore = new Date('2026-03-04T05:06:07.890Z')
  const notAfter = new Date('2027-03-04T05:06:07.890Z')
  const der = createSelfSignedCertificate({
    serial: Buffer.from('00ff0102', 'hex'),
    organization: 'etcd',
    notBefore,
    notAfter,
    dnsNames: ['localhost', 'etcd.example'],
    ipAddresses: [Buffer.from([127, 0, 0, 1]), Buffer.from('00000000000000000000000000000001', 'hex')],
    extKeyUsages: ['serverAuth', 'clientAuth'],
  }, privateKey)
  const x = new X509Certificate(der)

  it('reads as etcd\'s: O=etcd, self-issued, the names, the usages, the validity to the second', () => {
    assert.equal(x.subject, 'O=etcd')
    assert.equal(x.issuer, 'O=etcd')
    assert.equal(x.subjectAltName, 'DNS:localhost, DNS:etcd.example, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1')
    assert.deepEqual(x.keyUsage, ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'])
    assert.equal(x.ca, false)
    assert.equal(new Date(x.validFrom).toISOString(), '2026-03-04T05:06:07.000Z')
    assert.equal(new Date(x.validTo).toISOString(), '2027-03-04T05:06:07.000Z')
    assert.equal(x.serialNumber.replace(/^0+/, ''), 'FF0102')
  })

  it('is signed by its own key (ecdsa-with-SHA512), and the key is the certificate\'s', () => {
    assert.ok(x.verify(x.publicKey))
    assert.ok(x.checkPrivateKey(privateKey))
  })

  it('carries Go\'s extensions in Go\'s order and encoding', () => {
    const tbs = children(readElement(der).content)[0]
    assert.ok(tbs !== undefined)
    const fields = children(tbs.content)
    const exts = fields.find((e) => e.tag === 0xa3)
    assert.ok(exts !== undefined)
    const list = children(children(exts.content)[0]?.content ?? Buffer.alloc(0)).map((e) => {
      const parts = children(e.content)
      return { id: oidString(parts[0] ?? readElement(Buffer.from([6, 0]))), critical: parts.length === 3, value: (parts[parts.length - 1]?.content ?? Buffer.alloc(0)).toString('hex') }
    })
    assert.deepEqual(list.map((e) => [e.id, e.critical]), [['2.5.29.15', true], ['2.5.29.37', false], ['2.5.29.19', true], ['2.5.29.17', false]])
    // key usage digitalSignature|keyEncipherment: one byte, 5 unused bits; basic constraints: an empty SEQUENCE.
    assert.equal(list[0]?.value, '030205a0')
    assert.equal(list[2]?.value, '3000')
    // Validity written as UTCTime, as Go does before 2050; the algorithm is ecdsa-with-SHA512 without parameters.
    assert.equal(children(fields[4]?.content ?? Buffer.alloc(0))[0]?.tag, Tag.UTC_TIME)
    assert.equal(oidString(children(fields[2]?.content ?? Buffer.alloc(0))[0] ?? readElement(Buffer.from([6, 0]))), '1.2.840.10045.4.3.4')
  })

  it('writes times from 2050 on as GeneralizedTime', () => {
    const late = createSelfSignedCertificate({
      serial: Buffer.from([1]), organization: 'etcd', notBefore, notAfter: new Date('2126-03-04T05:06:07Z'), dnsNames: [], ipAddresses: [], extKeyUsages: ['serverAuth'],
    }, privateKey)
    const y = new X509Certificate(late)
    assert.equal(new Date(y.validTo).toISOString(), '2126-03-04T05:06:07.000Z')
    assert.equal(y.subjectAltName, undefined)
  })
})

describe('SelfCert', () => {
  it('makes cert.pem (0666 less umask) and key.pem (0600, EC PRIVATE KEY, P-521) in a 0700 directory, as etcd does', async () => {
    const dir = join(tmp.path, 'a', 'fixtures', 'client')
    const { logger, lines } = recorder()
    const files = await selfCert({ logger, dir, hosts: ['127.0.0.1:2379', 'localhost:2379', '[::1]:2379', 'etcd.example:1', '0.0.0.0:2379'], validityYears: 2 })
    assert.deepEqual(files, { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') })
    const umask = process.umask()
    assert.equal((await stat(files.certFile)).mode & 0o777, 0o666 & ~umask)
    assert.equal((await stat(files.keyFile)).mode & 0o777, 0o600)
    for (const d of [join(tmp.path, 'a'), join(tmp.path, 'a', 'fixtures'), dir]) assert.equal((await stat(d)).mode & 0o777, 0o700 & ~umask, d)
    const keyPem = await readFile(files.keyFile, 'utf8')
    assert.match(keyPem, /^-----BEGIN EC PRIVATE KEY-----\n/)
    assert.equal(createPrivateKey(keyPem).asymmetricKeyDetails?.namedCurve, 'secp521r1')
    const certPem = await readFile(files.certFile, 'utf8')
    assert.equal(pemBlocks(certPem).length, 1)
    const x = new X509Certificate(certPem)
    assert.equal(x.subjectAltName, 'DNS:localhost, DNS:etcd.example, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:0.0.0.0')
    assert.deepEqual(x.keyUsage, ['1.3.6.1.5.5.7.3.1'])
    assert.ok(x.verify(x.publicKey))
    const years = (Date.parse(x.validTo) - Date.parse(x.validFrom)) / (24 * 3600 * 1000)
    assert.equal(years, 2 * 365)
    assert.ok(x.serialNumber.length <= 32)
    assert.deepEqual(lines.map((l) => [l.level, l.msg]), [
      ['warn', 'automatically generate certificates'], ['info', 'created cert file'], ['info', 'created key file'],
    ])
    // zap.Time of NotAfter: to the millisecond, where the certificate keeps whole seconds.
    const bound = lines[0]?.fields?.['certificate-validity-bound-not-after']
    assert.equal(typeof bound, 'string')
    assert.equal(Math.floor(Date.parse(String(bound)) / 1000) * 1000, Date.parse(x.validTo))
    assert.deepEqual(lines.slice(1).map((l) => l.fields), [{ path: files.certFile }, { path: files.keyFile }])
  })

  it('reuses both files as they are when both exist, silently, and makes both again when one is missing', async () => {
    const dir = join(tmp.path, 'reuse')
    const first = await selfCert({ logger: recorder().logger, dir, hosts: ['127.0.0.1:1'], validityYears: 1 })
    const cert = await readFile(first.certFile)
    const again = recorder()
    assert.deepEqual(await selfCert({ logger: again.logger, dir, hosts: ['10.0.0.1:1'], validityYears: 5 }), first)
    assert.deepEqual(await readFile(first.certFile), cert)
    assert.deepEqual(again.lines, [])
    await writeFile(first.keyFile, '') // present, if empty: still reused, as etcd only checks that both exist
    assert.deepEqual(await selfCert({ logger: recorder().logger, dir, hosts: [], validityYears: 1 }), first)
    await rm(first.keyFile)
    await selfCert({ logger: recorder().logger, dir, hosts: ['10.0.0.1:1'], validityYears: 1 })
    assert.equal(new X509Certificate(await readFile(first.certFile)).subjectAltName, 'IP Address:10.0.0.1')
  })

  it('takes a host without a port as Go does: DNS name ""; IPv4-mapped IPv6 as IPv4', async () => {
    const files = await selfCert({ logger: recorder().logger, dir: join(tmp.path, 'odd'), hosts: ['localhost', '[::ffff:10.1.2.3]:7'], validityYears: 1 })
    const der = pemBlocks(await readFile(files.certFile, 'latin1'))[0]?.der ?? Buffer.alloc(0)
    const f = certificateFields(der)
    assert.deepEqual(f.dnsNames, [''])
    assert.deepEqual(f.ipAddresses, [Buffer.from([10, 1, 2, 3])])
  })

  it('warns about an existing directory whose permissions are not 0700, with etcd\'s text, and goes on', async () => {
    const dir = join(tmp.path, 'open')
    await mkdir(dir, { mode: 0o755 })
    await chmod(dir, 0o755)
    const { logger, lines } = recorder()
    await selfCert({ logger, dir, hosts: [], validityYears: 1 })
    assert.deepEqual(lines[0], {
      level: 'warn',
      msg: 'check file permission',
      fields: { error: `directory "${dir}" exist, but the permission is "drwxr-xr-x". The recommended permission is "-rwx------" to prevent possible unprivileged access to the data` },
    })
  })

  it('refuses a validity of 0 with etcd\'s message and warning', async () => {
    const { logger, lines } = recorder()
    await assert.rejects(selfCert({ logger, dir: join(tmp.path, 'zero'), hosts: [], validityYears: 0 }),
      (e: unknown) => e instanceof SelfCertError && e.message === 'selfSignedCertValidity is invalid,it should be greater than 0')
    assert.deepEqual(lines, [{ level: 'warn', msg: 'cannot generate cert', fields: { error: 'selfSignedCertValidity is invalid,it should be greater than 0' } }])
  })

  it('refuses a directory it cannot create, with Go\'s error text (MkdirAll names the file in the way)', async () => {
    const file = join(tmp.path, 'plain-file')
    await writeFile(file, '')
    const { logger, lines } = recorder()
    await assert.rejects(selfCert({ logger, dir: join(file, 'client'), hosts: [], validityYears: 1 }),
      (e: unknown) => e instanceof SelfCertError && e.message === `mkdir ${file}: not a directory`)
    assert.deepEqual(lines.map((l) => l.msg), ['cannot create cert directory'])
  })
})
