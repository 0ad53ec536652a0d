// A log file that rotates itself, as etcd's --enable-log-rotation has it from lumberjack (the Go library
// etcd's zap sink uses): once a write would take the file past `maxSize` megabytes, the file is renamed to
// `<name>-<time><ext>` (time as 2006-01-02T15-04-05.000, UTC unless `localTime`) and a new one is started;
// backups beyond `maxBackups` or older than `maxAge` days are removed, and the rest gzipped to `.gz` when
// `compress`. Hand-written rather than an npm rotating stream, because tools that collect etcd's logs know
// lumberjack's backup names, and because zap writes each line synchronously, which the sink keeps.
import { createReadStream, createWriteStream, closeSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, writeSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import type { LogSink } from './logger.js'
import { asError } from './as-error.js'

/** lumberjack.Logger's settings (etcd's --log-rotation-config-json). */
export interface RotationConfig {
  /** Megabytes a file may reach before it is rotated; 0 is lumberjack's default, 100. */
  readonly maxSize: number
  /** Days a backup is kept (by the time in its name); 0 keeps them regardless of age. */
  readonly maxAge: number
  /** Backups kept; 0 keeps them all (maxAge may still remove them). */
  readonly maxBackups: number
  /** Name backups by local time instead of UTC. */
  readonly localTime: boolean
  /** gzip backups. */
  readonly compress: boolean
}

const MEGABYTE = 1024 * 1024
const DAY_MS = 24 * 60 * 60 * 1000
const pad = (n: number, w = 2): string => String(n).padStart(w, '0')

/** lumberjack's backupTimeFormat, 2006-01-02T15-04-05.000, of `t`. */
export function backupTime(t: Date, localTime: boolean): string {
  const [y, mo, d, h, mi, s, ms] = localTime
    ? [t.getFullYear(), t.getMonth() + 1, t.getDate(), t.getHours(), t.getMinutes(), t.getSeconds(), t.getMilliseconds()]
    : [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds(), t.getUTCMilliseconds()]
  return `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}-${pad(mi)}-${pad(s)}.${pad(ms, 3)}`
}

/** The time in a backup's name, or undefined when it is not one (lumberjack's timeFromName). */
function timeFromName(name: string, prefix: string, ext: string, localTime: boolean): number | undefined {
  if (!name.startsWith(prefix) || !name.endsWith(ext)) return undefined
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(name.slice(prefix.length, name.length - ext.length))
  if (m === null) return undefined
  const [y, mo, d, h, mi, s, ms] = m.slice(1).map(Number) as [number, number, number, number, number, number, number]
  return localTime ? new Date(y, mo - 1, d, h, mi, s, ms).getTime() : Date.UTC(y, mo - 1, d, h, mi, s, ms)
}

export class RotatingFileSink implements LogSink {
  private fd: number | undefined
  private size = 0
  private readonly maxBytes: number
  /** Backup clean-up runs one at a time; a rotation meanwhile asks for one more run. */
  private milling: Promise<void> | undefined
  private millAgain = false

  constructor(
    private readonly filename: string,
    private readonly cfg: RotationConfig,
    private readonly now: () => Date = () => new Date(),
    /** Where a write the file cannot take is reported (zap's ErrorOutput). */
    private readonly onError: (err: Error) => void = (err) => void process.stderr.write(`${new Date().toISOString()} write error: ${err.message}\n`),
  ) {
    this.maxBytes = (cfg.maxSize === 0 ? 100 : cfg.maxSize) * MEGABYTE
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line)
    try {
      if (bytes > this.maxBytes) throw new Error(`write length ${bytes} exceeds maximum file size ${this.maxBytes}`)
      if (this.fd === undefined) this.openExistingOrNew(bytes)
      else if (this.size + bytes > this.maxBytes) this.rotate()
      writeSync(this.fd as number, line)
      this.size += bytes
    } catch (err) {
      this.onError(asError(err))
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  /** Settles once backup clean-up (removal and compression) started so far is done. */
  async idle(): Promise<void> {
    while (this.milling !== undefined) await this.milling
  }

  private rotate(): void {
    this.close()
    this.openNew()
    this.mill()
  }

  /** Append to the current file unless this write would take it past the limit. */
  private openExistingOrNew(writeBytes: number): void {
    this.mill()
    let size: number
    try {
      size = statSync(this.filename).size
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      this.openNew()
      return
    }
    if (size + writeBytes >= this.maxBytes) {
      this.rotate()
      return
    }
    this.fd = openSync(this.filename, 'a')
    this.size = size
  }

  /** Move the current file (if any) to its backup name and start an empty one with its mode. */
  private openNew(): void {
    mkdirSync(dirname(this.filename), { recursive: true, mode: 0o755 })
    let mode = 0o600
    try {
      mode = statSync(this.filename).mode & 0o777
      renameSync(this.filename, this.backupName())
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    this.fd = openSync(this.filename, 'w', mode)
    this.size = fstatSync(this.fd).size
  }

  private backupName(): string {
    const ext = extname(this.filename)
    const prefix = basename(this.filename, ext)
    return join(dirname(this.filename), `${prefix}-${backupTime(this.now(), this.cfg.localTime)}${ext}`)
  }

  /** Start a clean-up of the backups, or ask the running one to go round again. */
  private mill(): void {
    if (this.cfg.maxBackups === 0 && this.cfg.maxAge === 0 && !this.cfg.compress) return
    if (this.milling !== undefined) {
      this.millAgain = true
      return
    }
    this.milling = (async () => {
      do {
        this.millAgain = false
        // Failures are lumberjack's too: ignored, the next rotation tries again.
        await this.millRunOnce().catch(() => undefined)
      } while (this.millAgain)
      this.milling = undefined
    })()
  }

  /** lumberjack's millRunOnce: remove the backups beyond the count or age, then compress the rest. */
  private async millRunOnce(): Promise<void> {
    const dir = dirname(this.filename)
    const ext = extname(this.filename)
    const prefix = `${basename(this.filename, ext)}-`
    const files: { name: string; t: number }[] = []
    for (const name of readdirSync(dir)) {
      const t = timeFromName(name, prefix, ext, this.cfg.localTime) ?? timeFromName(name, prefix, `${ext}.gz`, this.cfg.localTime)
      if (t !== undefined) files.push({ name, t })
    }
    files.sort((a, b) => b.t - a.t)
    let keep = files
    const remove: string[] = []
    if (this.cfg.maxBackups > 0 && this.cfg.maxBackups < files.length) {
      // A backup and its .gz twin (a compression cut short) count as one.
      const preserved = new Set<string>()
      keep = []
      for (const f of files) {
        const base = f.name.endsWith('.gz') ? f.name.slice(0, -3) : f.name
        preserved.add(base)
        if (preserved.size > this.cfg.maxBackups) remove.push(f.name)
        else keep.push(f)
      }
    }
    if (this.cfg.maxAge > 0) {
      const cutoff = this.now().getTime() - this.cfg.maxAge * DAY_MS
      const young = keep.filter((f) => f.t >= cutoff)
      for (const f of keep) if (f.t < cutoff) remove.push(f.name)
      keep = young
    }
    for (const name of remove) await unlink(join(dir, name)).catch(() => undefined)
    if (!this.cfg.compress) return
    for (const f of keep) {
      if (f.name.endsWith('.gz')) continue
      const src = join(dir, f.name)
      await pipeline(createReadStream(src), createGzip(), createWriteStream(`${src}.gz`, { mode: statSync(src).mode & 0o777 }))
      await unlink(src)
    }
  }
}
