// JWT tokens (src/auth/jwt-token.ts, etcd's --auth-token jwt): each signing family round-trips, tampering,
// another algorithm and expiry are refused, option errors carry etcd's texts; a token of either server is
// accepted by the other (same key) when the real etcd is installed; and with JWTs an auth change makes old
// tokens fail with AUTH_OLD_REVISION, as in etcd.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { JwtOptionsError, JwtTokenProvider, type JwtSignMethod } from '../../../src/auth/jwt-token.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { isEtcdError } from '../../../src/pkg/errors.js'
import { openEtcd } from '../../../src/embed/etcd.js'
import { loadEtcdProto } from '../../../src/grpc/proto.js'
import { haveEtcd, startReferenceEtcd } from '../../helpers/processes.js'
import { unary } from '../../helpers/grpc-client.js'

const pem = (k: { export(o: { type: string; format: 'pem' }): string | Buffer }, type: string): string => String(k.export({ type, format: 'pem' }))
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
const ec256 = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const ec384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
const keys: Record<'rsa' | 'ec256' | 'ec384', { privateKey: string; publicKey: string }> = {
  rsa: { privateKey: pem(rsa.privateKey, 'pkcs8'), publicKey: pem(rsa.publicKey, 'spki') },
  ec256: { privateKey: pem(ec256.privateKey, 'pkcs8'), publicKey: pem(ec256.publicKey, 'spki') },
  ec384: { privateKey: pem(ec384.privateKey, 'pkcs8'), publicKey: pem(ec384.publicKey, 'spki') },
}

describe('JwtTokenProvider', () => {
  const methods: Array<{ method: JwtSignMethod; key: { privateKey: string; publicKey?: string } }> = [
    { method: 'RS256', key: keys.rsa },
    { method: 'RS512', key: keys.rsa },
    { method: 'PS256', key: keys.rsa },
    { method: 'PS384', key: keys.rsa },
    { method: 'ES256', key: keys.ec256 },
    { method: 'ES384', key: keys.ec384 },
    { method: 'HS256', key: { privateKey: 'shared secret' } },
    { method: 'HS512', key: { privateKey: 'shared secret' } },
  ]
  for (const m of methods) {
    it(`${m.method}: a token names its user and revision; a changed byte or another key is refused`, async () => {
      const p = await JwtTokenProvider.create({ signMethod: m.method, ...m.key }, new ManualClock())
      const t = p.assign('alice', 7)
      assert.deepEqual(p.info(t), { username: 'alice', revision: 7 })
      const [h, c, s] = t.split('.') as [string, string, string]
      assert.deepEqual(JSON.parse(Buffer.from(h, 'base64url').toString()), { alg: m.method, typ: 'JWT' })
      const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(c, 'base64url').toString()), username: 'root' })).toString('base64url')
      assert.equal(p.info(`${h}.${forged}.${s}`), undefined)
      // Flip a bit of the signature's first byte: replacing its last characters could leave it unchanged
      // (they may already be those, and the last one carries padding bits).
      const sig = Buffer.from(s, 'base64url')
      sig[0] = (sig[0] ?? 0) ^ 1
      assert.equal(p.info(`${h}.${c}.${sig.toString('base64url')}`), undefined)
      assert.equal(p.info('not.a.jwt'), undefined)
      assert.equal(p.info(t + '.x'), undefined)
    })
  }

  it('a token of another algorithm (even alg "none") is refused', async () => {
    const p = await JwtTokenProvider.create({ signMethod: 'RS256', ...keys.rsa }, new ManualClock())
    const claims = p.assign('alice', 1).split('.')[1] as string
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')
    assert.equal(p.info(`${none}.${claims}.`), undefined)
    const ps = await JwtTokenProvider.create({ signMethod: 'PS256', ...keys.rsa }, new ManualClock())
    assert.equal(p.info(ps.assign('alice', 1)), undefined)
  })

  it('expires after its ttl on the server clock', async () => {
    const clock = new ManualClock()
    const p = await JwtTokenProvider.create({ signMethod: 'HS256', privateKey: 'k', ttlMs: 10_000 }, clock)
    const t = p.assign('alice', 1)
    await clock.advance(9_000)
    assert.ok(p.info(t) !== undefined)
    await clock.advance(2_000)
    assert.equal(p.info(t), undefined)
  })

  it('option errors: etcd texts; a public key alone only verifies', async () => {
    const cases: Array<{ name: string; opts: Parameters<typeof JwtTokenProvider.create>[0]; message: RegExp }> = [
      { name: 'unknown method', opts: { signMethod: 'XX256' as JwtSignMethod, ...keys.rsa }, message: /^auth: invalid auth options$/ },
      { name: 'no key', opts: { signMethod: 'RS256' }, message: /^auth: missing key data$/ },
      { name: 'no secret', opts: { signMethod: 'HS256' }, message: /^auth: missing key data$/ },
      { name: 'keys of two pairs', opts: { signMethod: 'RS256', privateKey: keys.rsa.privateKey, publicKey: pem(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey, 'spki') }, message: /^auth: public and private keys don't match$/ },
      { name: 'an EC key for RS256', opts: { signMethod: 'RS256', ...keys.ec256 }, message: /must be an RSA key/ },
    ]
    for (const c of cases) await assert.rejects(JwtTokenProvider.create(c.opts, new ManualClock()), (e: unknown) => e instanceof JwtOptionsError && c.message.test(e.message), c.name)
    const full = await JwtTokenProvider.create({ signMethod: 'ES256', ...keys.ec256 }, new ManualClock())
    const verifyOnly = await JwtTokenProvider.create({ signMethod: 'ES256', publicKey: keys.ec256.publicKey }, new ManualClock())
    assert.deepEqual(verifyOnly.info(full.assign('bob', 3)), { username: 'bob', revision: 3 })
    assert.throws(() => verifyOnly.assign('bob', 3), (e: unknown) => isEtcdError(e, 'JWT_VERIFY_ONLY'))
  })
})

describe('JWT auth in the server', () => {
  it('an auth change makes old tokens fail with AUTH_OLD_REVISION; a new token works', async () => {
    await using etcd = await openEtcd({ memory: true, bcryptCost: 4, authToken: { type: 'jwt', signMethod: 'ES256', ...keys.ec256 } })
    await etcd.userAdd({ name: 'root', password: 'pw' })
    await etcd.userGrantRole({ user: 'root', role: 'root' })
    await etcd.authEnable()
    const root = etcd.withToken((await etcd.authenticate({ name: 'root', password: 'pw' })).token)
    await root.put({ key: Buffer.from('a'), value: Buffer.from('1') })
    await root.roleAdd({ name: 'r' })
    await assert.rejects(root.range({ key: Buffer.from('a') }), (e: unknown) => isEtcdError(e, 'AUTH_OLD_REVISION'))
    const again = etcd.withToken((await etcd.authenticate({ name: 'root', password: 'pw' })).token)
    assert.equal((await again.range({ key: Buffer.from('a') })).count, 1)
  })

  it('tokens interoperate with the real etcd signing with the same key', { skip: haveEtcd() ? false : 'etcd not installed' }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'etcdlite-jwt-'))
    const priv = join(dir, 'priv.pem')
    const pub = join(dir, 'pub.pem')
    await writeFile(priv, keys.rsa.privateKey)
    await writeFile(pub, keys.rsa.publicKey)
    const ref = await startReferenceEtcd(['--auth-token', `jwt,pub-key=${pub},priv-key=${priv},sign-method=RS256`, '--bcrypt-cost', '4'])
    const proto = loadEtcdProto()
    const auth = new proto.etcdserverpb.Auth(ref.endpoint, grpc.credentials.createInsecure())
    const kv = new proto.etcdserverpb.KV(ref.endpoint, grpc.credentials.createInsecure())
    try {
      await unary(auth, 'UserAdd')({ name: 'root', password: 'pw' })
      await unary(auth, 'UserGrantRole')({ user: 'root', role: 'root' })
      await unary(auth, 'AuthEnable')({})
      const { token } = (await unary(auth, 'Authenticate')({ name: 'root', password: 'pw' })) as { token: string }
      const ours = await JwtTokenProvider.create({ signMethod: 'RS256', ...keys.rsa }, new ManualClock())
      const info = ours.info(token)
      assert.equal(info?.username, 'root', 'etcd\'s token reads back here')
      // Our token, at the same revision, is accepted by etcd.
      const md = new grpc.Metadata()
      md.set('token', ours.assign('root', info.revision))
      await new Promise<void>((resolve, reject) => {
        kv.Put({ key: Buffer.from('k'), value: Buffer.from('v') }, md, (err) => (err === null ? resolve() : reject(err)))
      })
    } finally {
      auth.close()
      kv.close()
      await ref.dispose()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
