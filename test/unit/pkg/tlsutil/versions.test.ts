// --tls-min-version / --tls-max-version: the names etcd takes, its messages for the rest, and the rules of
// its Config.Validate (min above max; cipher suites with TLS 1.3 as the minimum).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { getTlsVersion, tlsVersionRange } from '../../../../src/pkg/tlsutil/versions.js'
import { TlsConfigError } from '../../../../src/pkg/tlsutil/tls-config-error.js'

const refused = (message: string) => (e: unknown): boolean => e instanceof TlsConfigError && e.message === message

describe('TLS versions', () => {
  it('takes TLS1.2, TLS1.3 and "" (Go decides)', () => {
    assert.equal(getTlsVersion('TLS1.2'), 'TLSv1.2')
    assert.equal(getTlsVersion('TLS1.3'), 'TLSv1.3')
    assert.equal(getTlsVersion(''), undefined)
  })

  it('refuses other names with etcd\'s message', () => {
    for (const v of ['TLS1.1', 'tls1.2', 'TLSv1.2', '1.3', ' TLS1.2']) {
      assert.throws(() => getTlsVersion(v), refused(`unexpected TLS version "${v}" (must be one of: TLS1.2, TLS1.3)`))
    }
  })

  it('serves TLS 1.2 to 1.3 by default, and what the flags say otherwise', () => {
    assert.deepEqual(tlsVersionRange('', ''), { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' })
    assert.deepEqual(tlsVersionRange('TLS1.3', ''), { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' })
    assert.deepEqual(tlsVersionRange('', 'TLS1.2'), { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' })
    assert.deepEqual(tlsVersionRange('TLS1.2', 'TLS1.2', ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']), { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' })
  })

  it('refuses a minimum above the maximum, and cipher suites when only TLS 1.3 is on', () => {
    assert.throws(() => tlsVersionRange('TLS1.3', 'TLS1.2'), refused('min version (TLS1.3) is greater than max version (TLS1.2)'))
    assert.throws(() => tlsVersionRange('TLS1.3', '', ['TLS_AES_128_GCM_SHA256']), refused('cipher suites cannot be configured when only TLS1.3 is enabled'))
    assert.throws(() => tlsVersionRange('TLS1.3', 'TLS1.3', ['x']), refused('cipher suites cannot be configured when only TLS1.3 is enabled'))
    // A TLS 1.3 maximum does not stop cipher suites: TLS 1.2 is still on.
    assert.doesNotThrow(() => tlsVersionRange('', 'TLS1.3', ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']))
  })

  it('checks the names before the rules', () => {
    assert.throws(() => tlsVersionRange('TLS1.4', 'TLS1.2'), refused('unexpected TLS version "TLS1.4" (must be one of: TLS1.2, TLS1.3)'))
    assert.throws(() => tlsVersionRange('TLS1.2', 'x'), refused('unexpected TLS version "x" (must be one of: TLS1.2, TLS1.3)'))
  })
})
