// Snapshot: a consistent copy of the whole backend as one byte stream (etcd's Maintenance.Snapshot and
// etcdctl snapshot save), and restoring a backend from such a file.
//
// etcd streams its bbolt file; etcdlite streams its own format, laid out so that etcdctl's checks pass:
//
//   "etcdlite snapshot v1\n"                       magic (21 bytes)
//   { bucket:u8  keyLen:varint key  valueLen:varint value }*   every entry of every bucket, in key order
//   0x00                                           end of entries (no bucket code is 0)
//   0x00*                                          zero padding up to a multiple of 512 bytes
//   sha256                                         32 bytes: SHA-256 of everything above
//
// etcdctl 3.4 `snapshot save` accepts a stream only if its length is a multiple of 512 plus the 32-byte
// SHA-256 trailer (clientv3/snapshot hasChecksum), which etcd appends to every snapshot stream; hence the
// padding. `etcdctl snapshot status/restore` open the file as bbolt and cannot read it: etcdlite restores
// it itself (restoreSnapshot).
import { createHash } from 'node:crypto'
import { open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises'
import type { Backend } from '../backend/backend.js'
import { BUCKETS, BUCKET_PREFIX, META, type Bucket } from '../backend/schema.js'
import { equalBytes } from '../pkg/bytes.js'
import { varintSize, writeVarint } from '../pkg/proto-wire.js'
import type { ResponseHeader, SnapshotChunk } from './types.js'

export const SNAPSHOT_MAGIC = Buffer.from('etcdlite snapshot v1\n', 'latin1')
/** The snapshot body is padded to a multiple of this (etcdctl's hasChecksum: a disk sector). */
export const SNAPSHOT_ALIGN = 512
/** Bytes per streamed chunk (etcd's snapshotSendBufferSize). */
export const SNAPSHOT_CHUNK_BYTES = 32 * 1024
const SHA256_LEN = 32
const END_OF_ENTRIES = 0

const BUCKET_OF_CODE = new Map<number, Bucket>(BUCKETS.map((b) => [BUCKET_PREFIX[b], b]))

/** Meta keys a restored server must not inherit: it gets its own member and cluster IDs and raft term. */
const IDENTITY_KEYS: readonly Uint8Array[] = [META.memberId, META.clusterId, META.term]

/** Why a snapshot cannot be streamed or restored. */
export class SnapshotError extends Error {
  override name = 'SnapshotError'
}

const recordSize = (key: Uint8Array, value: Uint8Array): number =>
  1 + varintSize(key.length) + key.length + varintSize(value.length) + value.length

const padded = (n: number): number => Math.ceil(n / SNAPSHOT_ALIGN) * SNAPSHOT_ALIGN

/**
 * Stream a snapshot of what is committed now (commit first, as etcd's backend Snapshot does): chunks of
 * {@link SNAPSHOT_CHUNK_BYTES}, then one chunk holding the SHA-256 of all before it. The first chunk carries
 * `header`. Two passes over one backend snapshot: the first counts the bytes (so every chunk says how many
 * remain, as etcd's do), the second sends them. An aborted `signal` ends the stream with its reason.
 */
export async function* snapshotStream(backend: Backend, header: ResponseHeader, signal?: AbortSignal): AsyncGenerator<SnapshotChunk> {
  await backend.commit()
  signal?.throwIfAborted()
  const snap = backend.snapshot()
  try {
    let body = SNAPSHOT_MAGIC.length + 1
    for (const bucket of BUCKETS) {
      for await (const chunk of snap.entries(bucket)) {
        for (const { key, value } of chunk) body += recordSize(key, value)
        signal?.throwIfAborted()
      }
    }
    const total = padded(body)
    const sha = createHash('sha256')
    let sent = 0
    let buf = Buffer.alloc(SNAPSHOT_CHUNK_BYTES)
    let pos = 0
    let first = true
    const emit = (): SnapshotChunk => {
      const blob = buf.subarray(0, pos)
      sha.update(blob)
      sent += pos
      const out: SnapshotChunk = first ? { header, remainingBytes: total - sent, blob } : { remainingBytes: total - sent, blob }
      first = false
      buf = Buffer.alloc(SNAPSHOT_CHUNK_BYTES)
      pos = 0
      return out
    }
    /** Append bytes, yielding every chunk that fills up. */
    function* put(bytes: Uint8Array): Generator<SnapshotChunk> {
      let off = 0
      while (off < bytes.length) {
        const n = Math.min(bytes.length - off, SNAPSHOT_CHUNK_BYTES - pos)
        buf.set(bytes.subarray(off, off + n), pos)
        pos += n
        off += n
        if (pos === SNAPSHOT_CHUNK_BYTES) yield emit()
      }
    }
    yield* put(SNAPSHOT_MAGIC)
    const head = new Uint8Array(1 + 10)
    for (const bucket of BUCKETS) {
      for await (const chunk of snap.entries(bucket)) {
        signal?.throwIfAborted()
        for (const { key, value } of chunk) {
          if (recordSize(key, value) < SNAPSHOT_CHUNK_BYTES - pos) {
            // The common case: the record fits in the chunk being filled (and does not fill it).
            buf[pos] = BUCKET_PREFIX[bucket]
            pos = writeVarint(buf, pos + 1, key.length)
            buf.set(key, pos)
            pos = writeVarint(buf, pos + key.length, value.length)
            buf.set(value, pos)
            pos += value.length
            continue
          }
          head[0] = BUCKET_PREFIX[bucket]
          yield* put(head.subarray(0, writeVarint(head, 1, key.length)))
          yield* put(key)
          yield* put(head.subarray(0, writeVarint(head, 0, value.length)))
          yield* put(value)
        }
      }
    }
    yield* put(new Uint8Array(1 + total - body).fill(END_OF_ENTRIES))
    if (pos > 0) yield emit()
    if (sent !== total) throw new SnapshotError(`snapshot: sent ${sent} bytes, announced ${total}`)
    yield { remainingBytes: 0, blob: sha.digest() }
  } catch (err) {
    // Aborting (the server closing) also closes the database under the reads: report why, not how.
    signal?.throwIfAborted()
    throw err
  } finally {
    await snap.close()
  }
}

/** What a restore loaded. */
export interface RestoreResult {
  /** Entries written (identity keys left out). */
  readonly entries: number
}

/** Bytes written into the backend between commits while restoring. */
const RESTORE_COMMIT_BYTES = 4 * 1024 * 1024

/**
 * Load a snapshot file written by `etcdctl snapshot save` (or Etcd.snapshot()) into an empty backend. The
 * SHA-256 trailer is checked before anything is written. Every entry is copied except the member ID,
 * cluster ID and raft term: the restored server starts as a new one-member cluster, as after etcd's
 * `snapshot restore`. Data, revisions, compaction state, leases and alarms come back as they were.
 */
export async function restoreSnapshot(file: string, backend: Backend): Promise<RestoreResult> {
  const { size } = await stat(file)
  if (size < SHA256_LEN + SNAPSHOT_ALIGN || size % SNAPSHOT_ALIGN !== SHA256_LEN) {
    throw new SnapshotError(`snapshot: ${file} is not an etcdlite snapshot (size ${size} is not 512*n + 32)`)
  }
  const body = size - SHA256_LEN
  const fh = await open(file, 'r')
  try {
    const head = Buffer.alloc(SNAPSHOT_MAGIC.length)
    await fh.read(head, 0, head.length, 0)
    if (!head.equals(SNAPSHOT_MAGIC)) {
      throw new SnapshotError(`snapshot: ${file} is not an etcdlite snapshot (etcd's bbolt snapshots cannot be restored into etcdlite)`)
    }
    await checkSha(fh, body, file)
    for (const bucket of BUCKETS) {
      if ((await backend.scan(bucket, new Uint8Array(0), new Uint8Array([0xff]), 1)).length > 0) {
        throw new SnapshotError('snapshot: the target database is not empty; restore into a new data dir')
      }
    }
    const r = new FileReader(fh, body)
    r.skip(SNAPSHOT_MAGIC.length)
    let entries = 0
    let pending = 0
    for (;;) {
      const code = await r.byte()
      if (code === END_OF_ENTRIES) break
      const bucket = BUCKET_OF_CODE.get(code)
      if (bucket === undefined) throw new SnapshotError(`snapshot: unknown bucket code ${code} at byte ${r.offset - 1}`)
      const key = await r.bytes(await r.varint())
      const value = await r.bytes(await r.varint())
      if (bucket === 'meta' && IDENTITY_KEYS.some((k) => equalBytes(k, key))) continue
      backend.put(bucket, key, value)
      entries++
      pending += key.length + value.length
      if (pending >= RESTORE_COMMIT_BYTES) {
        await backend.commit()
        pending = 0
      }
    }
    await backend.commit()
    return { entries }
  } finally {
    await fh.close()
  }
}

type FileHandle = Awaited<ReturnType<typeof open>>

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

/** Sequential reads from a file region [0, end), through a 1 MiB buffer. */
class FileReader {
  private buf = Buffer.alloc(0)
  private bufStart = 0
  offset = 0
  private readonly fh: FileHandle
  private readonly end: number

  constructor(fh: FileHandle, end: number) {
    this.fh = fh
    this.end = end
  }

  skip(n: number): void {
    this.offset += n
  }

  async byte(): Promise<number> {
    return (await this.bytes(1))[0] as number
  }

  async varint(): Promise<number> {
    let n = 0
    let mul = 1
    for (let i = 0; i < 8; i++) {
      const c = await this.byte()
      n += (c & 0x7f) * mul
      if (c < 0x80) return n
      mul *= 128
    }
    throw new SnapshotError(`snapshot: malformed length at byte ${this.offset}`)
  }

  /** The next `n` bytes (a copy, owned by the caller). */
  async bytes(n: number): Promise<Uint8Array> {
    if (this.offset + n > this.end) throw new SnapshotError(`snapshot: truncated entry at byte ${this.offset}`)
    const rel = this.offset - this.bufStart
    if (rel < 0 || rel + n > this.buf.length) {
      this.buf = Buffer.alloc(Math.max(n, 1024 * 1024))
      const { bytesRead } = await this.fh.read(this.buf, 0, Math.min(this.buf.length, this.end - this.offset), this.offset)
      this.buf = this.buf.subarray(0, bytesRead)
      this.bufStart = this.offset
      if (bytesRead < n) throw new SnapshotError(`snapshot: truncated entry at byte ${this.offset}`)
    }
    const start = this.offset - this.bufStart
    this.offset += n
    return new Uint8Array(this.buf.subarray(start, start + n))
  }
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
