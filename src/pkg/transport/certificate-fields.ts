// The fields of a peer's X.509 certificate etcd's TLS checks read, taken from its DER as Go's x509 package
// has them: the serial number's magnitude (what checkCRL compares), and the DNS names and IP addresses of
// the subject alternative name extension (what VerifyHostname matches).
import { children, DerError, integerMagnitude, oidString, readOnly, Tag, type Element } from './der.js'

export interface CertificateFields {
  /** big.Int.Bytes() of the serial number: big-endian, no leading zeros. */
  readonly serial: Buffer
  readonly dnsNames: readonly string[]
  /** 4 bytes (IPv4) or 16 (IPv6), as written in the certificate. */
  readonly ipAddresses: readonly Buffer[]
}

const SUBJECT_ALT_NAME = '2.5.29.17'

function at(list: readonly Element[], i: number, what: string): Element {
  const e = list[i]
  if (e === undefined) throw new DerError(`x509: malformed certificate (${what} missing)`)
  return e
}

/** Read the fields from a DER certificate; throws DerError if it is not one. */
export function certificateFields(der: Buffer): CertificateFields {
  const cert = children(readOnly(der, Tag.SEQUENCE, 'certificate').content)
  const tbs = children(at(cert, 0, 'tbsCertificate').content)
  // version is [0] EXPLICIT, absent for v1 certificates.
  const first = tbs[0]?.tag === 0xa0 ? 1 : 0
  const serial = integerMagnitude(at(tbs, first, 'serial number'))
  const dnsNames: string[] = []
  const ipAddresses: Buffer[] = []
  const extensions = tbs.find((e) => e.tag === 0xa3)
  if (extensions !== undefined) {
    for (const ext of children(readOnly(extensions.content, Tag.SEQUENCE, 'extensions').content)) {
      const parts = children(ext.content)
      if (oidString(at(parts, 0, 'extension id')) !== SUBJECT_ALT_NAME) continue
      const value = at(parts, parts.length - 1, 'extension value')
      for (const name of children(readOnly(value.content, Tag.SEQUENCE, 'subject alternative names').content)) {
        if (name.tag === 0x82) dnsNames.push(name.content.toString('latin1'))
        else if (name.tag === 0x87) ipAddresses.push(Buffer.from(name.content))
      }
    }
  }
  return { serial, dnsNames, ipAddresses }
}
