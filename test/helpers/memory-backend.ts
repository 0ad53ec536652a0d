// An in-memory LevelDB and a backend over it, as unit tests below the embedded API open them.
import { MemoryLevel } from 'memory-level'
import { LevelBackend } from '../../src/backend/level-backend.js'
import type { LevelDb } from '../../src/embed/options.js'

/** A fresh memory-level database with the byte encodings the backend expects. */
export const memoryDb = (): LevelDb => new MemoryLevel({ keyEncoding: 'view', valueEncoding: 'view' }) as unknown as LevelDb

/** A backend over a fresh memory-level database; nothing to sync. */
export const memoryBackend = (): Promise<LevelBackend> => LevelBackend.open(memoryDb(), { syncWrites: false })
