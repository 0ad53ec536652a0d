// The resume point of a remote watcher, the client's backoff, and the status -> typed error mapping.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { status } from '@grpc/grpc-js'
import { Backoff } from '../../../src/client/backoff.js'
import { ResumableWatcher } from '../../../src/client/watch-resume.js'
import type { WatchResponse } from '../../../src/etcdserver/types/watch.js'
import { TO_GRPC } from '../../../src/grpc/status.js'
import { fromCancelReason, fromGrpcStatus } from '../../../src/client/typed-errors.js'
import { CompactedError } from '../../../src/mvcc/errors.js'
import { ERROR_MESSAGES, type ErrorCode } from '../../../src/pkg/errors.js'

const kv = (rev: number): WatchResponse['events'][number] =>
  ({ type: 'PUT', kv: { key: Buffer.from('k'), value: Buffer.from('v'), createRevision: rev, modRevision: rev, version: 1, lease: 0n } })
const resp = (headerRev: number, revs: number[], extra: Partial<WatchResponse> = {}): WatchResponse => ({
  header: { clusterId: 1n, memberId: 1n, revision: headerRev, raftTerm: 1 }, watchId: 0, created: false, canceled: false,
  compactRevision: 0, cancelReason: '', fragment: false, events: revs.map(kv), ...extra,
})

describe('ResumableWatcher', () => {
  it('a replay resumes after the last delivered event, never from a header revision', () => {
    const w = new ResumableWatcher({ key: Buffer.from('k'), startRevision: 5 })
    w.created(resp(100, [], { created: true }))
    assert.equal(w.resumeRevision, 5, 'the created header is the store revision, not the replay position')
    w.received(resp(100, [5, 6, 7]))
    assert.equal(w.resumeRevision, 8)
    w.received(resp(100, [], { watchId: -1 }))
    assert.equal(w.resumeRevision, 8, 'a progress request answer does not move it (etcd 3.4 answers during replay)')
    assert.deepEqual(w.resumeRequest(), { key: Buffer.from('k'), startRevision: 8, watchId: 0 })
  })

  it('"from now" starts after the created header; a progress notification moves it', () => {
    const w = new ResumableWatcher({ key: Buffer.from('k') })
    w.created(resp(40, [], { created: true, watchId: 3 }))
    assert.equal(w.resumeRevision, 41)
    w.received(resp(50, [], { watchId: 3 }))
    assert.equal(w.resumeRevision, 51)
    assert.equal(w.resumeRequest().watchId, 3)
  })

  it('fragments are held until the last one; a break drops them', () => {
    const w = new ResumableWatcher({ key: Buffer.from('k'), startRevision: 1 })
    w.created(resp(9, [], { created: true }))
    assert.deepEqual(w.received(resp(9, [1, 2], { fragment: true })), [])
    w.interrupted()
    assert.equal(w.resumeRevision, 1)
    assert.equal(w.received(resp(9, [1, 2], { fragment: true })).length, 0)
    assert.equal(w.received(resp(9, [2])).length, 2)
    assert.equal(w.resumeRevision, 3)
  })
})

describe('Backoff', () => {
  it('full jitter under a bound that doubles up to the cap', () => {
    const top = new Backoff({ baseMs: 10, capMs: 100 }, () => 0.999999)
    assert.deepEqual(Array.from({ length: 6 }, () => top.next()), [9, 19, 39, 79, 99, 99])
    top.reset()
    assert.equal(top.next(), 9)
    assert.equal(new Backoff({ baseMs: 10, capMs: 100 }, () => 0).next(), 0)
  })
})

describe('status mapping in reverse', () => {
  it('every code comes back from its own status and text', () => {
    for (const code of Object.keys(ERROR_MESSAGES) as ErrorCode[]) {
      const e = fromGrpcStatus(TO_GRPC[code], ERROR_MESSAGES[code])
      assert.equal(e?.code, code)
      assert.equal(e.message, ERROR_MESSAGES[code])
    }
    assert.ok(fromGrpcStatus(status.OUT_OF_RANGE, ERROR_MESSAGES.COMPACTED) instanceof CompactedError)
    assert.equal(fromGrpcStatus(status.UNAVAILABLE, 'No connection established'), undefined)
    assert.equal(fromGrpcStatus(status.UNKNOWN, ERROR_MESSAGES.COMPACTED), undefined)
    assert.equal(fromCancelReason('rpc error: code = Unauthenticated desc = etcdserver: invalid auth token')?.code, 'INVALID_AUTH_TOKEN')
    assert.equal(fromCancelReason('mvcc: watcher range is empty')?.code, 'WATCHER_RANGE_EMPTY')
  })
})
