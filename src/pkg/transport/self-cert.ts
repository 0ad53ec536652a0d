// etcd's transport.SelfCert, behind --auto-tls and --peer-auto-tls: a self-signed certificate and its key
// in <dir>/cert.pem and <dir>/key.pem (etcd's dir: <data-dir>/fixtures/client or /fixtures/peer), made
// once and reused as they are on every later start. As etcd makes them: an ECDSA P-521 key (SEC1 PEM,
// "EC PRIVATE KEY", mode 0600), a certificate (mode 0666 less the umask) valid from now for the given
// number of 365-day years, with a random 128-bit serial, O=etcd, key usage digitalSignature and
// keyEncipherment, extended key usage serverAuth (plus the extra usages asked for), and the host of every
// listen URL as an IP address or DNS name; the directories are created 0700. Log lines are etcd's.
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdir, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import type { Logger } from '../logger.js'
import { goQuote } from '../go-quote.js'
import { hostOf, parseIp } from './host-port.js'
import { pathError } from './path-error.js'
import { SelfCertError } from './self-cert-error.js'
import { pemEncode } from './pem.js'
import { createSelfSignedCertificate, type ExtKeyUsage } from './self-signed-certificate.js'
import { errorMessage } from '../as-error.js'

export { SelfCertError }

export interface SelfCertOptions {
  readonly logger: Logger
  /** Where cert.pem and key.pem go. */
  readonly dir: string
  /** The host:port of each listen URL, as written (Go's url.Host); a host without a port becomes DNS name "". */
  readonly hosts: readonly string[]
  /** Validity in years of 365 days (etcd's --self-signed-cert-validity, default 1); must be > 0. */
  readonly validityYears: number
  /** Extended key usages besides serverAuth. */
  readonly extraExtKeyUsages?: readonly ExtKeyUsage[]
}

/** The files SelfCert leaves: absolute paths, used as the server certificate and as the client certificate. */
export interface SelfCertFiles {
  readonly certFile: string
  readonly keyFile: string
}

const DAY_MS = 24 * 60 * 60 * 1000
const PRIVATE_DIR_MODE = 0o700

const exists = (path: string): Promise<boolean> => stat(path).then(() => true, () => false)

/** Go's os.FileMode.String() of a directory's or file's permission bits. */
function fileModeString(isDir: boolean, perm: number): string {
  const rwx = 'rwxrwxrwx'
  let s = isDir ? 'd' : '-'
  for (let i = 0; i < 9; i++) s += perm & (1 << (8 - i)) ? rwx[i] : '-'
  return s
}

/**
 * The path Go's os.MkdirAll names when it fails: for ENOTDIR, the ancestor that exists and is not a
 * directory (MkdirAll stops there); else the directory asked for.
 */
async function mkdirAllErrorPath(dir: string, err: unknown): Promise<string> {
  if ((err as NodeJS.ErrnoException).code !== 'ENOTDIR') return dir
  for (let p = dirname(dir); p !== dirname(p); p = dirname(p)) {
    const st = await stat(p).catch(() => undefined)
    if (st !== undefined) return st.isDirectory() ? dir : p
  }
  return dir
}

/** etcd's fileutil.TouchDirAll: create the directory (0700) or warn if it exists with other permissions; then check it is writable. */
async function touchDirAll(logger: Logger, dir: string): Promise<void> {
  let st
  try {
    st = await stat(dir)
  } catch {
    st = undefined
  }
  if (st !== undefined) {
    const perm = st.mode & 0o777
    if (perm !== PRIVATE_DIR_MODE) {
      logger.warn('check file permission', {
        error: `directory ${goQuote(dir)} exist, but the permission is ${goQuote(fileModeString(st.isDirectory(), perm))}. ` +
          `The recommended permission is ${goQuote(fileModeString(false, PRIVATE_DIR_MODE))} to prevent possible unprivileged access to the data`,
      })
    }
  } else {
    try {
      await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
    } catch (err) {
      throw pathError('mkdir', await mkdirAllErrorPath(dir, err), err)
    }
  }
  // fileutil.IsDirWriteable
  const touch = resolve(dir, '.touch')
  try {
    await writeFile(touch, '', { mode: 0o600 })
  } catch (err) {
    throw pathError('open', touch, err)
  }
  try {
    await rm(touch)
  } catch (err) {
    throw pathError('remove', touch, err)
  }
}

/**
 * etcd's SelfCert: reuse <dir>/cert.pem and <dir>/key.pem when both exist, else make them. Rejects with
 * SelfCertError (logging etcd's warning first) if the validity is not positive or a file cannot be written.
 */
export async function selfCert(opts: SelfCertOptions): Promise<SelfCertFiles> {
  const { logger } = opts
  if (!(opts.validityYears > 0)) {
    const error = 'selfSignedCertValidity is invalid,it should be greater than 0'
    logger.warn('cannot generate cert', { error })
    throw new SelfCertError(error)
  }
  try {
    await touchDirAll(logger, opts.dir)
  } catch (err) {
    const error = errorMessage(err)
    logger.warn('cannot create cert directory', { error })
    throw new SelfCertError(error, { cause: err })
  }
  const certFile = resolve(join(opts.dir, 'cert.pem'))
  const keyFile = resolve(join(opts.dir, 'key.pem'))
  const [haveCert, haveKey] = await Promise.all([exists(certFile), exists(keyFile)])
  if (haveCert && haveKey) return { certFile, keyFile }

  const notBefore = new Date()
  const notAfter = new Date(notBefore.getTime() + opts.validityYears * 365 * DAY_MS)
  logger.warn('automatically generate certificates', { 'certificate-validity-bound-not-after': notAfter.toISOString() })
  const dnsNames: string[] = []
  const ipAddresses: Buffer[] = []
  for (const hostport of opts.hosts) {
    // Go ignores SplitHostPort's error: the host is then "".
    const h = hostOf(hostport) ?? ''
    const ip = parseIp(h)
    if (ip === undefined) dnsNames.push(h)
    else ipAddresses.push(ip)
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' })
  const der = createSelfSignedCertificate({
    serial: randomBytes(16),
    organization: 'etcd',
    notBefore,
    notAfter,
    dnsNames,
    ipAddresses,
    extKeyUsages: ['serverAuth', ...(opts.extraExtKeyUsages ?? [])],
  }, privateKey)

  try {
    await writeFile(certFile, pemEncode('CERTIFICATE', der))
  } catch (err) {
    const e = pathError('open', certFile, err)
    logger.warn('cannot cert file', { path: certFile, error: e.message })
    throw new SelfCertError(e.message, { cause: err })
  }
  logger.info('created cert file', { path: certFile })
  try {
    await writeFile(keyFile, privateKey.export({ type: 'sec1', format: 'pem' }), { mode: 0o600 })
  } catch (err) {
    const e = pathError('open', keyFile, err)
    logger.warn('cannot key file', { path: keyFile, error: e.message })
    throw new SelfCertError(e.message, { cause: err })
  }
  logger.info('created key file', { path: keyFile })
  // As etcd: start over, which now finds both files.
  return selfCert(opts)
}
