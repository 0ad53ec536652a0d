import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseArgs, parseDuration, UsageError } from '../../../src/etcdmain/config.js'

describe('parseDuration reads Go time.Duration strings', () => {
  const cases: ReadonlyArray<readonly [string, number | undefined]> = [
    ['10m0s', 600_000], ['1.5s', 1500], ['100ms', 100], ['0', 0], ['1h2m3s', 3_723_000], ['250us', 0.25], ['-1s', -1000],
    ['.5s', 500], ['5', undefined], ['abc', undefined], ['', undefined], ['1x', undefined], ['s', undefined],
  ]
  for (const [input, want] of cases) {
    it(`"${input}" -> ${want === undefined ? 'error' : want}`, () => {
      if (want === undefined) assert.throws(() => parseDuration(input, 'f'), UsageError)
      else assert.equal(parseDuration(input, 'f'), want)
    })
  }
})

describe('--experimental-watch-progress-notify-interval', () => {
  const cases: ReadonlyArray<readonly [readonly string[], number]> = [
    [[], 600_000],
    [['--experimental-watch-progress-notify-interval', '2s'], 2000],
    // etcd raises positive values below 100ms to 100ms, and keeps the default for zero or negative ones.
    [['--experimental-watch-progress-notify-interval=10ms'], 100],
    [['--experimental-watch-progress-notify-interval=0'], 600_000],
    [['--experimental-watch-progress-notify-interval=-5s'], 600_000],
  ]
  for (const [args, want] of cases) {
    it(`${args.join(' ') || '(default)'} -> ${want} ms`, () => {
      const r = parseArgs(args)
      assert.equal(r.kind, 'run')
      if (r.kind === 'run') assert.equal(r.config.watchProgressNotifyIntervalMs, want)
    })
  }
})

describe('--index-checkpoint-entries', () => {
  const cases: ReadonlyArray<readonly [readonly string[], number | undefined]> = [
    [[], 50_000],
    [['--index-checkpoint-entries', '8'], 8],
    [['--index-checkpoint-entries=0'], 0],
    [['--index-checkpoint-entries=-1'], undefined],
    [['--index-checkpoint-entries=many'], undefined],
  ]
  for (const [args, want] of cases) {
    it(`${args.join(' ') || '(default)'} -> ${want ?? 'usage error'}`, () => {
      if (want === undefined) {
        assert.throws(() => parseArgs(args), UsageError)
        return
      }
      const r = parseArgs(args)
      assert.equal(r.kind, 'run')
      if (r.kind === 'run') assert.equal(r.config.indexCheckpointEntries, want)
    })
  }
})

describe('--auth-token, --auth-token-ttl, --bcrypt-cost', () => {
  const cases: ReadonlyArray<{ args: readonly string[]; want: unknown }> = [
    { args: [], want: { authToken: { type: 'simple' }, authTokenTtl: 300, bcryptCost: 10 } },
    { args: ['--auth-token', 'simple', '--auth-token-ttl', '5', '--bcrypt-cost=4'], want: { authToken: { type: 'simple' }, authTokenTtl: 5, bcryptCost: 4 } },
    {
      args: ['--auth-token', 'jwt,pub-key=/p.pem,priv-key=/k.pem,sign-method=RS256,ttl=10m'],
      want: { authToken: { type: 'jwt', signMethod: 'RS256', pubKeyFile: '/p.pem', privKeyFile: '/k.pem', ttlMs: 600_000 }, authTokenTtl: 300, bcryptCost: 10 },
    },
    { args: ['--auth-token', 'jwt,priv-key=/k,sign-method=HS256'], want: { authToken: { type: 'jwt', signMethod: 'HS256', pubKeyFile: '', privKeyFile: '/k', ttlMs: 0 }, authTokenTtl: 300, bcryptCost: 10 } },
    // etcd: "auth: invalid auth options" for an unknown type, a malformed or repeated option, a bad ttl, no sign-method.
    { args: ['--auth-token', 'foo'], want: 'auth: invalid auth options' },
    { args: ['--auth-token', 'jwt,priv-key'], want: 'auth: invalid auth options' },
    { args: ['--auth-token', 'jwt,sign-method=RS256,sign-method=RS256'], want: 'auth: invalid auth options' },
    { args: ['--auth-token', 'jwt,sign-method=RS256,ttl=5'], want: 'auth: invalid auth options' },
    { args: ['--auth-token', 'jwt,priv-key=/k'], want: 'auth: invalid auth options' },
  ]
  for (const c of cases) {
    it(`${c.args.join(' ') || '(defaults)'}`, () => {
      if (typeof c.want === 'string') {
        assert.throws(() => parseArgs(c.args), (e: unknown) => e instanceof UsageError && e.message === c.want)
        return
      }
      const r = parseArgs(c.args)
      assert.equal(r.kind, 'run')
      if (r.kind === 'run') assert.deepEqual({ authToken: r.config.authToken, authTokenTtl: r.config.authTokenTtl, bcryptCost: r.config.bcryptCost }, c.want)
    })
  }
})
