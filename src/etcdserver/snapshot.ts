// Snapshot: a consistent copy of the whole backend as one byte stream (etcd's Maintenance.Snapshot and
// etcdctl snapshot save), and restoring a backend from such a file.
//
// The stream is what etcd streams: a bbolt database file laid out as etcd's backend (snapshot-bolt.ts has
// the buckets), followed by the 32-byte SHA-256 of the file. So `etcdctl snapshot status` reads it, and
// `etcdctl snapshot restore` makes a data dir a real etcd serves. The file is produced page by page, never
// whole in memory and never on disk: a dry run over one backend snapshot finds the page layout (the meta
// pages at the front name the root page and the page count), then a second run over the same snapshot
// writes the pages, 32 KiB at a time.
//
// Restoring reads etcd's bbolt snapshots (from etcdlite or from a real etcd) and the snapshot files
// earlier etcdlite versions wrote (snapshot-legacy.ts), told apart by their magic.
import { createHash } from 'node:crypto'
import { open, readdir, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises'
import type { Backend } from '../backend/backend.js'
import { DbReader } from '../pkg/bbolt/db-reader.js'
import { DbWriter } from '../pkg/bbolt/db-writer.js'
import { MAGIC as BOLT_MAGIC } from '../pkg/bbolt/meta.js'
import { BoltError, DEFAULT_PAGE_SIZE, PAGE_HEADER_SIZE } from '../pkg/bbolt/page.js'
import { isEmptyBackend, readEtcdBuckets, writeEtcdBuckets, type RestoreResult, type SnapshotMember } from './snapshot-bolt.js'
import { SnapshotError } from './snapshot-error.js'
import { LEGACY_MAGIC, readLegacySnapshot } from './snapshot-legacy.js'
import type { ResponseHeader } from './types/header.js'
import type { SnapshotChunk } from './types/maintenance.js'

export { SnapshotError } from './snapshot-error.js'
export type { RestoreResult, SnapshotMember } from './snapshot-bolt.js'

/** Bytes per streamed chunk (etcd's snapshotSendBufferSize). */
export const SNAPSHOT_CHUNK_BYTES = 32 * 1024
/** etcdctl's hasChecksum: a file with a SHA-256 trailer is 512*n + 32 bytes long. */
export const SNAPSHOT_ALIGN = 512
const SHA256_LEN = 32

/**
 * Stream a snapshot of what is committed now (commit first, as etcd's backend Snapshot does): chunks of
 * {@link SNAPSHOT_CHUNK_BYTES} counting down the bytes that remain, then one chunk holding the SHA-256 of
 * all before it. The first chunk carries `header`. An aborted `signal` ends the stream with its reason.
 */
export async function* snapshotStream(
  backend: Backend,
  header: ResponseHeader,
  member: SnapshotMember,
  signal?: AbortSignal,
): AsyncGenerator<SnapshotChunk> {
  await backend.commit()
  signal?.throwIfAborted()
  const snap = backend.snapshot()
  try {
    const dry = new DbWriter(DEFAULT_PAGE_SIZE)
    let entries = 0
    for await (const n of writeEtcdBuckets(snap, dry, member, signal)) entries += n
    const layout = dry.finish()
    const total = DbWriter.fileSize(DEFAULT_PAGE_SIZE, layout)

    const sha = createHash('sha256')
    let pages: Buffer[] = []
    let pageBytes = 0
    let sent = 0
    let first = true
    const chunk = (blob: Buffer): SnapshotChunk => {
      sha.update(blob)
      sent += blob.length
      const out: SnapshotChunk = first ? { header, remainingBytes: total - sent, blob } : { remainingBytes: total - sent, blob }
      first = false
      return out
    }
    /** Cut what was written into full chunks (and, at the end, the rest). */
    function* drain(all: boolean): Generator<SnapshotChunk> {
      if (pageBytes < SNAPSHOT_CHUNK_BYTES && !(all && pageBytes > 0)) return
      let buf = Buffer.concat(pages, pageBytes)
      pages = []
      pageBytes = 0
      while (buf.length >= SNAPSHOT_CHUNK_BYTES || (all && buf.length > 0)) {
        const n = Math.min(buf.length, SNAPSHOT_CHUNK_BYTES)
        yield chunk(buf.subarray(0, n))
        buf = buf.subarray(n)
      }
      if (buf.length > 0) {
        pages.push(buf)
        pageBytes = buf.length
      }
    }
    const w = new DbWriter(DEFAULT_PAGE_SIZE, (b) => {
      pages.push(b)
      pageBytes += b.length
    }, layout)
    for await (const n of writeEtcdBuckets(snap, w, member, signal)) {
      entries -= n
      yield* drain(false)
    }
    w.finish()
    yield* drain(true)
    if (entries !== 0) throw new SnapshotError('snapshot: the two passes over one backend snapshot read different entries')
    if (sent !== total) throw new SnapshotError(`snapshot: sent ${sent} bytes, announced ${total}`)
    yield { remainingBytes: 0, blob: sha.digest() }
  } catch (err) {
    // Aborting (the server closing) also closes the database under the reads: report why, not how.
    signal?.throwIfAborted()
    if (err instanceof BoltError) throw new SnapshotError(`snapshot: ${err.message}`)
    throw err
  } finally {
    await snap.close()
  }
}

/**
 * Load a snapshot file into an empty backend: etcd's bbolt snapshot (`etcdctl snapshot save` against etcd
 * or etcdlite, or Etcd.snapshot()), or a snapshot of an earlier etcdlite version. A file ending in a
 * SHA-256 trailer (512*n + 32 bytes) is checked against it before anything is written; a bbolt file
 * without one (a copy of a data dir's member/snap/db) is read as it is. The restored server starts as a
 * new one-member cluster, as after etcd's `snapshot restore`: data, revisions, compaction state, leases,
 * auth and alarms come back.
 */
export async function restoreSnapshot(file: string, backend: Backend): Promise<RestoreResult> {
  const { size } = await stat(file)
  const fh = await open(file, 'r')
  try {
    const head = Buffer.alloc(Math.max(LEGACY_MAGIC.length, PAGE_HEADER_SIZE + 4))
    const { bytesRead } = await fh.read(head, 0, head.length, 0)
    const legacy = bytesRead >= LEGACY_MAGIC.length && head.subarray(0, LEGACY_MAGIC.length).equals(LEGACY_MAGIC)
    const bolt = bytesRead >= PAGE_HEADER_SIZE + 4 && head.readUInt32LE(PAGE_HEADER_SIZE) === BOLT_MAGIC
    if (!legacy && !bolt) throw new SnapshotError(`snapshot: ${file} is not a snapshot (neither a bbolt database nor an etcdlite snapshot)`)
    const trailer = size % SNAPSHOT_ALIGN === SHA256_LEN && size > SHA256_LEN
    if (legacy && !trailer) throw new SnapshotError(`snapshot: ${file} is truncated (size ${size} is not 512*n + 32)`)
    if (bolt && !trailer && size % SNAPSHOT_ALIGN !== 0) throw new SnapshotError(`snapshot: ${file} is truncated (size ${size})`)
    const body = trailer ? size - SHA256_LEN : size
    if (trailer) await checkSha(fh, body, file)
    if (!(await isEmptyBackend(backend))) throw new SnapshotError('snapshot: the target database is not empty; restore into a new data dir')
    if (legacy) return await readLegacySnapshot(fh, body, backend)
    return await readEtcdBuckets(await DbReader.open(fh, body), backend)
  } catch (err) {
    if (err instanceof BoltError) throw new SnapshotError(`snapshot: ${file}: ${err.message}`)
    throw err
  } finally {
    await fh.close()
  }
}

async function checkSha(fh: FileHandle, body: number, file: string): Promise<void> {
  const h = createHash('sha256')
  const buf = Buffer.alloc(1024 * 1024)
  for (let off = 0; off < body; ) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, body - off), off)
    if (bytesRead === 0) throw new SnapshotError(`snapshot: ${file} ended early`)
    h.update(buf.subarray(0, bytesRead))
    off += bytesRead
  }
  const want = Buffer.alloc(SHA256_LEN)
  await fh.read(want, 0, SHA256_LEN, body)
  if (!h.digest().equals(want)) throw new SnapshotError(`snapshot: ${file} is damaged (its SHA-256 does not match)`)
}

/**
 * Restore a snapshot into a new data directory: the data is loaded into `${dataDir}.restoring`, then
 * renamed into place, so a failed or interrupted restore never leaves a half-filled data dir. `dataDir`
 * must not exist or be empty. `openBackend` opens a backend over a directory (the caller's database kind).
 */
export async function restoreSnapshotToDir(
  file: string,
  dataDir: string,
  openBackend: (dir: string) => Promise<Backend>,
): Promise<RestoreResult> {
  let existing: string[] | undefined
  try {
    existing = await readdir(dataDir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  if (existing !== undefined && existing.length > 0) {
    throw new SnapshotError(`snapshot: data dir ${dataDir} already exists and is not empty; restore into a new data dir`)
  }
  const tmp = `${dataDir}.restoring`
  await rm(tmp, { recursive: true, force: true })
  try {
    const backend = await openBackend(tmp)
    let result: RestoreResult
    try {
      result = await restoreSnapshot(file, backend)
    } finally {
      await backend.close()
    }
    if (existing !== undefined) await rmdir(dataDir)
    await rename(tmp, dataDir)
    return result
  } catch (err) {
    await rm(tmp, { recursive: true, force: true })
    throw err
  }
}
