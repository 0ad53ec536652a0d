// Rebuilding the key index on open (etcd's kvstore.go restore): a pass over the revision log, from its start
// or from past an index checkpoint's revision.
import type { Backend } from '../backend/backend.js'
import type { LeaseItems } from '../lease/lessor.js'
import { latin1ToBytes } from '../pkg/bytes.js'
import { invariant } from '../pkg/verify.js'
import { RevisionNotFoundError } from './errors.js'
import type { LoadedCheckpoint } from './index-checkpoint.js'
import { decodeIndexFields } from '../wire/keyvalue.js'
import { KeyIndex } from './key-index.js'
import { bytesToRev, isRevKey, isTombstone, revToBytes, type Revision } from './revision.js'
import type { TreeIndex } from './tree-index.js'

/**
 * Rebuild the key index by reading the log (etcd's restore): every revision, or with `from` (a
 * checkpoint) those past its revision on top of its entries, skipping what an entry already holds.
 * Returns the newest revision main in the log (1 for an empty log) and the entries read.
 */
export async function restoreIndex(
  backend: Backend,
  index: TreeIndex,
  leases: LeaseItems | undefined,
  chunk: number,
  from: LoadedCheckpoint | undefined,
): Promise<{ last: number; entries: number }> {
  const max = new Uint8Array(18).fill(0xff)
  let min = revToBytes({ main: (from?.rev ?? 0) + 1, sub: 0 })
  let last = Math.max(from?.rev ?? 1, 1)
  let read = 0
  // Built as a plain map and handed to the index at the end: one sort instead of an ordered insert per key.
  const byKey = from?.byKey ?? new Map<string, KeyIndex>()
  // Each live key's lease, from its newest revision (etcd's restore keyToLease); keys without one are absent.
  const keyToLease = from?.leases ?? new Map<string, bigint>()
  let created: Revision = { main: 0, sub: 0 }
  for (;;) {
    const entries = await backend.scan('key', min, max, chunk)
    read += entries.length
    for (const { key, value } of entries) {
      invariant(isRevKey(key), 'restore: malformed revision key')
      const rev = bytesToRev(key)
      const tomb = isTombstone(key)
      const kv = decodeIndexFields(value)
      last = rev.main
      const ki = byKey.get(kv.key)
      // A checkpoint entry may already hold revisions past the checkpoint's own (index-checkpoint.ts).
      if (ki !== undefined && (rev.main < ki.modified.main || (rev.main === ki.modified.main && rev.sub <= ki.modified.sub))) continue
      if (tomb || kv.lease === 0n) {
        if (keyToLease.size !== 0) keyToLease.delete(kv.key)
      } else keyToLease.set(kv.key, kv.lease)
      if (ki !== undefined) {
        if (tomb) {
          try {
            ki.tombstone(rev.main, rev.sub)
          } catch (e) {
            if (!(e instanceof RevisionNotFoundError)) throw e
          }
        } else ki.put(rev.main, rev.sub)
      } else {
        const nki = new KeyIndex(kv.key)
        // A lone tombstone: compaction at its revision kept it, as etcd keeps it, so a watch from there sees the delete.
        if (tomb) nki.restoreTombstone(rev)
        else {
          // Keys created by the same txn share one creating-revision object (revisions are immutable).
          if (created.main !== kv.createRevision) created = kv.createRevision === rev.main && rev.sub === 0 ? rev : { main: kv.createRevision, sub: 0 }
          nki.restore(created, rev, kv.version)
        }
        byKey.set(kv.key, nki)
      }
    }
    if (entries.length < chunk) break
    const lastRev = bytesToRev((entries[entries.length - 1] as { key: Uint8Array }).key)
    min = revToBytes({ main: lastRev.main, sub: lastRev.sub + 1 })
  }
  index.load(byKey)
  if (leases !== undefined) for (const [key, lease] of keyToLease) leases.attach(lease, latin1ToBytes(key))
  return { last, entries: read }
}
