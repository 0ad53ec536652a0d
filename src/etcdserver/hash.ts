// Mirrors etcd mvcc/kvstore.go Hash and HashByRev, and mvcc/backend/backend.go Hash: CRC-32C (Castagnoli)
// over stored bytes. The revision log is stored byte for byte as etcd stores it (17-byte revision keys,
// encoded mvccpb.KeyValue values), so HashKV of the same history equals real etcd's.
import type { Backend, BackendSnapshot } from '../backend/backend.js'
import { BUCKETS, META, type Bucket } from '../backend/schema.js'
import { bytesToRev } from '../mvcc/revision.js'
import { revKey } from '../mvcc/key-index.js'
import { CompactedError, FutureRevError } from '../mvcc/errors.js'
import { isCheckpointKey } from '../mvcc/index-checkpoint.js'
import { equalBytes } from '../pkg/bytes.js'

/** The reflected Castagnoli polynomial (Go's crc32.Castagnoli). */
const CASTAGNOLI = 0x82f63b78

/** Slicing-by-8 tables: TABLES[t * 256 + b] is the CRC of byte b followed by t zero bytes. */
const TABLES = ((): Uint32Array => {
  const t = new Uint32Array(8 * 256)
  for (let i = 0; i < 256; i++) {
    let c = i
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ CASTAGNOLI : c >>> 1
    t[i] = c >>> 0
  }
  for (let i = 0; i < 256; i++) {
    for (let s = 1; s < 8; s++) {
      const prev = t[(s - 1) * 256 + i] as number
      t[s * 256 + i] = ((prev >>> 8) ^ (t[prev & 0xff] as number)) >>> 0
    }
  }
  return t
})()

/** An incremental CRC-32C, as Go's crc32.New(crc32.MakeTable(crc32.Castagnoli)). */
export class Crc32c {
  private crc = 0xffffffff

  update(b: Uint8Array): this {
    const t = TABLES
    let c = this.crc
    let i = 0
    const n = b.length
    for (; n - i >= 8; i += 8) {
      c ^= (b[i] as number) | ((b[i + 1] as number) << 8) | ((b[i + 2] as number) << 16) | ((b[i + 3] as number) << 24)
      c =
        (t[1792 + (c & 0xff)] as number) ^
        (t[1536 + ((c >>> 8) & 0xff)] as number) ^
        (t[1280 + ((c >>> 16) & 0xff)] as number) ^
        (t[1024 + (c >>> 24)] as number) ^
        (t[768 + (b[i + 4] as number)] as number) ^
        (t[512 + (b[i + 5] as number)] as number) ^
        (t[256 + (b[i + 6] as number)] as number) ^
        (t[b[i + 7] as number] as number)
    }
    for (; i < n; i++) c = (t[(c ^ (b[i] as number)) & 0xff] as number) ^ (c >>> 8)
    this.crc = c >>> 0
    return this
  }

  /** The CRC of everything written so far, as an unsigned 32-bit number. */
  digest(): number {
    return (this.crc ^ 0xffffffff) >>> 0
  }
}

/** What HashByRev needs from the MVCC store. */
export interface HashSource {
  /** Newest revision (etcd's currentRev). */
  rev(): number
  /** Compacted revision, -1 before any compaction. */
  compactRev(): number
  /** Resolves once every revision up to `rev` is durable (so a backend snapshot holds it). */
  sync(rev: number): Promise<void>
  /** Revisions compaction at `rev` would keep, as `main_sub` strings (etcd's treeIndex.Keep). */
  keep(rev: number): Set<string>
}

export interface HashKVResult {
  readonly hash: number
  /** The store's current revision when the hash was taken (etcd puts it in the header). */
  readonly revision: number
  readonly compactRevision: number
}

const KEY_BUCKET_NAME = Buffer.from('key')

/**
 * etcd's HashByRev: CRC-32C over "key", then every revision-log key and value with revision <= `rev`,
 * leaving out revisions at or below the compacted revision that compaction at `rev` would remove (unless
 * nothing would be kept). `rev` 0 means the current revision; `rev` <= the compacted revision throws
 * CompactedError, `rev` > the current revision FutureRevError; a negative `rev` hashes no revision, as in
 * etcd. The answer does not depend on how far a physical compaction has got, and survives restarts.
 */
export async function hashByRev(store: HashSource, backend: Backend, rev: number): Promise<HashKVResult> {
  const current = store.rev()
  check(store, rev, current)
  // Everything up to `current` must be in the backend snapshot taken below.
  await store.sync(current)
  // A compaction may have been scheduled meanwhile: check again, then take the index's view and the
  // backend snapshot in the same tick.
  check(store, rev, current)
  const compactRev = store.compactRev()
  const upTo = rev === 0 ? current : rev
  const keep = store.keep(upTo)
  const snap = backend.snapshot()
  try {
    const h = new Crc32c().update(KEY_BUCKET_NAME)
    // Revision keys sort by revision: the first one past `upTo` ends the walk.
    walk: for await (const chunk of snap.entries('key')) {
      for (const { key, value } of chunk) {
        const r = bytesToRev(key)
        if (r.main > upTo) break walk
        if (r.main <= compactRev && keep.size > 0 && !keep.has(revKey(r))) continue
        h.update(key).update(value)
      }
    }
    return { hash: h.digest(), revision: current, compactRevision: compactRev }
  } finally {
    await snap.close()
  }
}

function check(store: HashSource, rev: number, current: number): void {
  if (rev > 0 && rev <= store.compactRev()) throw new CompactedError()
  if (rev > 0 && rev > current) throw new FutureRevError()
}

/**
 * Keys no user controls and that change without a user's request, left out of the whole-backend hash as
 * etcd leaves out consistent_index: the raft term, bumped on every start, the index checkpoint, which
 * the store rewrites in the background and at close (a cache of the log), and the count of applied entries
 * that took no revision (etcd's consistent_index moves with them: a v2 write changes no v3 hash).
 */
function hashIgnores(bucket: Bucket, key: Uint8Array): boolean {
  return bucket === 'meta' && (equalBytes(key, META.term) || equalBytes(key, META.extraIndex) || isCheckpointKey(key))
}

/**
 * etcd's backend Hash: CRC-32C over every bucket in name order (the bucket's name, then each key and
 * value), from one consistent snapshot of what is committed. Stable across restarts: the raft term, which
 * every start bumps, is left out.
 */
export async function hashBackend(backend: Backend): Promise<number> {
  await backend.commit()
  const snap: BackendSnapshot = backend.snapshot()
  try {
    const h = new Crc32c()
    for (const bucket of [...BUCKETS].sort()) {
      h.update(Buffer.from(bucket))
      for await (const chunk of snap.entries(bucket)) {
        for (const { key, value } of chunk) {
          if (hashIgnores(bucket, key)) continue
          h.update(key).update(value)
        }
      }
    }
    return h.digest()
  } finally {
    await snap.close()
  }
}
