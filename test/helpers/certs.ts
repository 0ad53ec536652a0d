// Throwaway PKI for the TLS tests: a CA, a server certificate for 127.0.0.1/::1/localhost and client
// certificates with chosen common names, made with the `openssl` CLI (EC P-256 keys: fast) in a temp dir.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { tempDir } from './tmp.js'

const run = promisify(execFile)

/** A certificate and its private key, as files (for etcd/etcdctl flags) and as PEM text (for Node). */
export interface CertFiles {
  readonly certFile: string
  readonly keyFile: string
  readonly cert: string
  readonly key: string
}

export interface Pki {
  readonly dir: string
  /** The CA certificate (`--trusted-ca-file`, `--cacert`). */
  readonly caFile: string
  readonly ca: string
  /** Server certificate: SAN IP 127.0.0.1, IP ::1, DNS localhost; EKU serverAuth + clientAuth. */
  readonly server: CertFiles
  /** A client certificate (EKU clientAuth) with this common name, signed by this CA. */
  client(cn: string): Promise<CertFiles>
  /** Delete every file. */
  remove(): Promise<void>
}

// Our own config, so nothing depends on the system's openssl.cnf (or its presence).
const CONFIG = `
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth,clientAuth
subjectAltName = IP:127.0.0.1,IP:::1,DNS:localhost
authorityKeyIdentifier = keyid
[client]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
`

const serial = (): string => `0x${randomBytes(12).toString('hex')}`

/** Make a fresh CA with a server certificate in a new temp dir. Valid from now for 2 days. */
export async function createPki(): Promise<Pki> {
  const tmp = await tempDir('etcdlite-pki-')
  const dir = tmp.path
  const cnf = join(dir, 'openssl.cnf')
  const caFile = join(dir, 'ca.pem')
  const caKey = join(dir, 'ca-key.pem')
  const newKey = (file: string): Promise<unknown> =>
    run('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file])
  const issueCa = async (): Promise<void> => {
    await writeFile(cnf, CONFIG)
    await newKey(caKey)
    await run('openssl', ['req', '-new', '-x509', '-config', cnf, '-extensions', 'ca', '-key', caKey, '-subj', '/CN=etcdlite test CA', '-days', '2', '-set_serial', serial(), '-out', caFile])
  }

  let n = 0
  const issue = async (cn: string, ext: 'server' | 'client'): Promise<CertFiles> => {
    const base = join(dir, `${ext}-${n++}`)
    const keyFile = `${base}-key.pem`
    const certFile = `${base}.pem`
    await newKey(keyFile)
    await run('openssl', ['req', '-new', '-config', cnf, '-key', keyFile, '-subj', `/CN=${cn}`, '-out', `${base}.csr`])
    await run('openssl', ['x509', '-req', '-in', `${base}.csr`, '-CA', caFile, '-CAkey', caKey, '-set_serial', serial(), '-days', '2', '-extfile', cnf, '-extensions', ext, '-out', certFile])
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')])
    return { certFile, keyFile, cert, key }
  }

  try {
    await issueCa()
    const server = await issue('etcdlite test server', 'server')
    return {
      dir,
      caFile,
      ca: await readFile(caFile, 'utf8'),
      server,
      client: (cn) => issue(cn, 'client'),
      remove: () => tmp.remove(),
    }
  } catch (e) {
    await tmp.remove()
    throw e
  }
}
