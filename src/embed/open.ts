// Building an embedded etcdlite from its options: the database, the backend over it, the server core with
// every option passed down, and the Listeners that serve it and close it.
import { LevelBackend } from '../backend/level-backend.js'
import { checkDataDir, lockedError } from '../backend/data-dir.js'
import { AccessController } from '../etcdserver/access-controller.js'
import { parseRetention } from '../etcdserver/auto-compactor.js'
import { EtcdServer } from '../etcdserver/etcd-server.js'
import { silentLogger } from '../pkg/logger.js'
import { checkRequest } from './input.js'
import { levelDb, memoryDb } from './level-db.js'
import { Listeners } from './listeners.js'
import { ETCD_DEFAULTS, type EtcdOptions, type LevelDb } from './options.js'

/** An opened server and what serves it. */
export interface OpenedServer {
  readonly server: EtcdServer
  readonly listeners: Listeners
}

/** openEtcd() up to the Etcd it returns: on disk (default), in memory, or over a given abstract-level database. */
export async function openServer(opts: EtcdOptions): Promise<OpenedServer> {
  checkRequest('openEtcd', opts)
  const o = { ...ETCD_DEFAULTS, ...opts }
  const onDisk = opts.db === undefined && !o.memory
  // Before LevelDB touches the directory: it would create files beside a real etcd's, or rotate the LOG
  // of another process's open database before finding its LOCK taken.
  if (onDisk) await checkDataDir(o.dataDir)
  const db: LevelDb = opts.db ?? (o.memory ? memoryDb() : levelDb(o.dataDir))
  let backend: LevelBackend
  try {
    backend = await LevelBackend.open(db, { syncWrites: !o.memory && !o.unsafeNoFsync })
  } catch (err) {
    throw (onDisk ? await lockedError(o.dataDir, err) : undefined) ?? err
  }
  try {
    const logger = opts.logger ?? silentLogger
    const server = await EtcdServer.open(backend, {
      maxRequestBytes: o.maxRequestBytes,
      maxTxnOps: o.maxTxnOps,
      watchProgressNotifyIntervalMs: o.watchProgressNotifyIntervalMs,
      indexCheckpointEntries: o.indexCheckpointEntries,
      onBackgroundError: (err) => logger.error('background task failed', { error: err }),
      ...(opts.clock === undefined ? {} : { clock: opts.clock }),
      minLeaseTtl: o.minLeaseTtl,
      leaseRenewOnStartMs: o.leaseRenewOnStartMs,
      maintenance: { quotaBackendBytes: o.quotaBackendBytes, etcdVersion: o.etcdVersion, logger },
      member: { name: o.name, peerUrls: o.peerUrls, clientUrls: o.advertiseClientUrls ?? [] },
      ...(opts.memberId !== undefined && opts.clusterId !== undefined ? { newIdentity: { memberId: opts.memberId, clusterId: opts.clusterId } } : {}),
      autoCompaction: parseRetention(o.autoCompactionMode, o.autoCompactionRetention),
      metrics: o.metrics,
      auth: { tokenTtlMs: o.authTokenTtl * 1000, bcryptCost: o.bcryptCost, ...(o.authToken === 'simple' ? {} : { jwt: o.authToken }) },
      enableV2: o.enableV2,
      accessController: new AccessController(o.cors, o.hostWhitelist),
    })
    const r = server.restored
    // etcd's mvcc logs this line (with current-rev) as it opens its store; the other fields are etcdlite's.
    logger.info('kvstore restored', { 'current-rev': r.currentRev, 'compact-rev': r.compactRev, 'index-from': r.indexFrom, 'log-entries-read': r.logEntriesRead }, 'mvcc/kvstore.go:423')
    const listeners = new Listeners(server, { logger, maxRequestBytes: o.maxRequestBytes, advertised: opts.advertiseClientUrls !== undefined })
    return { server, listeners }
  } catch (err) {
    await backend.close().catch(() => undefined)
    throw err
  }
}
