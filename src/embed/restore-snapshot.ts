// Loading a snapshot file into the database a server is then opened on (Etcd.restoreSnapshot checks the
// arguments; etcdserver/snapshot.ts reads the file).
import { LevelBackend } from '../backend/level-backend.js'
import { levelDb, memoryDb } from './level-db.js'
import { ETCD_DEFAULTS, type EtcdOptions, type LevelDb } from './options.js'

/** Load `file` into the database `opts` name, and resolve with the options that open it. */
export async function loadSnapshot(file: string, opts: EtcdOptions): Promise<EtcdOptions> {
  const o = { ...ETCD_DEFAULTS, ...opts }
  const { restoreSnapshot, restoreSnapshotToDir } = await import('../etcdserver/snapshot.js')
  if (opts.db === undefined && !o.memory) {
    await restoreSnapshotToDir(file, o.dataDir, async (dir) => LevelBackend.open(levelDb(dir), { syncWrites: !o.unsafeNoFsync }))
    return opts
  }
  const db: LevelDb = opts.db ?? memoryDb()
  const backend = await LevelBackend.open(db, { syncWrites: false })
  try {
    await restoreSnapshot(file, backend)
  } finally {
    // openEtcd opens the database again (memory-level keeps its data across close and open).
    await backend.close()
  }
  return { ...opts, db }
}
