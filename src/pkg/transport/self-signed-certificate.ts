// The X.509 certificate etcd's SelfCert makes, byte for byte as Go's x509.CreateCertificate lays it out for
// that template (Node can parse certificates but not make them; see der.ts for why no library): version 3,
// the serial given, ecdsa-with-SHA512 (Go's choice for a P-521 key), subject and issuer O=etcd, and these
// extensions in Go's order: key usage (critical), extended key usage, basic constraints CA:FALSE (critical,
// an empty SEQUENCE), and the subject alternative names (DNS names first, then IP addresses). No key
// identifiers: Go adds a subject key identifier only to CA certificates, and an authority key identifier
// only when the issuer has a subject key identifier.
import { createPublicKey, sign, type KeyObject } from 'node:crypto'
import { bitString, boolean, explicit, goString, goTime, implicit, octetString, oid, sequence, set, smallInteger, unsignedInteger } from './der.js'

/** Extended key usages SelfCert can ask for. */
export type ExtKeyUsage = 'serverAuth' | 'clientAuth'

const EXT_KEY_USAGE_OID: Readonly<Record<ExtKeyUsage, string>> = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
}

const OID = {
  organization: '2.5.4.10',
  ecdsaWithSha512: '1.2.840.10045.4.3.4',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  basicConstraints: '2.5.29.19',
  subjectAltName: '2.5.29.17',
} as const

export interface SelfSignedTemplate {
  /** The serial number's magnitude (big-endian). */
  readonly serial: Uint8Array
  /** Subject and issuer organization (etcd: "etcd"). */
  readonly organization: string
  readonly notBefore: Date
  readonly notAfter: Date
  readonly dnsNames: readonly string[]
  /** IP addresses, 4 bytes for IPv4 (as Go writes them) or 16 for IPv6. */
  readonly ipAddresses: readonly Uint8Array[]
  readonly extKeyUsages: readonly ExtKeyUsage[]
}

function extension(id: string, critical: boolean, value: Uint8Array): Buffer {
  // `critical` is BOOLEAN DEFAULT FALSE: DER leaves it out when false.
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value))
}

/**
 * Go's marshalKeyUsage for digitalSignature|keyEncipherment: bits 0 and 2 of the BIT STRING, written as
 * one byte 0xa0 with its 5 trailing unused bits.
 */
const KEY_USAGE_DIGITAL_SIGNATURE_KEY_ENCIPHERMENT = bitString(Buffer.from([0xa0]), 3)

/** A self-signed certificate (DER) for the template, signed with `privateKey` (an EC P-521 key). */
export function createSelfSignedCertificate(t: SelfSignedTemplate, privateKey: KeyObject): Buffer {
  const name = sequence(set(sequence(oid(OID.organization), goString(t.organization))))
  const algorithm = sequence(oid(OID.ecdsaWithSha512))
  const names = [
    ...t.dnsNames.map((d) => implicit(2, Buffer.from(d, 'latin1'))),
    ...t.ipAddresses.map((ip) => implicit(7, ip)),
  ]
  const extensions = [
    extension(OID.keyUsage, true, KEY_USAGE_DIGITAL_SIGNATURE_KEY_ENCIPHERMENT),
    ...(t.extKeyUsages.length === 0 ? [] : [extension(OID.extKeyUsage, false, sequence(...t.extKeyUsages.map((u) => oid(EXT_KEY_USAGE_OID[u]))))]),
    extension(OID.basicConstraints, true, sequence()),
    ...(names.length === 0 ? [] : [extension(OID.subjectAltName, false, sequence(...names))]),
  ]
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' })
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(t.serial),
    algorithm,
    name,
    sequence(goTime(t.notBefore), goTime(t.notAfter)),
    name,
    spki,
    explicit(3, sequence(...extensions)),
  )
  const signature = sign('sha512', tbs, privateKey)
  return sequence(tbs, algorithm, bitString(signature))
}
