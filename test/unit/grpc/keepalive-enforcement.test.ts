import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { KeepaliveEnforcement, PING_WITHOUT_STREAMS_MS } from '../../../src/grpc/keepalive-enforcement.js'

/** A policy on a clock the test moves. */
function policy(minTimeMs: number): { p: KeepaliveEnforcement; advance: (ms: number) => void } {
  let now = 1_000_000
  return { p: new KeepaliveEnforcement(minTimeMs, () => now), advance: (ms) => (now += ms) }
}

describe('KeepaliveEnforcement', () => {
  it('ends the connection on the third strike, not before', () => {
    const { p, advance } = policy(5000)
    assert.equal(p.ping(1), false) // the first ping never strikes
    for (let strike = 1; strike <= 2; strike++) {
      advance(100)
      assert.equal(p.ping(1), false)
    }
    advance(100)
    assert.equal(p.ping(1), true)
  })

  it('lets pings at the minimum interval through forever', () => {
    const { p, advance } = policy(5000)
    for (let i = 0; i < 100; i++) {
      assert.equal(p.ping(1), false)
      advance(5000)
    }
  })

  it('measures a ping without open streams against two hours', () => {
    const { p, advance } = policy(5000)
    p.ping(0)
    for (let i = 0; i < 2; i++) {
      advance(PING_WITHOUT_STREAMS_MS - 1)
      assert.equal(p.ping(0), false)
    }
    advance(PING_WITHOUT_STREAMS_MS - 1)
    assert.equal(p.ping(0), true)
    const { p: q, advance: later } = policy(5000)
    for (let i = 0; i < 10; i++) {
      assert.equal(q.ping(0), false)
      later(PING_WITHOUT_STREAMS_MS)
    }
  })

  it('clears the strikes on the first ping after the server sent headers or data', () => {
    const { p, advance } = policy(5000)
    p.ping(1)
    advance(1)
    p.ping(1)
    advance(1)
    p.ping(1) // two strikes
    p.sent()
    advance(1)
    assert.equal(p.ping(1), false) // cleared, not checked
    advance(1)
    assert.equal(p.ping(1), false) // strike 1
    advance(1)
    assert.equal(p.ping(1), false) // strike 2
    advance(1)
    assert.equal(p.ping(1), true)
  })
})
