// A certificate revocation list for the CRL tests, written with etcdlite's own DER writer: unsigned, as
// etcd checks only the serial numbers a CRL lists (not its signature, issuer or dates).
import { certificateFields } from '../../src/pkg/transport/certificate-fields.js'
import { bitString, goTime, oid, sequence, smallInteger, tlv, Tag } from '../../src/pkg/transport/der.js'
import { pemBlocks } from '../../src/pkg/transport/pem.js'

/** The serial number (magnitude) of a PEM certificate. */
export function serialOf(certPem: string): Buffer {
  return certificateFields(pemBlocks(certPem)[0]?.der ?? Buffer.alloc(0)).serial
}

/** A DER CRL revoking the certificates (PEM) given. */
export function crlRevoking(...certPems: readonly string[]): Buffer {
  const when = goTime(new Date('2020-01-01T00:00:00Z'))
  const entries = certPems.map((c) => {
    const serial = serialOf(c)
    return sequence(tlv(Tag.INTEGER, (serial[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), serial]) : serial), when)
  })
  const alg = sequence(oid('1.2.840.10045.4.3.2'))
  const tbs = sequence(smallInteger(1), alg, sequence(), when, ...(entries.length === 0 ? [] : [sequence(...entries)]))
  return sequence(tbs, alg, bitString(Buffer.from([0])))
}
