// grpc-js's statuses for messages over the size limits, in grpc-go's words (which clients match on).
// The received case runs end to end in test/e2e/hostile-input.test.ts; a response over 2 GiB cannot.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { status } from '@grpc/grpc-js'
import { messageLimitStatus } from '../../../src/grpc/message-limit.js'

describe('message limit statuses', () => {
  it('a request over the receive limit', () => {
    const s = { code: status.RESOURCE_EXHAUSTED, details: 'Received message larger than max (3000000 vs 2097152)' }
    assert.deepEqual(messageLimitStatus(s, true), { code: status.RESOURCE_EXHAUSTED, details: 'grpc: received message larger than max (3000000 vs. 2097152)' })
  })

  it('a response over the send limit, counted without the frame header, prefixed on unary calls only', () => {
    const s = { code: status.RESOURCE_EXHAUSTED, details: 'Sent message larger than max (2147483653 vs. 2147483647)' }
    assert.equal(messageLimitStatus(s, true).details, 'grpc: trying to send message larger than max (2147483648 vs. 2147483647)')
    assert.equal(messageLimitStatus(s, false).details, 'trying to send message larger than max (2147483648 vs. 2147483647)')
  })

  it('leaves every other status alone', () => {
    for (const s of [
      { code: status.RESOURCE_EXHAUSTED, details: 'etcdserver: mvcc: database space exceeded' },
      { code: status.INTERNAL, details: 'Received message larger than max (3 vs 2)' },
      { code: status.OK, details: '' },
    ]) assert.deepEqual(messageLimitStatus(s, true), s)
  })
})
