// etcd's TLSInfo.ServerConfig for a client listener: the TLS options, as given to the embedded API or made
// from the command line's flags, checked with etcd's rules and messages and turned into what node:tls and
// the TLS listener take.
import { getCiphers, type TlsOptions } from 'node:tls'
import { getCipherSuites, opensslCipherList } from '../tlsutil/cipher-suites.js'
import { tlsVersionRange, type NodeTlsVersion } from '../tlsutil/versions.js'

/** The TLS of one client listener (etcd's client TLS flags, with the certificate and key as PEM). */
export interface ServerTlsInfo {
  /** The server certificate chain, PEM (--cert-file). */
  readonly cert: string | Buffer
  /** Its private key, PEM (--key-file). */
  readonly key: string | Buffer
  /**
   * PEM of the CAs client certificates must chain to (--trusted-ca-file). As in etcd, giving it makes every
   * client present a certificate that verifies against it, even without clientCertAuth.
   */
  readonly trustedCa?: string | Buffer | readonly (string | Buffer)[]
  /**
   * Require a verified client certificate, whose common name then acts as the user of calls that send no
   * token while auth is enabled (--client-cert-auth). Without trustedCa, certificates verify against Node's
   * bundled root CAs. Default false.
   */
  readonly clientCertAuth?: boolean
  /**
   * A certificate revocation list file, PEM or DER (--client-crl-file). As etcd, it is read again for every
   * connection, and a client that presents a certificate whose serial it lists is disconnected right after
   * the handshake; its signature and dates are not checked. A file that cannot be read or parsed
   * disconnects every client that presents a certificate.
   */
  readonly crlFile?: string
  /**
   * Host names or IPs, one of which a client certificate must match by Go's rules (its DNS and IP SANs;
   * --client-cert-allowed-hostname). Applies when client certificates are requested (trustedCa or
   * clientCertAuth); a client whose certificate matches none is disconnected right after the handshake.
   */
  readonly allowedHostnames?: readonly string[]
  /**
   * Go's names of the TLS 1.2 cipher suites allowed (--cipher-suites, e.g.
   * 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'). TLS 1.3 suites are Go's three, always. Default: Go's defaults.
   */
  readonly cipherSuites?: readonly string[]
  /** 'TLS1.2', 'TLS1.3' or '' (--tls-min-version). Default TLS 1.2. */
  readonly minVersion?: string
  /** 'TLS1.2', 'TLS1.3' or '' (--tls-max-version). Default TLS 1.3. */
  readonly maxVersion?: string
}

/** A client listener's TLS, checked: what the gRPC server's TLS front takes. */
export interface ServerConfig {
  readonly cert: string | Buffer
  readonly key: string | Buffer
  readonly ca?: string | Buffer | readonly (string | Buffer)[]
  readonly clientCertAuth: boolean
  /** OpenSSL's cipher list (tlsutil's opensslCipherList); default: Go's default suites. */
  readonly ciphers?: string
  readonly minVersion?: NodeTlsVersion
  readonly maxVersion?: NodeTlsVersion
  readonly crlFile?: string
  readonly allowedHostnames?: readonly string[]
}

/**
 * Check `info` as etcd does before it serves (the version rules of Config.Validate, then the cipher
 * names) and return the listener's configuration. Throws TlsConfigError with etcd's message.
 */
export function serverConfig(info: ServerTlsInfo): ServerConfig {
  const names = info.cipherSuites ?? []
  const { minVersion, maxVersion } = tlsVersionRange(info.minVersion ?? '', info.maxVersion ?? '', names)
  const suites = getCipherSuites(names)
  return {
    cert: info.cert,
    key: info.key,
    ...(info.trustedCa === undefined ? {} : { ca: info.trustedCa }),
    clientCertAuth: info.clientCertAuth ?? false,
    ciphers: opensslCipherList(suites, getCiphers()),
    minVersion,
    maxVersion,
    ...(info.crlFile === undefined || info.crlFile === '' ? {} : { crlFile: info.crlFile }),
    ...(info.allowedHostnames === undefined ? {} : { allowedHostnames: info.allowedHostnames }),
  }
}

/**
 * node:tls's server options for a configuration (without ALPN, which belongs to the server): etcd's
 * TLSInfo.ServerConfig asks for a verified client certificate when a trusted CA is given or
 * --client-cert-auth is on, and the server's cipher order rules as Go's does.
 */
export function nodeTlsOptions(c: ServerConfig): TlsOptions {
  const requireClientCert = c.clientCertAuth || c.ca !== undefined
  return {
    cert: c.cert,
    key: c.key,
    ...(c.ca === undefined ? {} : { ca: typeof c.ca === 'string' || Buffer.isBuffer(c.ca) ? c.ca : [...c.ca] }),
    requestCert: requireClientCert,
    rejectUnauthorized: requireClientCert,
    ciphers: c.ciphers ?? opensslCipherList([], getCiphers()),
    honorCipherOrder: true,
    minVersion: c.minVersion ?? 'TLSv1.2',
    maxVersion: c.maxVersion ?? 'TLSv1.3',
  }
}
