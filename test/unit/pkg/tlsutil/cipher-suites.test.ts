// --cipher-suites: Go's names (those of tls.CipherSuites(), tls.InsecureCipherSuites() and etcd's two
// CHACHA20 aliases) and etcd's error for any other; the OpenSSL list a server is given, in Go's order,
// with TLS 1.3's suites always present; and the OpenSSL name of each suite checked against openssl's own
// table of standard names.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { getCiphers } from 'node:tls'
import { getCipherSuite, getCipherSuites, opensslCipherList } from '../../../../src/pkg/tlsutil/cipher-suites.js'
import { TlsConfigError } from '../../../../src/pkg/tlsutil/tls-config-error.js'

/** Every name Go 1.22's tls.CipherSuites() and tls.InsecureCipherSuites() list. */
const GO_NAMES = [
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_RSA_WITH_AES_128_CBC_SHA', 'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_AES_256_GCM_SHA384', 'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_AES_128_CBC_SHA256', 'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
]

describe('Go cipher-suite names', () => {
  it('knows every name Go lists, and the two aliases etcd adds', () => {
    for (const name of GO_NAMES) assert.equal(getCipherSuite(name)?.name, name)
    assert.equal(getCipherSuite('TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305')?.name, 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256')
    assert.equal(getCipherSuite('TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305')?.name, 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256')
  })

  it('refuses any other name with etcd\'s message, quoted as Go quotes', () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ['bogus', 'unexpected TLS cipher suite "bogus"'],
      ['', 'unexpected TLS cipher suite ""'],
      ['ECDHE-RSA-AES128-GCM-SHA256', 'unexpected TLS cipher suite "ECDHE-RSA-AES128-GCM-SHA256"'],
      ['tls_aes_128_gcm_sha256', 'unexpected TLS cipher suite "tls_aes_128_gcm_sha256"'],
      ['a"b\tc', 'unexpected TLS cipher suite "a\\"b\\tc"'],
    ]
    for (const [name, message] of cases) {
      assert.throws(() => getCipherSuites(['TLS_AES_128_GCM_SHA256', name]), (e: unknown) => e instanceof TlsConfigError && e.message === message)
    }
  })
})

describe('the OpenSSL cipher list', () => {
  const all = getCiphers()
  const tls13 = 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256'

  it('without --cipher-suites: Go 1.22\'s defaults (ECDHE only), then TLS 1.3\'s', () => {
    assert.equal(opensslCipherList([], all), [
      'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384',
      'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305', 'ECDHE-ECDSA-AES128-SHA', 'ECDHE-RSA-AES128-SHA',
      'ECDHE-ECDSA-AES256-SHA', 'ECDHE-RSA-AES256-SHA', ...(all.includes('ecdhe-rsa-des-cbc3-sha') ? ['ECDHE-RSA-DES-CBC3-SHA'] : []), tls13,
    ].join(':'))
  })

  it('with --cipher-suites: those in Go\'s preference order, whatever order they were given in', () => {
    const suites = getCipherSuites(['TLS_RSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'])
    assert.equal(opensslCipherList(suites, all), `ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305:AES128-SHA:${tls13}`)
  })

  it('TLS 1.3 names change nothing; suites this OpenSSL lacks are left out', () => {
    assert.equal(opensslCipherList(getCipherSuites(['TLS_AES_256_GCM_SHA384', 'TLS_RSA_WITH_AES_128_GCM_SHA256']), all), `AES128-GCM-SHA256:${tls13}`)
    const without = all.filter((c) => c !== 'aes128-gcm-sha256')
    assert.equal(opensslCipherList(getCipherSuites(['TLS_RSA_WITH_AES_128_GCM_SHA256']), without), tls13)
  })

  const openssl = spawnSync('openssl', ['ciphers', '-stdname', 'ALL:COMPLEMENTOFALL'], { encoding: 'utf8' })
  it('names each suite as openssl\'s standard-name table does', { skip: openssl.status !== 0 ? 'openssl is not on PATH' : false }, () => {
    const byStd = new Map(openssl.stdout.split('\n').map((l) => l.split(' - ')).filter((p) => p.length >= 2).map((p) => [(p[0] ?? '').trim(), (p[1] ?? '').trim().split(/\s+/)[0] ?? '']))
    let checked = 0
    for (const name of GO_NAMES) {
      const suite = getCipherSuite(name)
      const std = byStd.get(name)
      if (suite?.openssl === undefined || std === undefined) continue
      assert.equal(suite.openssl, std, name)
      checked++
    }
    assert.ok(checked >= 15, `only ${checked} suites were in openssl's table`)
  })
})
