// Reading the revision log back as watch events: what a watcher that fell behind catches up from (etcd's
// syncWatchers reads the same key bucket with UnsafeRange and turns each entry into an mvccpb.Event).
import type { Backend } from '../backend/backend.js'
import type { Event, LogRead } from './kv.js'
import { decodeKeyValue } from '../wire/keyvalue.js'
import { bytesToRev, isTombstone, revToBytes } from './revision.js'

/** Scan the log's entries of revisions [from, to) (main revisions), at most `limit` of them. */
const scanMains = (backend: Backend, from: number, to: number, limit: number): Promise<Array<{ key: Uint8Array; value: Uint8Array }>> =>
  backend.scan('key', revToBytes({ main: from, sub: 0 }), revToBytes({ main: to, sub: 0 }), limit)

/** The contract of {@link WatchSource.readLog}, over the backend's key bucket. */
export async function readRevisionLog(backend: Backend, from: number, to: number, limit: number): Promise<LogRead> {
  // The iterator behind scan() reads one consistent snapshot, taken when it starts.
  let entries = await scanMains(backend, from, to + 1, limit)
  let upTo = to
  if (entries.length >= limit) {
    // Stop at the last complete revision; one revision larger than the limit is read whole.
    const lastMain = bytesToRev((entries[entries.length - 1] as { key: Uint8Array }).key).main
    if (lastMain > from) {
      upTo = lastMain - 1
      entries = entries.filter((e) => bytesToRev(e.key).main <= upTo)
    } else {
      upTo = from
      entries = await scanMains(backend, from, from + 1, Number.MAX_SAFE_INTEGER)
    }
  }
  const events: Event[] = []
  let bytes = 0
  for (const { key: revKey, value } of entries) {
    const kv = decodeKeyValue(value)
    bytes += value.length
    if (isTombstone(revKey)) events.push({ type: 'DELETE', kv: { ...kv, modRevision: bytesToRev(revKey).main } })
    else events.push({ type: 'PUT', kv })
  }
  return { upTo, events, bytes }
}
