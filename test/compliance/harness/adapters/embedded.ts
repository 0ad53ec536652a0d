// etcdlite in process: openEtcd({ memory: true }) called directly. An EtcdError's status comes from the
// server's own TO_GRPC table, as the gRPC layer would send it; its message must itself be etcd's text.
import { openEtcd, type Etcd } from '../../../../src/embed/etcd.js'
import type { LeaseKeepAliveResponse } from '../../../../src/etcdserver/types/lease.js'
import { TO_GRPC } from '../../../../src/grpc/status.js'
import { EtcdError } from '../../../../src/pkg/errors.js'
import { ClientError, SUPPORTS_ALL, type Adapter, type EtcdTestClient } from '../client.js'
// Auth
import { ManualClock } from '../../../../src/pkg/clock.js'
import { TEST_BCRYPT_COST } from '../client.js'
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

/**
 * A client on `etcd` (the server openEtcd returned, or a withToken() view of it); `dispose` is its close():
 * stop the server for the factory's client, nothing for a view's.
 */
function embeddedClient(etcd: Etcd, dispose: () => Promise<void>, clock?: ManualClock): EtcdTestClient {
  // Auth
  const view = (token: string): EtcdTestClient => embeddedClient(etcd.withToken(token), () => Promise.resolve())
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
    memberList: (r = {}) => mapped(() => etcd.memberList(r)),
    // The embedded API takes the action by name only; a number is for the wire.
    downgrade: (r) => mapped(() => {
      if (typeof r.action === 'number') throw new TypeError('the embedded downgrade() takes action names only')
      return etcd.downgrade({ ...(r.action === undefined ? {} : { action: r.action }), version: r.version })
    }),
    // Auth
    authEnable: () => mapped(() => etcd.authEnable()),
    authDisable: () => mapped(() => etcd.authDisable()),
    authStatus: () => mapped(() => etcd.authStatus()),
    authenticate: (r) => mapped(() => etcd.authenticate(r)),
    userAdd: (r) => mapped(() => etcd.userAdd(r)),
    userGet: (r) => mapped(() => etcd.userGet(r)),
    userList: () => mapped(() => etcd.userList()),
    userDelete: (r) => mapped(() => etcd.userDelete(r)),
    userChangePassword: (r) => mapped(() => etcd.userChangePassword(r)),
    userGrantRole: (r) => mapped(() => etcd.userGrantRole(r)),
    userRevokeRole: (r) => mapped(() => etcd.userRevokeRole(r)),
    roleAdd: (r) => mapped(() => etcd.roleAdd(r)),
    roleGet: (r) => mapped(() => etcd.roleGet(r)),
    roleList: () => mapped(() => etcd.roleList()),
    roleDelete: (r) => mapped(() => etcd.roleDelete(r)),
    roleGrantPermission: (r) => mapped(() => etcd.roleGrantPermission(r)),
    roleRevokePermission: (r) => mapped(() => etcd.roleRevokePermission(r)),
    login: async (name, password) => {
      const { token } = await mapped(() => etcd.authenticate({ name, password }))
      return { client: view(token), token }
    },
    withToken: view,
    memberAdd: () => Promise.reject(new Error('the embedded API has no MemberAdd (supports.memberAdd is false)')),
    snapshot: () =>
      mapped(async () => {
        let n = 0
        for await (const chunk of etcd.snapshot()) n += chunk.byteLength
        return n
      }),
    ...(clock === undefined ? {} : { advanceTime: (ms: number) => clock.advance(ms) }),
    close: dispose,
  }
}

export const embeddedAdapter: Adapter = {
  name: 'embedded',
  // Auth
  supports: { ...SUPPORTS_ALL, memberAdd: false, manualClock: true },
  async factory(server): Promise<EtcdTestClient> {
    // A short token TTL runs on a ManualClock, so a case moves time instead of waiting for it.
    const clock = server?.authTokenTtl === undefined ? undefined : new ManualClock()
    const etcd = await openEtcd({
      memory: true, bcryptCost: TEST_BCRYPT_COST,
      ...(server?.authTokenTtl === undefined ? {} : { authTokenTtl: server.authTokenTtl }),
      ...(clock === undefined ? {} : { clock }),
    })
    return embeddedClient(etcd, () => etcd.close(), clock)
  },
}
