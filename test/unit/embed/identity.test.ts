// Response-header identity: member and cluster IDs are fixed for a data dir, and each start is one more
// raft term (a fresh etcd answers raft_term 2, and 3 after a restart: checked against etcd 3.4.23).
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { openEtcd } from '../../../src/embed/etcd.js'
import { tempDir } from '../../helpers/tmp.js'

it('keeps member and cluster IDs across restarts and counts one raft term per start', async () => {
  const dir = await tempDir()
  try {
    const dataDir = join(dir.path, 'data')
    const first = await openEtcd({ dataDir })
    const h1 = (await first.put({ key: Buffer.from('k'), value: Buffer.from('v') })).header
    await first.close()
    const second = await openEtcd({ dataDir })
    const h2 = (await second.range({ key: Buffer.from('k') })).header
    await second.close()
    assert.equal(h1.raftTerm, 2)
    assert.equal(h2.raftTerm, 3)
    assert.equal(h2.memberId, h1.memberId)
    assert.equal(h2.clusterId, h1.clusterId)
    assert.notEqual(h1.memberId, 0n)
    assert.equal(h2.revision, 2)
    const other = await openEtcd({ memory: true })
    assert.notEqual((await other.range({ key: Buffer.from('k') })).header.memberId, h1.memberId, 'another store, another member')
    await other.close()
  } finally {
    await dir.remove()
  }
})
