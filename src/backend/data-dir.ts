// The data directory before LevelDB opens it: refuse one that holds something else (a real etcd's data,
// unrelated files) or that another process has open, and say which. LevelDB creates the directory and
// rotates its LOG before it takes the LOCK, so these checks run first: a refused directory is left as it was.
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'

/** Why a data dir was refused. */
export type DataDirProblem = 'etcd-data-dir' | 'not-etcdlite' | 'not-a-directory' | 'in-use'

/** A data dir etcdlite will not open; `message` says what was found there. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError'
  readonly dataDir: string
  readonly problem: DataDirProblem
  /** For 'in-use': the process holding the directory's LOCK, when the system says (Linux /proc/locks). */
  readonly pid: number | undefined
  /** The message without the leading `etcdlite: data dir <dir> ` (for callers that name the dir themselves). */
  readonly reason: string

  constructor(dataDir: string, problem: DataDirProblem, reason: string, pid?: number, options?: ErrorOptions) {
    super(`etcdlite: data dir ${dataDir} ${reason}`, options)
    this.dataDir = dataDir
    this.problem = problem
    this.reason = reason
    this.pid = pid
  }
}

/**
 * What LevelDB (classic-level) writes into its directory: tables, write-ahead logs, the manifest, CURRENT,
 * LOCK and the text logs. A directory holding only these is etcdlite's (or one whose open never finished).
 */
const LEVELDB_FILE = /^(\d+\.(log|ldb|sst)|MANIFEST-\d+|CURRENT|LOCK|LOG|LOG\.old)$/

/**
 * What etcd itself keeps in a data dir besides its data, which etcdlite keeps there too: `fixtures/`, the
 * certificates --auto-tls and --peer-auto-tls make (made before the store opens, as etcd makes them).
 */
const ETCD_EXTRA = new Set(['fixtures'])

/** Most unrecognised names listed in a refusal. */
const LIST_AT_MOST = 5

/**
 * Check `dir` before LevelDB opens it. Absent or empty: fine (it is created). Refused with DataDirError:
 * a file; a real etcd's data dir (`member/` with `snap/` and `wal/`); a non-empty directory that is not
 * a LevelDB directory; one whose LOCK another process holds.
 */
export async function checkDataDir(dir: string): Promise<void> {
  let names: string[]
  try {
    const st = await stat(dir)
    if (!st.isDirectory()) throw new DataDirError(dir, 'not-a-directory', 'is not a directory')
    names = await readdir(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw err
  }
  if (names.length === 0) return
  if (names.includes('member')) {
    const found = await etcdMemberContents(join(dir, 'member'))
    throw new DataDirError(
      dir,
      'etcd-data-dir',
      `is a real etcd's data dir (found ${found}): etcdlite keeps its data in a format of its own and cannot ` +
        `read etcd's; give it an empty or new directory (to move the data, serve this dir with etcd and copy the keys over)`,
    )
  }
  const foreign = names.filter((n) => !LEVELDB_FILE.test(n) && !ETCD_EXTRA.has(n)).sort()
  if (foreign.length > 0 && !names.includes('CURRENT')) {
    const shown = foreign.slice(0, LIST_AT_MOST).join(', ')
    const more = foreign.length > LIST_AT_MOST ? ` and ${foreign.length - LIST_AT_MOST} more` : ''
    throw new DataDirError(
      dir,
      'not-etcdlite',
      `is neither empty nor an etcdlite data dir (found ${shown}${more}); give it an empty or new directory`,
    )
  }
  if (names.includes('LOCK')) {
    const pid = await lockHolder(join(dir, 'LOCK'))
    if (pid !== undefined) throw await inUse(dir, pid)
  }
}

/**
 * The error for a LevelDB open that failed because the LOCK is held (the other process took it between
 * checkDataDir and the open, or the system does not list locks); undefined for any other failure.
 */
export async function lockedError(dir: string, err: unknown): Promise<DataDirError | undefined> {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause
  if (cause?.code !== 'LEVEL_LOCKED') return undefined
  return inUse(dir, await lockHolder(join(dir, 'LOCK')), err)
}

async function inUse(dir: string, pid: number | undefined, cause?: unknown): Promise<DataDirError> {
  const opts = cause === undefined ? undefined : { cause }
  if (pid === undefined) return new DataDirError(dir, 'in-use', 'is in use by another process', undefined, opts)
  if (pid === process.pid) {
    return new DataDirError(dir, 'in-use', `is in use by this process (pid ${pid}): close the Etcd that has it open first`, pid, opts)
  }
  const cmd = await commandLine(pid)
  return new DataDirError(dir, 'in-use', `is in use by process ${pid}${cmd === undefined ? '' : ` (${cmd})`}`, pid, opts)
}

/** What of etcd's layout is under member/: "member/snap and member/wal", or "member/" alone. */
async function etcdMemberContents(member: string): Promise<string> {
  let inside: string[] = []
  try {
    inside = await readdir(member)
  } catch {
    // member is a file, or unreadable: it is still etcd's name, and reported as such.
  }
  const parts = ['snap', 'wal'].filter((n) => inside.includes(n)).map((n) => `member/${n}`)
  return parts.length === 0 ? 'member/' : parts.join(' and ')
}

/**
 * The pid holding a POSIX lock on `file`, from /proc/locks (Linux; LevelDB locks with fcntl). undefined
 * when the file is not locked or the system does not say.
 */
async function lockHolder(file: string): Promise<number | undefined> {
  let locks: string
  let ino: number
  let dev: number
  try {
    const st = await stat(file)
    ino = st.ino
    dev = st.dev
    locks = await readFile('/proc/locks', 'utf8')
  } catch {
    return undefined
  }
  // Linux's encoding of st_dev; /proc/locks shows it as hex major:minor, then the inode in decimal.
  const major = ((dev >> 8) & 0xfff).toString(16).padStart(2, '0')
  const minor = ((dev & 0xff) | ((dev >> 12) & 0xfff00)).toString(16).padStart(2, '0')
  const id = `${major}:${minor}:${ino}`
  for (const line of locks.split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 7364 fe:00:2146581 0 EOF" (a "->" marks a waiter, not a holder)
    const f = line.trim().split(/\s+/)
    if (f[1] === '->' || f[5] !== id) continue
    const pid = Number(f[4])
    if (Number.isSafeInteger(pid) && pid > 0) return pid
  }
  return undefined
}

/** A process's command line, shortened for a message; undefined if it cannot be read. */
async function commandLine(pid: number): Promise<string | undefined> {
  try {
    const cmd = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter((s) => s !== '').join(' ')
    if (cmd === '') return undefined
    return cmd.length > 200 ? `${cmd.slice(0, 200)}…` : cmd
  } catch {
    return undefined
  }
}
