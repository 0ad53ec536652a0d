// etcd's --client-crl-file check (transport.checkCRL): after a TLS handshake, the connection is dropped if
// the serial number of any certificate the client presented is listed in the CRL file. etcd reads the file
// again for every connection (so a new CRL applies without a restart), and checks neither the CRL's
// signature nor its dates: a CRL past its nextUpdate still revokes. node:tls's `crl` option would reject
// every client once the CRL expired, and only for CRLs signed by a trusted CA, hence this reading of our
// own. The file is DER, or PEM ("X509 CRL") when it starts with the PEM header, as Go's x509.ParseCRL takes it.
import { readFile } from 'node:fs/promises'
import { children, DerError, integerMagnitude, readOnly, Tag, type Element } from './der.js'
import { readFileError } from './path-error.js'
import { pemBlocks } from './pem.js'
import { asError } from '../as-error.js'

const PEM_PREFIX = '-----BEGIN X509 CRL'

/** The DER of a CRL file's contents: the first PEM block if the file starts with a CRL header, else the file. */
function crlDer(file: Buffer): Buffer {
  if (!file.subarray(0, PEM_PREFIX.length).equals(Buffer.from(PEM_PREFIX, 'latin1'))) return file
  const first = pemBlocks(file.toString('latin1'))[0]
  return first?.type === 'X509 CRL' ? first.der : file
}

const isTime = (e: Element | undefined): boolean => e?.tag === Tag.UTC_TIME || e?.tag === Tag.GENERALIZED_TIME

/** The serial numbers (hex of their magnitude, lower case) a CRL lists; throws DerError if it is not a CRL. */
export function revokedSerials(file: Buffer): Set<string> {
  const list = children(readOnly(crlDer(file), Tag.SEQUENCE, 'CRL').content)
  const tbs = list[0]
  if (tbs?.tag !== Tag.SEQUENCE) throw new DerError('asn1: structure error: tags don\'t match (tbsCertList)')
  const fields = children(tbs.content)
  // version INTEGER OPTIONAL, signature, issuer, thisUpdate, nextUpdate OPTIONAL, revokedCertificates OPTIONAL
  let i = fields[0]?.tag === Tag.INTEGER ? 1 : 0
  i += 2
  if (!isTime(fields[i])) throw new DerError('asn1: structure error: tags don\'t match (thisUpdate)')
  i += 1
  if (isTime(fields[i])) i += 1
  const serials = new Set<string>()
  const revoked = fields[i]
  if (revoked?.tag !== Tag.SEQUENCE) return serials
  for (const entry of children(revoked.content)) {
    const serial = children(entry.content)[0]
    if (serial === undefined) throw new DerError('asn1: syntax error: sequence truncated')
    serials.add(integerMagnitude(serial).toString('hex'))
  }
  return serials
}

/**
 * etcd's checkCRL: read the CRL at `crlPath` and fail if one of `serials` (the presented certificates'
 * serial magnitudes) is revoked, with etcd's message. Also fails if the file cannot be read or parsed: etcd
 * then drops every client that presents a certificate.
 */
export async function checkCrl(crlPath: string, serials: readonly Buffer[]): Promise<Error | undefined> {
  let file: Buffer
  try {
    file = await readFile(crlPath)
  } catch (err) {
    return readFileError(crlPath, err)
  }
  let revoked: Set<string>
  try {
    revoked = revokedSerials(file)
  } catch (err) {
    return asError(err)
  }
  for (const s of serials) {
    const hex = s.toString('hex')
    if (revoked.has(hex)) return new Error(`transport: certificate serial ${hex} revoked`)
  }
  return undefined
}
