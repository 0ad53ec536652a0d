// etcd's tlsutil.NewCert and NewCertPool: read the TLS files and judge them as Go's tls.X509KeyPair and
// x509.ParseCertificate do, with their messages (etcd fails with these rather than with OpenSSL's
// reasons). node:crypto does the parsing; the PEM scanning and the order of the checks are Go's.
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { readFileError } from './path-error.js'
import { pemBlocks, pemEncode, type PemBlock } from './pem.js'
import { KeyPairError } from './key-pair-error.js'

export { KeyPairError }

/** Go's %v of a []string: "[a b c]". */
const goList = (items: readonly string[]): string => `[${items.join(' ')}]`

const pemOf = (b: PemBlock): string => pemEncode(b.type, b.der)

function parseCertificate(der: Buffer): X509Certificate {
  try {
    return new X509Certificate(der)
  } catch (err) {
    throw new KeyPairError('x509: malformed certificate', { cause: err })
  }
}

/**
 * Go's tls.X509KeyPair: the CERTIFICATE blocks of `certPem` and the first "... PRIVATE KEY" block of
 * `keyPem`, which must parse and belong to the first certificate. Returns them as PEM for node:tls.
 */
export function x509KeyPair(certPem: Buffer, keyPem: Buffer): { readonly cert: string; readonly key: string } {
  const certBlocks: PemBlock[] = []
  const skipped: string[] = []
  for (const b of pemBlocks(certPem.toString('latin1'))) {
    if (b.type === 'CERTIFICATE') certBlocks.push(b)
    else skipped.push(b.type)
  }
  const firstCert = certBlocks[0]
  if (firstCert === undefined) {
    if (skipped.length === 0) throw new KeyPairError('tls: failed to find any PEM data in certificate input')
    if (skipped.length === 1 && (skipped[0] ?? '').endsWith('PRIVATE KEY')) {
      throw new KeyPairError('tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched')
    }
    throw new KeyPairError(`tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: ${goList(skipped)}`)
  }
  const skippedKeys: string[] = []
  let keyBlock: PemBlock | undefined
  for (const b of pemBlocks(keyPem.toString('latin1'))) {
    if (b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY')) {
      keyBlock = b
      break
    }
    skippedKeys.push(b.type)
  }
  if (keyBlock === undefined) {
    if (skippedKeys.length === 0) throw new KeyPairError('tls: failed to find any PEM data in key input')
    if (skippedKeys.length === 1 && skippedKeys[0] === 'CERTIFICATE') {
      throw new KeyPairError('tls: found a certificate rather than a key in the PEM for the private key')
    }
    throw new KeyPairError(`tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: ${goList(skippedKeys)}`)
  }
  const x509 = parseCertificate(firstCert.der)
  let privateKey: KeyObject
  try {
    privateKey = createPrivateKey(pemOf(keyBlock))
  } catch (err) {
    throw new KeyPairError('tls: failed to parse private key', { cause: err })
  }
  const publicKey = createPublicKey(privateKey)
  if (publicKey.asymmetricKeyType !== x509.publicKey.asymmetricKeyType) {
    throw new KeyPairError('tls: private key type does not match public key type')
  }
  const spki = (k: KeyObject): Buffer => k.export({ type: 'spki', format: 'der' })
  if (!spki(publicKey).equals(spki(x509.publicKey))) throw new KeyPairError('tls: private key does not match public key')
  return { cert: certBlocks.map(pemOf).join(''), key: pemOf(keyBlock) }
}

/** Read a file, failing with Go's `open <path>: <reason>`. */
export async function readTlsFile(path: string): Promise<Buffer> {
  try {
    return await readFile(path)
  } catch (err) {
    throw new KeyPairError(readFileError(path, err).message, { cause: err })
  }
}

/** etcd's tlsutil.NewCert: read both files, then X509KeyPair. */
export async function newCert(certFile: string, keyFile: string): Promise<{ readonly cert: string; readonly key: string }> {
  const cert = await readTlsFile(certFile)
  const key = await readTlsFile(keyFile)
  return x509KeyPair(cert, key)
}

/**
 * etcd's tlsutil.NewCertPool: every PEM block of every file must be a certificate (whatever its type line
 * says). Returns the certificates as PEM; none (a file without PEM) is an empty pool, which trusts nothing.
 */
export async function newCertPool(caFiles: readonly string[]): Promise<string[]> {
  const out: string[] = []
  for (const file of caFiles) {
    for (const b of pemBlocks((await readTlsFile(file)).toString('latin1'))) {
      parseCertificate(b.der)
      out.push(pemOf({ type: 'CERTIFICATE', der: b.der }))
    }
  }
  return out
}
