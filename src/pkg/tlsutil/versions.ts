// etcd's --tls-min-version and --tls-max-version: the names etcd takes (tlsutil.GetTLSVersion), the rules
// its Config.Validate applies to them, and the versions node:tls is given.
import { goQuote } from '../go-quote.js'
import { TlsConfigError } from './tls-config-error.js'

/** A TLS version as node:tls names it. */
export type NodeTlsVersion = 'TLSv1.2' | 'TLSv1.3'

/** etcd's names: '' lets Go choose (for the minimum, etcd's TLS 1.2; for the maximum, TLS 1.3). */
const VERSIONS: Readonly<Record<string, NodeTlsVersion | undefined>> = { '': undefined, 'TLS1.2': 'TLSv1.2', 'TLS1.3': 'TLSv1.3' }

/** etcd's tlsutil.GetTLSVersion: undefined for '', else the version, else etcd's error. */
export function getTlsVersion(version: string): NodeTlsVersion | undefined {
  if (!Object.hasOwn(VERSIONS, version)) {
    throw new TlsConfigError(`unexpected TLS version ${goQuote(version)} (must be one of: TLS1.2, TLS1.3)`)
  }
  return VERSIONS[version]
}

/** The TLS versions a server accepts. */
export interface TlsVersionRange {
  readonly minVersion: NodeTlsVersion
  readonly maxVersion: NodeTlsVersion
}

/**
 * Check the version flags as etcd's Config.Validate does (before anything starts), with its messages, and
 * return the range served (etcd's TLSInfo.baseConfig: minimum TLS 1.2 unless given; no maximum below Go's,
 * TLS 1.3): unknown names; a minimum above the maximum; cipher suites with TLS 1.3 as the minimum, since Go
 * cannot configure TLS 1.3 suites.
 */
export function tlsVersionRange(min: string, max: string, cipherSuites: readonly string[] = []): TlsVersionRange {
  const lo = getTlsVersion(min)
  const hi = getTlsVersion(max)
  if (lo !== undefined && hi !== undefined && lo > hi) {
    throw new TlsConfigError(`min version (${min}) is greater than max version (${max})`)
  }
  if (lo === 'TLSv1.3' && cipherSuites.length > 0) {
    throw new TlsConfigError('cipher suites cannot be configured when only TLS1.3 is enabled')
  }
  return { minVersion: lo ?? 'TLSv1.2', maxVersion: hi ?? 'TLSv1.3' }
}
