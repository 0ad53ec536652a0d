// A directory's contents, to check that something left it exactly as it was.
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Every file and directory under `dir` with its size, mtime and content: what "left as it was" compares.
 * LOCK is only stat'ed: closing any descriptor of it would drop this process's fcntl lock on it.
 */
export async function dirState(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const p = join(e.parentPath, e.name)
    const st = await stat(p)
    const content = e.name === 'LOCK' || e.isDirectory() ? '' : (await readFile(p)).toString('base64')
    out[p] = e.isDirectory() ? 'dir' : `${st.size} ${st.mtimeMs} ${content}`
  }
  return out
}
