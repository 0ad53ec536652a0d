// etcd's --cipher-suites: Go's cipher-suite names (tlsutil.GetCipherSuite: every name of Go's
// tls.CipherSuites() and tls.InsecureCipherSuites(), plus the two CHACHA20 aliases) and what they mean for
// node:tls, which takes OpenSSL's names.
//
// How Go (1.22, etcd 3.5.17's) applies them, and how the list given to OpenSSL reproduces it:
// - The list limits TLS 1.0-1.2 only. TLS 1.3 suites are not configurable in Go: a TLS 1.3 name is
//   accepted and changes nothing, and TLS 1.3 always offers Go's three suites.
// - The server picks by its own preference order, not the client's and not the order given; the list is
//   handed to OpenSSL in Go's order, with the server's order honoured.
// - Without the flag, Go's default list applies (ECDHE only: plain-RSA key exchange, CBC-SHA256 and RC4 are
//   off by default), rather than OpenSSL's, which also offers DHE and CBC-SHA384 suites Go does not have.
// - Node's OpenSSL has neither RC4 nor 3DES: those names are accepted, as etcd accepts them, and left out
//   of what OpenSSL is given, so a client that offers nothing else fails its handshake. Clients offer
//   neither by default any more.
import { goQuote } from '../go-quote.js'
import { TlsConfigError } from './tls-config-error.js'

export interface CipherSuite {
  /** Go's (IANA's) name. */
  readonly name: string
  /** The IANA code point. */
  readonly id: number
  /** OpenSSL's name of a TLS 1.2 suite; undefined for TLS 1.3 suites, which Go does not let the list set. */
  readonly openssl: string | undefined
}

/** A TLS 1.2 suite: its Go name, code point, OpenSSL name, and whether Go 1.22 enables it by default. */
type Tls12Suite = readonly [name: string, id: number, openssl: string, byDefault: boolean]

/** Go's TLS 1.0-1.2 suites in its server preference order (cipherSuitesPreferenceOrder, with AES hardware). */
const TLS12_SUITES: readonly Tls12Suite[] = [
  ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 0xc02b, 'ECDHE-ECDSA-AES128-GCM-SHA256', true],
  ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 0xc02f, 'ECDHE-RSA-AES128-GCM-SHA256', true],
  ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 0xc02c, 'ECDHE-ECDSA-AES256-GCM-SHA384', true],
  ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 0xc030, 'ECDHE-RSA-AES256-GCM-SHA384', true],
  ['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', 0xcca9, 'ECDHE-ECDSA-CHACHA20-POLY1305', true],
  ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', 0xcca8, 'ECDHE-RSA-CHACHA20-POLY1305', true],
  ['TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', 0xc009, 'ECDHE-ECDSA-AES128-SHA', true],
  ['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 0xc013, 'ECDHE-RSA-AES128-SHA', true],
  ['TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA', 0xc00a, 'ECDHE-ECDSA-AES256-SHA', true],
  ['TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA', 0xc014, 'ECDHE-RSA-AES256-SHA', true],
  ['TLS_RSA_WITH_AES_128_GCM_SHA256', 0x009c, 'AES128-GCM-SHA256', false],
  ['TLS_RSA_WITH_AES_256_GCM_SHA384', 0x009d, 'AES256-GCM-SHA384', false],
  ['TLS_RSA_WITH_AES_128_CBC_SHA', 0x002f, 'AES128-SHA', false],
  ['TLS_RSA_WITH_AES_256_CBC_SHA', 0x0035, 'AES256-SHA', false],
  ['TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', 0xc012, 'ECDHE-RSA-DES-CBC3-SHA', true],
  ['TLS_RSA_WITH_3DES_EDE_CBC_SHA', 0x000a, 'DES-CBC3-SHA', false],
  ['TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256', 0xc023, 'ECDHE-ECDSA-AES128-SHA256', false],
  ['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256', 0xc027, 'ECDHE-RSA-AES128-SHA256', false],
  ['TLS_RSA_WITH_AES_128_CBC_SHA256', 0x003c, 'AES128-SHA256', false],
  ['TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', 0xc007, 'ECDHE-ECDSA-RC4-SHA', false],
  ['TLS_ECDHE_RSA_WITH_RC4_128_SHA', 0xc011, 'ECDHE-RSA-RC4-SHA', false],
  ['TLS_RSA_WITH_RC4_128_SHA', 0x0005, 'RC4-SHA', false],
]

/** Go's TLS 1.3 suites, in its server preference order (defaultCipherSuitesTLS13); OpenSSL names them the same. */
const TLS13_SUITES: readonly (readonly [name: string, id: number])[] = [
  ['TLS_AES_128_GCM_SHA256', 0x1301],
  ['TLS_AES_256_GCM_SHA384', 0x1302],
  ['TLS_CHACHA20_POLY1305_SHA256', 0x1303],
]

/** Names GetCipherSuite takes besides the standard ones: Go's constants without the _SHA256 suffix. */
const ALIASES: Readonly<Record<string, string>> = {
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
}

const BY_NAME: ReadonlyMap<string, CipherSuite> = new Map<string, CipherSuite>([
  ...TLS12_SUITES.map(([name, id, openssl]): [string, CipherSuite] => [name, { name, id, openssl }]),
  ...TLS13_SUITES.map(([name, id]): [string, CipherSuite] => [name, { name, id, openssl: undefined }]),
])

/** The suite Go knows by this name (etcd's tlsutil.GetCipherSuite), or undefined. */
export function getCipherSuite(name: string): CipherSuite | undefined {
  return BY_NAME.get(ALIASES[name] ?? name)
}

/** etcd's tlsutil.GetCipherSuites: every name must be Go's, else `unexpected TLS cipher suite "<name>"`. */
export function getCipherSuites(names: readonly string[]): CipherSuite[] {
  return names.map((name) => {
    const suite = getCipherSuite(name)
    if (suite === undefined) throw new TlsConfigError(`unexpected TLS cipher suite ${goQuote(name)}`)
    return suite
  })
}

/**
 * node:tls's `ciphers` for a Go server configured with `suites` (empty: Go's defaults): the TLS 1.2 suites
 * in Go's preference order (TLS12_SUITES's, whatever order they were given in), those this OpenSSL lacks left out (`available`: tls.getCiphers(), lower case),
 * then Go's TLS 1.3 suites. Use with honorCipherOrder.
 */
export function opensslCipherList(suites: readonly CipherSuite[], available: readonly string[]): string {
  const have = new Set(available.map((c) => c.toLowerCase()))
  const ids = new Set(suites.map((s) => s.id))
  const tls12 = TLS12_SUITES
    .filter(([, id, , byDefault]) => (suites.length === 0 ? byDefault : ids.has(id)))
    .map(([, , openssl]) => openssl)
    .filter((openssl) => have.has(openssl.toLowerCase()))
  return [...tls12, ...TLS13_SUITES.map(([name]) => name)].join(':')
}
