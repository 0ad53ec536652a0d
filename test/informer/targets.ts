// The servers the informer suite runs against: the embedded Etcd, etcdlite served over gRPC and reached
// with connect(), and the real etcd reached with connect(). Each test opens a fresh one, so revisions
// start from 1 on every target alike.
import { connect } from '../../src/client/connect.js'
import type { EtcdClient } from '../../src/client/etcd-client.js'
import { openEtcd } from '../../src/embed/etcd.js'
import { haveEtcd, startReferenceEtcd } from '../helpers/processes.js'

export interface TargetOptions {
  /** The server's periodic watch progress notification interval (etcd's default is 10 minutes). */
  readonly progressNotifyIntervalMs?: number
}

export interface TargetServer extends AsyncDisposable {
  /** Writes and checks go through this client. */
  readonly client: EtcdClient
  /** The informer's own client: on the remote targets a second connection, as an application would have. */
  readonly source: EtcdClient
  /** The store's current revision. */
  rev(): Promise<number>
}

export interface InformerTarget {
  readonly name: string
  readonly skip?: string
  open(opts?: TargetOptions): Promise<TargetServer>
}

const revOf = async (c: EtcdClient): Promise<number> => (await c.range({ key: '\0', limit: 1 })).header.revision

export const embeddedTarget: InformerTarget = {
  name: 'embedded',
  async open(opts = {}) {
    const etcd = await openEtcd({ memory: true, ...(opts.progressNotifyIntervalMs === undefined ? {} : { watchProgressNotifyIntervalMs: opts.progressNotifyIntervalMs }) })
    return { client: etcd, source: etcd, rev: () => Promise.resolve(etcd.server.kv.rev()), [Symbol.asyncDispose]: () => etcd.close() }
  },
}

async function remote(endpoint: string, dispose: () => Promise<void>): Promise<TargetServer> {
  const opened: EtcdClient[] = []
  try {
    const client = await connect({ endpoints: [endpoint] })
    opened.push(client)
    const source = await connect({ endpoints: [endpoint] })
    opened.push(source)
    return {
      client,
      source,
      rev: () => revOf(client),
      async [Symbol.asyncDispose]() {
        await Promise.all(opened.map((c) => c.close()))
        await dispose()
      },
    }
  } catch (e) {
    await Promise.all(opened.map((c) => c.close()))
    await dispose()
    throw e
  }
}

export const connectTarget: InformerTarget = {
  name: 'connect() to etcdlite',
  async open(opts = {}) {
    const etcd = await openEtcd({ memory: true, ...(opts.progressNotifyIntervalMs === undefined ? {} : { watchProgressNotifyIntervalMs: opts.progressNotifyIntervalMs }) })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      return await remote(endpoint, () => etcd.close())
    } catch (e) {
      await etcd.close()
      throw e
    }
  },
}

export const referenceTarget: InformerTarget = {
  name: 'connect() to the real etcd',
  ...(haveEtcd() ? {} : { skip: 'no `etcd` binary on PATH' }),
  async open(opts = {}) {
    const extra = opts.progressNotifyIntervalMs === undefined ? [] : ['--experimental-watch-progress-notify-interval', `${opts.progressNotifyIntervalMs}ms`]
    const etcd = await startReferenceEtcd(extra)
    return remote(etcd.endpoint, () => etcd.dispose())
  },
}
