// --client-crl-file as etcd's checkCRL reads it: DER, or PEM when the file starts with an X509 CRL header;
// serials compared by magnitude; signature and dates ignored (etcd's own fixture CRL expired in 2021 and
// still revokes); etcd's messages for a revoked serial and an unreadable file.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { checkCrl, revokedSerials } from '../../../../src/pkg/transport/crl.js'
import { certificateFields } from '../../../../src/pkg/transport/certificate-fields.js'
import { bitString, goTime, oid, sequence, set, goString, smallInteger, tlv, Tag, unsignedInteger } from '../../../../src/pkg/transport/der.js'
import { pemBlocks, pemEncode } from '../../../../src/pkg/transport/pem.js'
import { tempDir } from '../../../helpers/tmp.js'

/** etcd's own test fixtures (Debian's golang-etcd-server-dev), when installed. */
const FIXTURES = '/usr/share/gocode/src/go.etcd.io/etcd/integration/fixtures'
const haveFixtures = existsSync(join(FIXTURES, 'revoke.crl'))

/** A CRL listing these serials (INTEGER contents, as written), unsigned (nothing checks the signature). */
function crl(serials: readonly Buffer[], withVersion = true, withNextUpdate = true): Buffer {
  const alg = sequence(oid('1.2.840.10045.4.3.2'))
  const when = goTime(new Date('2020-01-01T00:00:00Z'))
  const entries = serials.map((s) => sequence(tlv(Tag.INTEGER, s), when))
  const tbs = sequence(
    ...(withVersion ? [smallInteger(1)] : []),
    alg,
    sequence(set(sequence(oid('2.5.4.3'), goString('test CA')))),
    when,
    ...(withNextUpdate ? [goTime(new Date('2020-02-01T00:00:00Z'))] : []),
    ...(entries.length === 0 ? [] : [sequence(...entries)]),
  )
  return sequence(tbs, alg, bitString(Buffer.from([0])))
}

let tmp: { path: string; remove(): Promise<void> }
before(async () => {
  tmp = await tempDir('etcdlite-crl-')
})
after(async () => {
  await tmp.remove()
})

describe('reading a CRL', () => {
  it('lists serials by magnitude, from DER or PEM, with or without version and nextUpdate', () => {
    const serials = [Buffer.from('00ff01', 'hex'), Buffer.from('7f', 'hex'), Buffer.from('0102030405060708090a0b0c0d0e0f1011121314', 'hex')]
    const expected = new Set(['ff01', '7f', '0102030405060708090a0b0c0d0e0f1011121314'])
    for (const der of [crl(serials), crl(serials, false), crl(serials, true, false), crl(serials, false, false)]) {
      assert.deepEqual(revokedSerials(der), expected)
      assert.deepEqual(revokedSerials(Buffer.from(pemEncode('X509 CRL', der))), expected)
    }
    assert.deepEqual(revokedSerials(crl([])), new Set())
    // A negative serial (invalid, but Go reads it) is compared by its magnitude, as big.Int.Bytes() gives it.
    assert.deepEqual(revokedSerials(crl([Buffer.from('ff', 'hex')])), new Set(['01']))
  })

  it('refuses what is not a CRL, and PEM that is not at the start of the file', () => {
    assert.throws(() => revokedSerials(Buffer.from('not a crl')))
    assert.throws(() => revokedSerials(Buffer.concat([crl([]), Buffer.from([0])])), /trailing data after CRL/)
    assert.throws(() => revokedSerials(Buffer.from(`junk\n${pemEncode('X509 CRL', crl([]))}`)))
    assert.throws(() => revokedSerials(sequence(sequence(smallInteger(1)))))
  })

  it('reads etcd\'s fixture CRL, which revokes server-revoked.crt and not server.crt', { skip: haveFixtures ? false : 'etcd fixtures are not installed' }, async () => {
    const revoked = revokedSerials(await readFile(join(FIXTURES, 'revoke.crl')))
    assert.deepEqual(revoked, new Set(['4a3cf9f9dcc21a01b4a0efaef7546aaee8fbd194']))
    const serialOf = async (f: string): Promise<Buffer> => certificateFields(pemBlocks(await readFile(join(FIXTURES, f), 'latin1'))[0]?.der ?? Buffer.alloc(0)).serial
    assert.ok(revoked.has((await serialOf('server-revoked.crt')).toString('hex')))
    assert.ok(!revoked.has((await serialOf('server.crt')).toString('hex')))
  })
})

describe('checkCRL', () => {
  it('fails with etcd\'s message for a revoked serial, passes the others', async () => {
    const file = join(tmp.path, 'a.crl')
    await writeFile(file, crl([Buffer.from('0abc', 'hex')]))
    assert.equal(await checkCrl(file, [Buffer.from('01', 'hex')]), undefined)
    assert.equal(await checkCrl(file, []), undefined)
    assert.equal((await checkCrl(file, [Buffer.from('01', 'hex'), Buffer.from('0abc', 'hex')]))?.message, 'transport: certificate serial 0abc revoked')
  })

  it('reads the file at every check', async () => {
    const file = join(tmp.path, 'b.crl')
    await writeFile(file, crl([]))
    assert.equal(await checkCrl(file, [Buffer.from('05', 'hex')]), undefined)
    await writeFile(file, crl([Buffer.from('05', 'hex')]))
    assert.equal((await checkCrl(file, [Buffer.from('05', 'hex')]))?.message, 'transport: certificate serial 05 revoked')
  })

  it('fails when the file cannot be read or parsed', async () => {
    const missing = join(tmp.path, 'missing.crl')
    assert.equal((await checkCrl(missing, [Buffer.from('01', 'hex')]))?.message, `open ${missing}: no such file or directory`)
    const junk = join(tmp.path, 'junk.crl')
    await writeFile(junk, 'junk')
    assert.ok((await checkCrl(junk, [Buffer.from('01', 'hex')])) instanceof Error)
  })

  it('agrees with unsignedInteger on the serials it writes', () => {
    assert.deepEqual(revokedSerials(crl([unsignedInteger(Buffer.from('80', 'hex')).subarray(2)])), new Set(['80']))
  })
})
