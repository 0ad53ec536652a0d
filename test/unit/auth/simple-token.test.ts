// The simple token provider (src/auth/simple-token.ts) on a ManualClock: token form, expiry exactly at the
// TTL, the sliding reset on each lookup, the 1 s sweep that frees memory, invalidateUser, disable, close,
// and the malformed tokens etcd's isValidSimpleToken rejects.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_SIMPLE_TOKEN_TTL_MS, SimpleTokenProvider, isValidSimpleToken } from '../../../src/auth/simple-token.js'
import { ManualClock } from '../../../src/pkg/clock.js'

function provider(ttlMs = 10_000, clock = new ManualClock()): { p: SimpleTokenProvider; clock: ManualClock } {
  const p = new SimpleTokenProvider({ ttlMs, clock, onError: (e) => assert.fail(`sweep failed: ${String(e)}`) })
  p.enable()
  return { p, clock }
}

describe('SimpleTokenProvider', () => {
  it('a token is 16 letters, a dot and the index, and names its user', async () => {
    const { p } = provider()
    const t = p.assign('alice', 42)
    assert.match(t, /^[a-zA-Z]{16}\.42$/)
    assert.equal(p.lookup(t), 'alice')
    assert.notEqual(p.assign('alice', 42), t, 'each token is new')
    await p.close()
  })

  it('expires exactly after the TTL: valid at the TTL, invalid 1 ms later', async () => {
    const { p, clock } = provider(10_000)
    const t = p.assign('alice', 1)
    await clock.advance(10_000)
    assert.equal(p.lookup(t), 'alice')
    const u = p.assign('bob', 2)
    await clock.advance(10_001)
    assert.equal(p.lookup(u), undefined)
    await p.close()
  })

  it('each lookup starts the TTL again (sliding expiry)', async () => {
    const { p, clock } = provider(10_000)
    const t = p.assign('alice', 1)
    for (let i = 0; i < 5; i++) {
      await clock.advance(9_000)
      assert.equal(p.lookup(t), 'alice', `lookup ${i}`)
    }
    await clock.advance(10_001)
    assert.equal(p.lookup(t), undefined)
    await p.close()
  })

  it('the 1 s sweep drops expired tokens from memory, and only those', async () => {
    const { p, clock } = provider(2_000)
    p.assign('alice', 1)
    await clock.advance(1_500)
    const fresh = p.assign('bob', 2)
    assert.equal(p.size, 2)
    // Sweeps run at 1000 and 2000: alice expires at 2000 exactly, so she is still there at 2500.
    await clock.advance(1_000)
    assert.equal(p.size, 2)
    await clock.advance(500) // sweep at 3000: alice (expiry 2000) is gone, bob (expiry 3500) stays
    assert.equal(p.size, 1)
    assert.equal(p.lookup(fresh), 'bob')
    await p.close()
  })

  it('invalidateUser drops every token of that user only', async () => {
    const { p } = provider()
    const a1 = p.assign('alice', 1)
    const a2 = p.assign('alice', 2)
    const b = p.assign('bob', 3)
    p.invalidateUser('alice')
    assert.equal(p.lookup(a1), undefined)
    assert.equal(p.lookup(a2), undefined)
    assert.equal(p.lookup(b), 'bob')
    await p.close()
  })

  it('disable drops every token and stops the sweeper; enable starts afresh', async () => {
    const { p, clock } = provider()
    const t = p.assign('alice', 1)
    p.disable()
    assert.equal(p.enabled, false)
    assert.equal(p.lookup(t), undefined)
    assert.equal(clock.pending(), 0, 'no sweeper timer left')
    const ignored = p.assign('alice', 2)
    assert.equal(p.lookup(ignored), undefined, 'a token assigned while disabled is never valid')
    p.enable()
    assert.equal(p.lookup(t), undefined, 'old tokens stay invalid after enable')
    const fresh = p.assign('alice', 3)
    assert.equal(p.lookup(fresh), 'alice')
    await p.close()
  })

  it('close stops the sweeper for good and is idempotent', async () => {
    const { p, clock } = provider()
    p.assign('alice', 1)
    await p.close()
    await p.close()
    assert.equal(clock.pending(), 0)
    p.enable()
    assert.equal(p.enabled, false, 'enable after close is a no-op')
  })

  it('a TTL <= 0 means the default 300 s', async () => {
    const { p, clock } = provider(0)
    const t = p.assign('alice', 1)
    await clock.advance(DEFAULT_SIMPLE_TOKEN_TTL_MS)
    assert.equal(p.lookup(t), 'alice')
    await clock.advance(DEFAULT_SIMPLE_TOKEN_TTL_MS + 1)
    assert.equal(p.lookup(t), undefined)
    await p.close()
  })

  it('rejects a negative or fractional index (a bug in the caller)', async () => {
    const { p } = provider()
    assert.throws(() => p.assign('alice', -1))
    assert.throws(() => p.assign('alice', 1.5))
    await p.close()
  })

  it('a known token with extra characters is not that token', async () => {
    const { p } = provider()
    const t = p.assign('alice', 7)
    for (const bad of [` ${t}`, `${t} `, `${t}.`, t.toUpperCase() === t ? t.toLowerCase() : t.toUpperCase()]) {
      assert.equal(p.lookup(bad), undefined, JSON.stringify(bad))
    }
    await p.close()
  })
})

describe('isValidSimpleToken (etcd: exactly one ".", then what strconv.Atoi accepts)', () => {
  const cases: Array<[string, boolean]> = [
    ['abcdefghijklmnop.1', true],
    ['.1', true],
    ['x.0', true],
    ['x.+5', true],
    ['x.-5', true],
    ['x.007', true],
    ['x.9223372036854775807', true],
    ['x.9223372036854775808', false],
    ['x.-9223372036854775808', true],
    ['x.-9223372036854775809', false],
    ['x', false],
    ['x.', false],
    ['x.1.2', false],
    ['x.1a', false],
    ['x. 1', false],
    ['x.1.', false],
    ['x.0x10', false],
    ['x.1e3', false],
    ['x.+', false],
    ['', false],
  ]
  for (const [token, want] of cases) it(`${JSON.stringify(token)} -> ${want}`, () => assert.equal(isValidSimpleToken(token), want))
})
