// The disk under a LevelDB directory: free space, telling a full disk from other I/O errors, and an open
// that leaves the directory as it found it when it fails.
import { readdir, rm, rmdir, stat, statfs } from 'node:fs/promises'
import { join } from 'node:path'

/** Whether an error (or its cause) says the disk is full: LevelDB's `IO error: …: No space left on device`. */
export function isNoSpace(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if ((e as NodeJS.ErrnoException).code === 'ENOSPC' || e.message.includes('No space left on device')) return true
  }
  return false
}

/** Bytes this process may still write on the filesystem holding `dir` (statfs's available blocks). */
export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir)
  return s.bavail * s.bsize
}

/** The names in `dir`, or undefined when it does not exist. */
async function listDir(dir: string): Promise<Set<string> | undefined> {
  try {
    return new Set(await readdir(dir))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

/** Total size of LevelDB's write-ahead logs in `dir` (what an open must first write into a table). */
async function logBytes(dir: string, names: Iterable<string>): Promise<number> {
  let total = 0
  for (const name of names) {
    if (!name.endsWith('.log')) continue
    try {
      total += (await stat(join(dir, name))).size
    } catch {
      // gone meanwhile
    }
  }
  return total
}

/** Room a reopen leaves for LevelDB's new log, manifest and text log beyond the table of its logs. */
const REOPEN_MARGIN = 256 * 1024

/**
 * What reopening the database in `dir` needs free (its write-ahead logs, which the open writes into a
 * table, plus a margin), and what is free.
 */
export async function reopenRoom(dir: string): Promise<{ needed: number; free: number }> {
  const names = (await listDir(dir)) ?? new Set<string>()
  return { needed: (await logBytes(dir, names)) + REOPEN_MARGIN, free: await freeBytes(dir) }
}

/**
 * Open the LevelDB database in `dir` with `open`. If the open fails, every file the attempt created is
 * removed again (and the directory, if the attempt created it), so that a start that cannot proceed
 * does not leave its work behind: LevelDB's open replays the write-ahead logs into a new table and
 * starts a new log and manifest before it commits to any of them, and a failed open keeps the old
 * CURRENT, manifest, logs and tables, so the new files are unreferenced and removing them is safe.
 * Without this, each failed start on a nearly full disk left another table of the whole log behind until
 * the disk was full. The one change that stays is LevelDB's text log, which it rotates (LOG to LOG.old)
 * on every open. A failure because the disk is full is rethrown with the free space and what the
 * open needed.
 */
export async function openLeavingNoTrace(dir: string, open: () => Promise<void>): Promise<void> {
  const before = await listDir(dir)
  try {
    await open()
  } catch (err) {
    const after = (await listDir(dir)) ?? new Set<string>()
    for (const name of after) {
      // LOG.old is the text log that was LOG before the attempt.
      if (before?.has(name) === true || (name === 'LOG.old' && before?.has('LOG') === true)) continue
      await rm(join(dir, name), { force: true, recursive: true }).catch(() => undefined)
    }
    // The attempt created the directory: remove it too.
    if (before === undefined) await rmdir(dir).catch(() => undefined)
    if (!isNoSpace(err)) throw err
    const free = await freeBytes(before === undefined ? join(dir, '..') : dir).catch(() => NaN)
    const logs = before === undefined ? 0 : await logBytes(dir, before)
    throw new Error(
      `cannot open the database in ${dir}: no space left on device (${free} bytes free; LevelDB first writes ` +
        `its ${logs}-byte write-ahead log into a new table); nothing was left behind`,
      { cause: err },
    )
  }
}
