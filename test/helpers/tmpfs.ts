// A small tmpfs of its own for disk-full tests: a real filesystem that runs out of space, without filling
// the machine's disk. Mounting needs root (CI runs as root); where it is refused, tests skip and say why.
import { execFile } from 'node:child_process'
import { mkdtemp, open, rm, rmdir, statfs, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface Tmpfs {
  readonly path: string
  /** Bytes this process may still write on it. */
  free(): Promise<number>
  /**
   * Take space with a filler file until at most `leave` bytes are free (0: until the filesystem refuses
   * more). Returns the bytes free after.
   */
  fill(leave: number): Promise<number>
  /** Give back the filler's space. */
  unfill(): Promise<void>
  /** Unmount and remove the mount point. */
  dispose(): Promise<void>
}

/** Mount a tmpfs of `bytes`; resolves with why not (a string) when this machine does not allow it. */
export async function mountTmpfs(bytes: number): Promise<Tmpfs | string> {
  const path = await mkdtemp(join(tmpdir(), 'etcdlite-tmpfs-'))
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', path])
  } catch (err) {
    await rmdir(path).catch(() => undefined)
    return `cannot mount a tmpfs here (needs root and mount(8)): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`
  }
  const filler = join(path, 'filler')
  const free = async (): Promise<number> => {
    const s = await statfs(path)
    return s.bavail * s.bsize
  }
  return {
    path,
    free,
    async fill(leave) {
      const f = await open(filler, 'a')
      try {
        const chunk = Buffer.alloc(64 * 1024, 0x5a)
        for (let left = (await free()) - leave; left > 0; left = (await free()) - leave) {
          try {
            await f.write(chunk, 0, Math.min(chunk.length, left))
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break
            throw err
          }
        }
      } finally {
        await f.close()
      }
      return free()
    },
    async unfill() {
      await unlink(filler).catch(() => undefined)
    },
    async dispose() {
      await run('umount', [path]).catch(() => run('umount', ['-l', path]))
      await rm(path, { recursive: true, force: true })
    },
  }
}
