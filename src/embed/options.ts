// Every option of an embedded etcdlite, each with its default, in one place.
import type { AbstractLevel } from 'abstract-level'
import type { Logger } from '../pkg/logger.js'

export type LevelDb = AbstractLevel<Uint8Array | string, Uint8Array, Uint8Array>

export interface EtcdOptions {
  /**
   * Where data lives: a directory (classic-level, created if missing), or `':memory:'`-style in-memory
   * storage when `memory` is true. Default: `default.etcdlite` in the working directory.
   */
  readonly dataDir?: string
  /** Keep everything in memory (memory-level); nothing touches the disk. Default false. */
  readonly memory?: boolean
  /** Use this abstract-level database instead (takes precedence over dataDir/memory); etcdlite closes it. */
  readonly db?: LevelDb
  /** Do not fsync commits (etcd's --unsafe-no-fsync). Default false: acknowledged writes are on disk. */
  readonly unsafeNoFsync?: boolean
  /** Largest write request in bytes (etcd's --max-request-bytes). Default 1572864 (1.5 MiB). */
  readonly maxRequestBytes?: number
  /** Most operations per txn level (etcd's --max-txn-ops). Default 128. */
  readonly maxTxnOps?: number
  /**
   * How often watchers created with progress_notify hear the current revision when idle (etcd's
   * --experimental-watch-progress-notify-interval). Default 600000 (10 minutes).
   */
  readonly watchProgressNotifyIntervalMs?: number
  /** Where internal errors and lifecycle events go. Default: silent. */
  readonly logger?: Logger
}

export const ETCD_DEFAULTS = {
  dataDir: 'default.etcdlite',
  memory: false,
  unsafeNoFsync: false,
  maxRequestBytes: 1.5 * 1024 * 1024,
  maxTxnOps: 128,
  watchProgressNotifyIntervalMs: 10 * 60 * 1000,
} as const

export interface ListenOptions {
  /** Host or IP to bind. Default 127.0.0.1. */
  readonly host?: string
  /** Port; 0 picks a free one. Default 2379. */
  readonly port?: number
}
