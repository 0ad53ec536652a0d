// The databases an embedded store opens. Each database's module loads when one is opened: an in-memory
// store needs no LevelDB, nor a store on disk memory-level. Both packages are CommonJS, so they are
// required rather than imported: Node's ESM loader would first resolve and read them asynchronously and
// scan their source for exports, about 10 ms of a first in-memory openEtcd.
import { createRequire } from 'node:module'
import type * as LevelModule from 'level'
import type * as MemoryLevelModule from 'memory-level'
import type { LevelDb } from './options.js'

const ENCODINGS = { keyEncoding: 'view', valueEncoding: 'view' } as const
const requireCjs = createRequire(import.meta.url)

/** A LevelDB database (classic-level, through level) in `dir`, not yet opened. */
export function levelDb(dir: string): LevelDb {
  const { Level } = requireCjs('level') as typeof LevelModule
  return new Level<Uint8Array, Uint8Array>(dir, ENCODINGS)
}

/** An empty memory-level database. */
export function memoryDb(): LevelDb {
  const { MemoryLevel } = requireCjs('memory-level') as typeof MemoryLevelModule
  return new MemoryLevel<Uint8Array, Uint8Array>(ENCODINGS)
}
