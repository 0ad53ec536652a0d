// CallerAuth (src/etcdserver/caller-auth.ts) over a recording auth store: which user a call runs as (token
// first, then the client certificate's common name), INVALID_AUTH_TOKEN for a bad token even while auth is
// off, and checkAuthenticated not reading the credentials at all while auth is off.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { AuthInfo } from '../../../src/auth/permission.js'
import { CallerAuth, type CallerAuthStore } from '../../../src/etcdserver/caller-auth.js'
import type { CallCredentials } from '../../../src/etcdserver/types/credentials.js'
import { EtcdError, isEtcdError, type ErrorCode } from '../../../src/pkg/errors.js'

const AUTH_REVISION = 7
const ALICE: AuthInfo = { username: 'alice', revision: 5 }

/** A store that knows one token ("good", for alice) and records who each check was asked about. */
function recordingStore(enabled: boolean): CallerAuthStore & { readonly asked: Array<[string, AuthInfo | undefined]> } {
  const asked: Array<[string, AuthInfo | undefined]> = []
  return {
    asked,
    enabled,
    authInfoFromToken: (token) => (token === 'good' ? ALICE : undefined),
    revision: () => AUTH_REVISION,
    isAdminPermitted: (ai) => {
      asked.push(['admin', ai])
      if (enabled && ai === undefined) throw new EtcdError('USER_EMPTY')
    },
    isUserPresent: (ai) => {
      asked.push(['user', ai])
      if (enabled && ai === undefined) throw new EtcdError('USER_EMPTY')
    },
  }
}

const fails = (code: ErrorCode) => (err: unknown): boolean => isEtcdError(err, code)

describe('CallerAuth.authInfo: who a call runs as', () => {
  const cases: Array<{ name: string; creds: CallCredentials | undefined; want?: AuthInfo | undefined; fails?: ErrorCode }> = [
    { name: 'no credentials: nobody', creds: undefined, want: undefined },
    { name: 'empty credentials: nobody', creds: {}, want: undefined },
    { name: 'a valid token: its user', creds: { token: 'good' }, want: ALICE },
    { name: 'a certificate: its common name at the current auth revision', creds: { commonName: 'bob' }, want: { username: 'bob', revision: AUTH_REVISION } },
    { name: 'a token wins over a certificate', creds: { token: 'good', commonName: 'bob' }, want: ALICE },
    { name: 'an unknown token fails, whatever the certificate says', creds: { token: 'bad', commonName: 'bob' }, fails: 'INVALID_AUTH_TOKEN' },
  ]
  for (const enabled of [false, true]) {
    for (const c of cases) {
      it(`${c.name} (auth ${enabled ? 'on' : 'off'})`, () => {
        const auth = new CallerAuth(recordingStore(enabled))
        if (c.fails !== undefined) assert.throws(() => auth.authInfo(c.creds), fails(c.fails))
        else assert.deepEqual(auth.authInfo(c.creds), c.want)
      })
    }
  }
})

describe('CallerAuth checks', () => {
  it('checkAdmin asks the store about the caller, whether auth is on or off', () => {
    for (const enabled of [false, true]) {
      const store = recordingStore(enabled)
      new CallerAuth(store).checkAdmin({ token: 'good' })
      assert.deepEqual(store.asked, [['admin', ALICE]])
    }
  })

  it('checkAdmin fails on a bad token even while auth is off', () => {
    assert.throws(() => new CallerAuth(recordingStore(false)).checkAdmin({ token: 'bad' }), fails('INVALID_AUTH_TOKEN'))
  })

  it('checkAuthenticated reads no credentials while auth is off: a bad token passes', () => {
    const store = recordingStore(false)
    new CallerAuth(store).checkAuthenticated({ token: 'bad' })
    assert.deepEqual(store.asked, [])
  })

  it('checkAuthenticated while auth is on: a user passes, nobody gets USER_EMPTY, a bad token INVALID_AUTH_TOKEN', () => {
    const store = recordingStore(true)
    const auth = new CallerAuth(store)
    auth.checkAuthenticated({ token: 'good' })
    assert.deepEqual(store.asked, [['user', ALICE]])
    assert.throws(() => auth.checkAuthenticated(undefined), fails('USER_EMPTY'))
    assert.throws(() => auth.checkAuthenticated({ token: 'bad' }), fails('INVALID_AUTH_TOKEN'))
  })
})
