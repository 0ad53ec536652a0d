// Maintenance: status, hash/hashKV, defragment, snapshot, alarms and the backend quota.
// (Skeleton: the quota admits everything until the Maintenance service is written.)
import type { EtcdServer } from './etcd-server.js'

export interface MaintenanceOptions {
  /** etcd's --quota-backend-bytes; 0 means the default (2 GiB). */
  readonly quotaBackendBytes: number
  /** The etcd version Status reports (clients gate features on it). */
  readonly etcdVersion: string
}

export const MAINTENANCE_DEFAULTS: MaintenanceOptions = { quotaBackendBytes: 0, etcdVersion: '3.5.17' }

export class Maintenance {
  private readonly server: EtcdServer
  private readonly opts: MaintenanceOptions

  constructor(server: EtcdServer, opts: MaintenanceOptions) {
    this.server = server
    this.opts = opts
  }

  /** Throws NO_SPACE when a write costing `cost` bytes may not proceed (quota passed or NOSPACE raised). */
  checkQuota(cost: number): void {
    void cost
    void this.server
    void this.opts
  }

  async close(): Promise<void> {}
}
