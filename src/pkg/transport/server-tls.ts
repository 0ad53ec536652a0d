// What etcd does with its client TLS flags before it serves (embed.configureClientListeners,
// Config.ClientSelfCert, serveClients and TLSInfo.ServerConfig), for the command line to call once:
// check the version and cipher flags, make or reuse the --auto-tls certificate, warn about http:// URLs
// that ignore the TLS flags, refuse https:// URLs without a certificate, and read and check the files.
import { join } from 'node:path'
import type { Logger } from '../logger.js'
import { getCipherSuites } from '../tlsutil/cipher-suites.js'
import { TlsConfigError } from '../tlsutil/tls-config-error.js'
import { tlsVersionRange } from '../tlsutil/versions.js'
import { newCert, newCertPool } from './key-pair.js'
import { selfCert } from './self-cert.js'
import type { ServerTlsInfo } from './tls-info.js'

/** etcd's client TLSInfo flags ('' / false / [] when not given). */
export interface TlsInfoFlags {
  readonly certFile: string
  readonly keyFile: string
  readonly trustedCaFile: string
  readonly clientCertAuth: boolean
  readonly crlFile: string
  readonly clientCertFile: string
  readonly clientKeyFile: string
  /** --auto-tls */
  readonly autoTls: boolean
  /** --client-cert-allowed-hostname */
  readonly allowedHostnames: readonly string[]
}

export interface ServerTlsOptions {
  readonly logger: Logger
  /** --data-dir: --auto-tls keeps its certificate in <dataDir>/fixtures/client. */
  readonly dataDir: string
  /** --listen-client-urls (and --listen-client-http-urls) as given. */
  readonly listenUrls: readonly string[]
  /** --self-signed-cert-validity, in years. */
  readonly validityYears: number
  /** --cipher-suites, Go's names. */
  readonly cipherSuites: readonly string[]
  /** --tls-min-version and --tls-max-version: 'TLS1.2', 'TLS1.3' or ''. */
  readonly minVersion: string
  readonly maxVersion: string
}

/** The TLS for every https:// client listener: ListenOptions.tls. */
export interface ServerTls extends ServerTlsInfo {
  readonly cert: string
  readonly key: string
  /** etcd logs refused connections, but not with --auto-tls (its certificate replaces the TLSInfo that logs). */
  readonly logRejectedConnections: boolean
}

/** Go's url.URL Host of a URL as written: what lies between "scheme://" (and any "user@") and the path. */
function urlHost(url: string): string {
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1] ?? ''
  return authority.slice(authority.lastIndexOf('@') + 1)
}

const scheme = (url: string): string => /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase() ?? ''

/** etcd's TLSInfo.String(), as its "starting with client TLS" line shows it. */
function describe(t: TlsInfoFlags): string {
  return `cert = ${t.certFile}, key = ${t.keyFile}, client-cert=${t.clientCertFile}, client-key=${t.clientKeyFile}, ` +
    `trusted-ca = ${t.trustedCaFile}, client-cert-auth = ${String(t.clientCertAuth)}, crl-file = ${t.crlFile}`
}

/**
 * The client listeners' TLS from etcd's flags, or undefined when no URL is https:// (nothing to serve
 * with TLS; the files are then not read, as etcd does not read them). Logs etcd's lines on the way.
 * Rejects with etcd's message:
 * - TlsConfigError: a version flag or cipher suite etcd refuses; an https:// URL without --cert-file and
 *   --key-file (or --auto-tls); only one of them given; only one of --client-cert-file/--client-key-file.
 * - SelfCertError: --auto-tls could not make its certificate (etcd: fatal "failed to get client
 *   self-signed certs").
 * - KeyPairError: a file that cannot be read, or that is not a matching certificate and key, or a CA file
 *   with something other than certificates in it.
 */
export async function serverTls(flags: TlsInfoFlags, opts: ServerTlsOptions): Promise<ServerTls | undefined> {
  const { logger } = opts
  tlsVersionRange(opts.minVersion, opts.maxVersion, opts.cipherSuites)
  getCipherSuites(opts.cipherSuites)

  let info = flags
  let fromSelfCert = false
  if (flags.autoTls) {
    if (flags.certFile !== '' || flags.keyFile !== '') {
      logger.warn('ignoring client auto TLS since certs given')
    } else {
      const files = await selfCert({ logger, dir: join(opts.dataDir, 'fixtures', 'client'), hosts: opts.listenUrls.map(urlHost), validityYears: opts.validityYears })
      // etcd replaces the whole TLSInfo: trusted CA, client cert auth, CRL and allowed hostnames go with it.
      info = {
        certFile: files.certFile, keyFile: files.keyFile, clientCertFile: files.certFile, clientKeyFile: files.keyFile,
        trustedCaFile: '', clientCertAuth: false, crlFile: '', autoTls: true, allowedHostnames: [],
      }
      fromSelfCert = true
    }
  }
  const empty = info.certFile === '' && info.keyFile === ''

  for (const url of opts.listenUrls) {
    const s = scheme(url)
    if (s === 'http' || s === 'unix') {
      if (!empty) logger.warn('scheme is http or unix while key and cert files are present; ignoring key and cert files', { 'client-url': url })
      if (info.clientCertAuth) logger.warn('scheme is http or unix while --client-cert-auth is enabled; ignoring client cert auth for this URL', { 'client-url': url })
    }
    if ((s === 'https' || s === 'unixs') && empty) {
      throw new TlsConfigError(`TLS key/cert (--cert-file, --key-file) must be provided for client url ${url} with HTTPS scheme`)
    }
  }
  if (empty) return undefined
  logger.info('starting with client TLS', { 'tls-info': describe(info), 'cipher-suites': opts.cipherSuites })
  if (!opts.listenUrls.some((u) => ['https', 'unixs'].includes(scheme(u)))) return undefined

  // TLSInfo.baseConfig and ServerConfig, in their order.
  if (info.keyFile === '' || info.certFile === '') {
    throw new TlsConfigError(`KeyFile and CertFile must both be present[key: ${info.keyFile}, cert: ${info.certFile}]`)
  }
  const { cert, key } = await newCert(info.certFile, info.keyFile)
  if ((info.clientKeyFile === '') !== (info.clientCertFile === '')) {
    throw new TlsConfigError(`ClientKeyFile and ClientCertFile must both be present or both absent: key: ${info.clientKeyFile}, cert: ${info.clientCertFile}]`)
  }
  if (info.clientCertFile !== '') await newCert(info.clientCertFile, info.clientKeyFile)
  const trustedCa = info.trustedCaFile === '' ? undefined : await newCertPool([info.trustedCaFile])
  return {
    cert,
    key,
    ...(trustedCa === undefined ? {} : { trustedCa }),
    clientCertAuth: info.clientCertAuth,
    ...(info.crlFile === '' ? {} : { crlFile: info.crlFile }),
    allowedHostnames: info.allowedHostnames,
    cipherSuites: opts.cipherSuites,
    minVersion: opts.minVersion,
    maxVersion: opts.maxVersion,
    logRejectedConnections: !fromSelfCert,
  }
}

/** etcd's peer TLSInfo flags that matter without peer traffic: the client ones but the allowed hostnames. */
export type PeerTlsInfoFlags = Omit<TlsInfoFlags, 'allowedHostnames'>

export interface PeerTlsOptions {
  readonly logger: Logger
  /** --data-dir: --peer-auto-tls keeps its certificate in <dataDir>/fixtures/peer. */
  readonly dataDir: string
  /** --listen-peer-urls as given. */
  readonly listenPeerUrls: readonly string[]
  readonly validityYears: number
  readonly cipherSuites: readonly string[]
}

/**
 * What etcd does with its peer TLS flags before it listens for peers (configurePeerListeners and
 * PeerSelfCert), for a member that serves no peer traffic: the cipher names checked, the --peer-auto-tls
 * certificate made in <data-dir>/fixtures/peer (or reused; or etcd's warning when peer certificate files
 * are given), and the "starting with peer TLS" line. Resolves with the certificate files in use, undefined
 * without peer TLS. Rejects as serverTls does.
 */
export async function peerTls(flags: PeerTlsInfoFlags, opts: PeerTlsOptions): Promise<{ readonly certFile: string; readonly keyFile: string } | undefined> {
  const { logger } = opts
  getCipherSuites(opts.cipherSuites)
  let info = flags
  if (flags.autoTls) {
    if (flags.certFile !== '' || flags.keyFile !== '') {
      logger.warn('ignoring peer auto TLS since certs given')
    } else {
      const files = await selfCert({ logger, dir: join(opts.dataDir, 'fixtures', 'peer'), hosts: opts.listenPeerUrls.map(urlHost), validityYears: opts.validityYears })
      info = { ...files, clientCertFile: files.certFile, clientKeyFile: files.keyFile, trustedCaFile: '', clientCertAuth: false, crlFile: '', autoTls: true }
    }
  }
  if (info.certFile === '' && info.keyFile === '') return undefined
  logger.info('starting with peer TLS', { 'tls-info': describe({ ...info, allowedHostnames: [] }), 'cipher-suites': opts.cipherSuites })
  return { certFile: info.certFile, keyFile: info.keyFile }
}
