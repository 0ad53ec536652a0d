// The abstract-level database under LevelBackend, and how its size is measured: a classic-level directory by
// its LevelDB files on disk (the counterpart of etcd's bbolt file size), any other database (memory-level) by
// the bytes of its keys and values.
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { AbstractChainedBatch, AbstractLevel } from 'abstract-level'

/** The database LevelBackend takes: byte keys and values (string keys for the whole-keyspace iterator bounds). */
export type Db = AbstractLevel<Uint8Array | string, Uint8Array, Uint8Array>
/** A chained batch of {@link Db}. */
export type Chain = AbstractChainedBatch<Db, Uint8Array, Uint8Array>

/** A database with a directory of LevelDB files (classic-level): its size is measured on disk. */
export interface OnDisk {
  readonly location: string
  compactRange(start: Uint8Array, end: Uint8Array): Promise<void>
}

/** The database as an {@link OnDisk} one, or undefined for a database with no directory (memory-level). */
export function onDisk(db: Db): (Db & OnDisk) | undefined {
  const d = db as Db & Partial<OnDisk>
  return typeof d.location === 'string' && typeof d.compactRange === 'function' ? (d as Db & OnDisk) : undefined
}

/**
 * LevelDB's own files (tables, write-ahead logs, manifest, CURRENT), the ones its data lives in; not LOCK
 * and not the LOG/LOG.old text logs.
 */
const LEVELDB_DATA_FILE = /^(\d+\.(log|ldb|sst)|MANIFEST-\d+|CURRENT)$/

/**
 * What one buffered op adds to the size estimate beyond its key and value: LevelDB writes an op type and
 * two length varints to its write-ahead log, plus batch and block headers (about 3 bytes, rounded up).
 */
export const OP_OVERHEAD = 8

/** Total size of LevelDB's data files in `location` (files LevelDB deletes while they are listed count as gone). */
export async function measureOnDisk(location: string): Promise<number> {
  let total = 0
  for (const name of await readdir(location)) {
    if (!LEVELDB_DATA_FILE.test(name)) continue
    try {
      total += (await stat(join(location, name))).size
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
  }
  return total
}

/** The bytes of every stored key and value of a database in memory. */
export async function measureEntries(db: Db): Promise<number> {
  let total = 0
  const it = db.iterator()
  try {
    for (;;) {
      const chunk = await it.nextv(1000)
      if (chunk.length === 0) break
      for (const [k, v] of chunk) total += k.length + v.length
    }
  } finally {
    await it.close()
  }
  return total
}
