// etcdlite's backend as etcd 3.4/3.5 lays out its bbolt backend, and back: what a snapshot file holds.
//
// The buckets `key`, `lease`, `auth`, `authUsers`, `authRoles` and `alarm` already hold etcd's keys and
// values (see backend/schema.ts) and are copied as they are. The rest differs:
// - `meta`: etcd's consistent_index (the raft index applied; etcdlite's is the revision plus the count of
//   applied requests that took none), finishedCompactRev and scheduledCompactRev (17-byte revisions) and
//   term (etcd 3.5) are written. etcdlite's member and cluster IDs and its index checkpoint stay out: a
//   restored member gets new IDs, and the checkpoint is a cache of the `key` bucket.
// - `members`: this member as etcd's membership store writes it (key: the member ID in hex; value: the
//   member as JSON), `members_removed` empty, `cluster`: clusterVersion (the major.minor.0 of the version
//   this server reports) and, once a downgrade was enabled, `downgrade` (etcd's JSON of it).
// Restoring reads the same buckets back; membership buckets are skipped (etcd's `snapshot restore` makes a
// new cluster too) but the downgrade info is kept (etcd's restore keeps its cluster bucket), and
// consistent_index becomes the count of requests that took no revision.
import { BUCKETS, META, type Bucket } from '../backend/schema.js'
import type { Backend, BackendSnapshot } from '../backend/backend.js'
import { readU64, u64 } from '../backend/meta-u64.js'
import { decodeLease } from '../wire/leasepb.js'
import { decodeKeyValue } from '../wire/keyvalue.js'
import { bytesToRev, isRevKey } from '../mvcc/revision.js'
import { goJsonMarshal } from '../pkg/go-json.js'
import type { DbWriter } from '../pkg/bbolt/db-writer.js'
import type { BucketRef, DbReader } from '../pkg/bbolt/db-reader.js'
import { BUCKET_LEAF_FLAG } from '../pkg/bbolt/page.js'
import { SnapshotError } from './snapshot-error.js'
import { decodeDowngradeInfo } from './downgrade.js'

/** The member a snapshot names (etcd's membership.Member as its store writes it). */
export interface SnapshotMember {
  readonly id: bigint
  readonly name: string
  readonly peerUrls: readonly string[]
  readonly clientUrls: readonly string[]
  /** The cluster version to record, e.g. "3.5.0". */
  readonly clusterVersion: string
}

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1')
const CONSISTENT_INDEX = latin1('consistent_index')
const ETCD_TERM = latin1('term')
const CLUSTER_VERSION = latin1('clusterVersion')
const DOWNGRADE = latin1('downgrade')

/** etcdlite buckets copied into the bbolt file as they are, under the same names. */
const COPIED: readonly Bucket[] = ['key', 'lease', 'auth', 'authUsers', 'authRoles', 'alarm']
/** etcdlite meta keys carried into etcd's meta bucket (besides consistent_index, written from the counters). */
const META_CARRIED: readonly Uint8Array[] = [META.finishedCompactRev, META.scheduledCompactRev]

/** Go's json.Marshal of a membership.Member: id, peerURLs, then name and clientURLs when not empty. */
export function memberJson(m: SnapshotMember): Uint8Array {
  const bytes = (s: string): string => Buffer.from(s, 'utf8').toString('latin1')
  let out = `{"id":${BigInt.asUintN(64, m.id).toString()},"peerURLs":${goJsonMarshal(m.peerUrls.map(bytes))}`
  if (m.name !== '') out += `,"name":${goJsonMarshal(bytes(m.name))}`
  if (m.clientUrls.length > 0) out += `,"clientURLs":${goJsonMarshal(m.clientUrls.map(bytes))}`
  return latin1(`${out}}`)
}

/** The newest revision in a snapshot: the last revision key, or the compaction revision if that is newer. */
function newestRev(lastKey: Uint8Array | undefined, meta: ReadonlyMap<string, Uint8Array>): number {
  let rev = lastKey === undefined ? 0 : bytesToRev(lastKey).main
  for (const k of META_CARRIED) {
    const v = meta.get(latin1Key(k))
    if (v !== undefined && isRevKey(v)) rev = Math.max(rev, bytesToRev(v).main)
  }
  return rev
}

const latin1Key = (k: Uint8Array): string => Buffer.from(k).toString('latin1')

/**
 * Write a backend snapshot into `w` as etcd's buckets, yielding the number of entries written after each
 * chunk read from the backend, so the caller can pass on the pages written so far. `signal` aborts between
 * chunks.
 */
export async function* writeEtcdBuckets(snap: BackendSnapshot, w: DbWriter, member: SnapshotMember, signal?: AbortSignal): AsyncGenerator<number> {
  let lastKey: Uint8Array | undefined
  for (const bucket of COPIED) {
    const b = w.bucket(bucket)
    for await (const chunk of snap.entries(bucket)) {
      signal?.throwIfAborted()
      for (const { key, value } of chunk) b.put(key, value)
      if (bucket === 'key' && chunk.length > 0) lastKey = chunk[chunk.length - 1]?.key
      yield chunk.length
    }
  }
  const meta = new Map<string, Uint8Array>()
  for await (const chunk of snap.entries('meta')) for (const { key, value } of chunk) meta.set(latin1Key(key), value)
  const extra = readU64(meta.get(latin1Key(META.extraIndex))) ?? 0n
  const out: [Uint8Array, Uint8Array][] = [[CONSISTENT_INDEX, u64(BigInt(newestRev(lastKey, meta)) + extra)]]
  for (const k of META_CARRIED) {
    const v = meta.get(latin1Key(k))
    if (v !== undefined) out.push([k, v])
  }
  const term = meta.get(latin1Key(META.term))
  if (term !== undefined) out.push([ETCD_TERM, term])
  const mb = w.bucket('meta')
  for (const [k, v] of out.sort((a, b) => Buffer.compare(a[0], b[0]))) mb.put(k, v)
  w.bucket('members').put(latin1(BigInt.asUintN(64, member.id).toString(16)), memberJson(member))
  w.bucket('members_removed')
  const cluster = w.bucket('cluster')
  cluster.put(CLUSTER_VERSION, latin1(member.clusterVersion))
  // Once a downgrade was enabled, etcd's cluster bucket keeps its info (sorted after clusterVersion).
  const downgrade = meta.get(latin1Key(META.downgrade))
  if (downgrade !== undefined) cluster.put(DOWNGRADE, downgrade)
  yield out.length + 2
}

/** What a restore loaded. */
export interface RestoreResult {
  /** Entries written (identity keys left out). */
  readonly entries: number
}

/** Bytes written into the backend between commits while restoring. */
export const RESTORE_COMMIT_BYTES = 4 * 1024 * 1024

/**
 * Load etcd's buckets from a bbolt database into an empty backend: the copied buckets as they are (revision
 * keys checked), compaction state from `meta`, and consistent_index as the count of applied requests that
 * took no revision, and the downgrade info from `cluster` (checked as etcd checks it when it recovers).
 * Other buckets (membership, cluster version) are left out.
 */
export async function readEtcdBuckets(r: DbReader, backend: Backend): Promise<RestoreResult> {
  const buckets = await r.buckets()
  const need = (name: string): BucketRef => {
    const ref = buckets.get(name)
    if (ref === undefined) throw new SnapshotError(`snapshot: a bbolt file without etcd's "${name}" bucket is not an etcd backend`)
    return ref
  }
  const keyRef = need('key')
  const metaRef = need('meta')
  let entries = 0
  let pending = 0
  let lastKey: Uint8Array | undefined
  const copy = async (bucket: Bucket, ref: BucketRef): Promise<void> => {
    for await (const leaf of r.walk(ref)) {
      for (const e of leaf) {
        if ((e.flags & BUCKET_LEAF_FLAG) !== 0) throw new SnapshotError(`snapshot: etcd's "${bucket}" bucket holds a nested bucket`)
        checkEntry(bucket, e.key, e.value)
        if (bucket === 'key') lastKey = e.key
        backend.put(bucket, e.key, e.value)
        entries++
        pending += e.key.length + e.value.length
      }
      if (pending >= RESTORE_COMMIT_BYTES) {
        await backend.commit()
        pending = 0
      }
    }
  }
  for (const bucket of COPIED) {
    const ref = bucket === 'key' ? keyRef : buckets.get(bucket)
    if (ref !== undefined) await copy(bucket, ref)
  }
  const meta = new Map<string, Uint8Array>()
  for await (const leaf of r.walk(metaRef)) for (const e of leaf) meta.set(latin1Key(e.key), e.value)
  for (const k of META_CARRIED) {
    const v = meta.get(latin1Key(k))
    if (v === undefined) continue
    if (!isRevKey(v)) throw new SnapshotError(`snapshot: etcd's meta ${latin1Key(k)} is not a revision`)
    backend.put('meta', k, v)
    entries++
  }
  const clusterRef = buckets.get('cluster')
  if (clusterRef !== undefined) {
    for await (const leaf of r.walk(clusterRef)) {
      for (const e of leaf) {
        if (Buffer.compare(e.key, DOWNGRADE) !== 0) continue
        try {
          decodeDowngradeInfo(e.value)
        } catch (err) {
          throw new SnapshotError("snapshot: etcd's cluster downgrade info does not decode", { cause: err })
        }
        backend.put('meta', META.downgrade, e.value)
        entries++
      }
    }
  }
  const ci = readU64(meta.get(latin1Key(CONSISTENT_INDEX)))
  const rev = BigInt(newestRev(lastKey, meta))
  if (ci !== undefined && ci > rev) {
    backend.put('meta', META.extraIndex, u64(ci - rev))
    entries++
  }
  await backend.commit()
  return { entries }
}

/**
 * Refuse what etcdlite could not serve: revision keys and leases it cannot decode end the restore with a
 * clear error here rather than at the server's start.
 */
function checkEntry(bucket: Bucket, key: Uint8Array, value: Uint8Array): void {
  const hexKey = (): string => Buffer.from(key).toString('hex')
  try {
    if (bucket === 'key') {
      if (!isRevKey(key)) throw new SnapshotError(`snapshot: a key in etcd's "key" bucket is not a revision (${hexKey()})`)
      if (decodeKeyValue(value).key.length === 0) throw new SnapshotError(`snapshot: revision ${hexKey()} has no key`)
    } else if (bucket === 'lease') {
      if (key.length !== 8) throw new SnapshotError(`snapshot: a key in etcd's "lease" bucket is not a lease ID (${hexKey()})`)
      decodeLease(value)
    }
  } catch (err) {
    if (err instanceof SnapshotError) throw err
    throw new SnapshotError(`snapshot: etcd's "${bucket}" bucket holds a value that does not decode at ${hexKey()}`, { cause: err })
  }
}

/** True when the backend holds nothing in any of etcd's buckets. */
export async function isEmptyBackend(backend: Backend): Promise<boolean> {
  for (const bucket of BUCKETS) {
    if ((await backend.scan(bucket, new Uint8Array(0), new Uint8Array([0xff]), 1)).length > 0) return false
  }
  return true
}
