// The databases an embedded store opens. Each database's module loads when one is opened: an in-memory
// store needs no LevelDB, nor a store on disk memory-level.
import type { LevelDb } from './options.js'

const ENCODINGS = { keyEncoding: 'view', valueEncoding: 'view' } as const

/** A LevelDB database (classic-level, through level) in `dir`, not yet opened. */
export async function levelDb(dir: string): Promise<LevelDb> {
  const { Level } = await import('level')
  return new Level<Uint8Array, Uint8Array>(dir, ENCODINGS)
}

/** An empty memory-level database. */
export async function memoryDb(): Promise<LevelDb> {
  const { MemoryLevel } = await import('memory-level')
  return new MemoryLevel<Uint8Array, Uint8Array>(ENCODINGS)
}
