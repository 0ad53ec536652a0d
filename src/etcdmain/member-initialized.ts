// embed's isMemberInitialized: whether the data dir already holds a member, so that the initial cluster
// flags are ignored (etcd looks for its WAL; etcdlite's data dir is a LevelDB directory, whose CURRENT file
// exists once it has been opened).
import { existsSync } from 'node:fs'
import { join } from 'node:path'

export function isMemberInitialized(dataDir: string): boolean {
  return existsSync(join(dataDir, 'CURRENT'))
}
