// etcdlite in process: openEtcd({ memory: true }) called directly. An EtcdError's status comes from the
// server's own TO_GRPC table, as the gRPC layer would send it; its message must itself be etcd's text.
import { openEtcd } from '../../../src/embed/etcd.js'
import type { LeaseKeepAliveResponse } from '../../../src/etcdserver/types.js'
import { TO_GRPC } from '../../../src/grpc/status.js'
import { EtcdError } from '../../../src/pkg/errors.js'
import { ClientError, SUPPORTS_ALL, type Adapter, type EtcdTestClient } from '../client.js'
import { embeddedWatchStream } from './embedded-watch.js'

async function mapped<T>(p: () => Promise<T>): Promise<T> {
  try {
    return await p()
  } catch (e) {
    if (e instanceof EtcdError) {
      throw new ClientError(TO_GRPC[e.code], e.message)
    }
    throw e
  }
}

export const embeddedAdapter: Adapter = {
  name: 'embedded',
  supports: SUPPORTS_ALL,
  async factory(): Promise<EtcdTestClient> {
    const etcd = await openEtcd({ memory: true })
    return {
      range: (r) => mapped(() => etcd.range(r)),
      put: (r) => mapped(() => etcd.put(r)),
      deleteRange: (r) => mapped(() => etcd.deleteRange(r)),
      txn: (r) => mapped(() => etcd.txn(r)),
      compact: (r) => mapped(() => etcd.compact(r)),
      watch: () => embeddedWatchStream(etcd),
      leaseGrant: (r) => mapped(() => etcd.leaseGrant(r)),
      leaseRevoke: (r) => mapped(() => etcd.leaseRevoke(r)),
      // One keep-alive message each, in order, as one LeaseKeepAlive stream answers them.
      leaseKeepAlive: (reqs) =>
        mapped(async () => {
          const out: LeaseKeepAliveResponse[] = []
          for (const r of reqs) out.push(await etcd.leaseKeepAliveOnce(r))
          return out
        }),
      leaseTimeToLive: (r) => mapped(() => etcd.leaseTimeToLive(r)),
      leaseLeases: () => mapped(() => etcd.leaseLeases()),
      status: () => mapped(() => etcd.status()),
      hash: () => mapped(() => etcd.hash()),
      hashKV: (r) => mapped(() => etcd.hashKV(r)),
      alarm: (r) => mapped(() => etcd.alarm(r)),
      // Defragment and MoveLeader resolve with nothing, as etcd answers them without a header.
      defragment: () => mapped(async () => (await etcd.defragment(), {})),
      moveLeader: (r) => mapped(async () => (await etcd.moveLeader(r), {})),
      memberList: () => mapped(() => etcd.memberList()),
      close: () => etcd.close(),
    }
  },
}
