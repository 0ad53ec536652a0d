// The Patroni configuration of one node of the test cluster: etcd3 DCS (which speaks etcd's JSON gateway),
// timings small enough for a test, and PostgreSQL confined to the node's directory and loopback ports.
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'

/** Patroni's DCS timings: a leader key lives `ttl` s; `loop_wait` s between HA loops. */
export const DCS_TIMINGS = { ttl: 10, loop_wait: 1, retry_timeout: 3 } as const

export interface NodeConfig {
  readonly scope: string
  readonly name: string
  /** The node's own directory: data, sockets, pgpass, its config file. */
  readonly dir: string
  readonly restPort: number
  readonly pgPort: number
  /** host:port of the etcd (or etcdlite) client listener. */
  readonly etcd: string
  readonly binDir: string
}

/** The newest PostgreSQL server's bin directory in Debian's layout, or undefined when none is installed. */
export function postgresBinDir(root = '/usr/lib/postgresql'): string | undefined {
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'postgres')))
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0]
  return newest === undefined ? undefined : join(root, newest, 'bin')
}

export function patroniConfig(c: NodeConfig): string {
  return stringify({
    scope: c.scope,
    namespace: '/service/',
    name: c.name,
    log: { level: 'INFO' },
    restapi: { listen: `127.0.0.1:${c.restPort}`, connect_address: `127.0.0.1:${c.restPort}` },
    etcd3: { hosts: [c.etcd], protocol: 'http' },
    bootstrap: {
      dcs: { ...DCS_TIMINGS, maximum_lag_on_failover: 16 * 1024 * 1024, postgresql: { use_pg_rewind: false } },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C' }],
    },
    postgresql: {
      listen: `127.0.0.1:${c.pgPort}`,
      connect_address: `127.0.0.1:${c.pgPort}`,
      data_dir: join(c.dir, 'data'),
      bin_dir: c.binDir,
      pgpass: join(c.dir, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres', password: 'postgres' },
        replication: { username: 'replicator', password: 'replicator' },
      },
      // Loopback only, so trust is as safe as the machine; the replication user connects the same way.
      pg_hba: [
        'local all all trust',
        'host all all 127.0.0.1/32 trust',
        'host replication replicator 127.0.0.1/32 trust',
      ],
      parameters: {
        unix_socket_directories: c.dir,
        shared_buffers: '16MB',
        max_connections: 20,
        max_wal_senders: 5,
        max_replication_slots: 5,
      },
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  })
}
