// Reading the snapshot files earlier etcdlite versions wrote (snapshots are etcd's bbolt files now), so
// that a file saved before still restores:
//
//   "etcdlite snapshot v1\n"                       magic (21 bytes)
//   { bucket:u8  keyLen:varint key  valueLen:varint value }*   every entry of every bucket, in key order
//   0x00                                           end of entries (no bucket code is 0)
//   0x00*                                          zero padding up to a multiple of 512 bytes
//   sha256                                         32 bytes: SHA-256 of everything above (checked by the caller)
import type { FileHandle } from 'node:fs/promises'
import type { Backend } from '../backend/backend.js'
import { BUCKETS, BUCKET_PREFIX, META, type Bucket } from '../backend/schema.js'
import { equalBytes } from '../pkg/bytes.js'
import { RESTORE_COMMIT_BYTES, type RestoreResult } from './snapshot-bolt.js'
import { SnapshotError } from './snapshot-error.js'

export const LEGACY_MAGIC = Buffer.from('etcdlite snapshot v1\n', 'latin1')
const END_OF_ENTRIES = 0

const BUCKET_OF_CODE = new Map<number, Bucket>(BUCKETS.map((b) => [BUCKET_PREFIX[b], b]))

/** Meta keys a restored server must not inherit: it gets its own member and cluster IDs and raft term. */
const IDENTITY_KEYS: readonly Uint8Array[] = [META.memberId, META.clusterId, META.term]

/** Load the entries of a legacy snapshot (body: the bytes before the SHA-256) into an empty backend. */
export async function readLegacySnapshot(fh: FileHandle, body: number, backend: Backend): Promise<RestoreResult> {
  const r = new FileReader(fh, body)
  r.skip(LEGACY_MAGIC.length)
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
