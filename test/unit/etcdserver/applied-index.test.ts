// AppliedIndex (src/etcdserver/applied-index.ts) over a map-backed backend: the raft index is the store's
// revision plus the requests that made none; which writes count (one that changed nothing, a request whose
// revision did not move), the count surviving a reopen, and nothing counted while the backend refuses writes.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Bucket } from '../../../src/backend/schema.js'
import { AppliedIndex, type AppliedIndexBackend } from '../../../src/etcdserver/applied-index.js'
import type { Change } from '../../../src/mvcc/kv.js'

/** A backend that keeps puts in a map, counts commits, and refuses writes once `failure` is set. */
class MapBackend implements AppliedIndexBackend {
  readonly data = new Map<string, Uint8Array>()
  commits = 0
  failure: Error | undefined = undefined

  get(bucket: Bucket, key: Uint8Array): Uint8Array | undefined {
    return this.data.get(`${bucket}/${Buffer.from(key).toString('latin1')}`)
  }

  put(bucket: Bucket, key: Uint8Array, value: Uint8Array): void {
    this.data.set(`${bucket}/${Buffer.from(key).toString('latin1')}`, value)
  }

  commit(): Promise<void> {
    this.commits++
    return Promise.resolve()
  }
}

const ONE_CHANGE: readonly Change[] = [{ type: 'put', kv: { key: new Uint8Array([1]), value: new Uint8Array(0), createRevision: 1, modRevision: 1, version: 1, lease: 0n } }]

function setup(rev = 10): { backend: MapBackend; store: { rev: number }; index: AppliedIndex } {
  const backend = new MapBackend()
  const store = { rev }
  return { backend, store, index: new AppliedIndex({ rev: () => store.rev }, backend) }
}

describe('AppliedIndex', () => {
  it('starts at the revision, and each applied request without a revision adds one', () => {
    const { index, store } = setup()
    assert.equal(index.raftIndex(), 10)
    index.noteApplied()
    index.noteApplied()
    assert.equal(index.raftIndex(), 12)
    store.rev = 15
    assert.equal(index.raftIndex(), 17)
  })

  it('the count is in the backend: a new index over it goes on from there', () => {
    const { backend, index, store } = setup()
    index.noteApplied()
    const reopened = new AppliedIndex({ rev: () => store.rev }, backend)
    assert.equal(reopened.raftIndex(), 11)
  })

  const cases: Array<{ name: string; note: (i: AppliedIndex, store: { rev: number }) => void; counted: boolean }> = [
    { name: 'a write txn that changed nothing counts', note: (i) => i.noteUnchanged({ changes: () => [] }), counted: true },
    { name: 'a write txn that changed a key does not (its revision counts it)', note: (i) => i.noteUnchanged({ changes: () => ONE_CHANGE }), counted: false },
    { name: 'a request that left the revision where it was counts', note: (i, s) => i.noteEntry(s.rev), counted: true },
    {
      name: 'a request that moved the revision does not',
      note: (i, s) => {
        const before = s.rev
        s.rev++
        i.noteEntry(before)
      },
      counted: false,
    },
  ]
  for (const c of cases) {
    it(`${c.name}, and is committed in the background`, () => {
      const { backend, index, store } = setup()
      c.note(index, store)
      assert.equal(index.raftIndex() - store.rev, c.counted ? 1 : 0)
      assert.equal(backend.commits, c.counted ? 1 : 0)
    })
  }

  it('nothing is counted in the background while the backend refuses writes', () => {
    const { backend, index } = setup()
    backend.failure = new Error('no space')
    index.noteAppliedInBackground()
    index.noteUnchanged({ changes: () => [] })
    assert.equal(index.raftIndex(), 10)
    assert.equal(backend.commits, 0)
  })
})
