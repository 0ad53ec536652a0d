// The remote client, connect(), as a compliance front end: over etcdlite served on port 0 (openEtcd().listen)
// and over the real etcd. Its errors are the embedded API's typed errors; their status comes from the
// server's TO_GRPC table, as for the embedded adapter, so a case sees the status etcd sent. The suite's
// Maintenance and Auth administration calls are not part of the client's interface (EtcdClient).
import { connect } from '../../../../src/client/connect.js'
import type { RemoteClient } from '../../../../src/client/client.js'
import { GrpcError } from '../../../../src/client/grpc-error.js'
import { openEtcd } from '../../../../src/embed/etcd.js'
import type { LeaseKeepAliveResponse } from '../../../../src/etcdserver/types/lease.js'
import { TO_GRPC } from '../../../../src/grpc/status.js'
import { EtcdError } from '../../../../src/pkg/errors.js'
import { haveEtcd, startReferenceEtcd } from '../../../helpers/processes.js'
import { ClientError, SUPPORTS_ALL, TEST_BCRYPT_COST, type Adapter, type EtcdTestClient, type Supports } from '../client.js'
import { embeddedWatchStream } from './embedded-watch.js'

async function mapped<T>(p: () => Promise<T>): Promise<T> {
  try {
    return await p()
  } catch (e) {
    if (e instanceof EtcdError) throw new ClientError(TO_GRPC[e.code], e.message)
    if (e instanceof GrpcError) throw new ClientError(e.code, e.details)
    throw e
  }
}

const outside = (what: string): Promise<never> => Promise.reject(new Error(`connect()'s client has no ${what} (not in EtcdClient)`))

function connectClient(c: RemoteClient, dispose: () => Promise<void>): EtcdTestClient {
  return {
    range: (r) => mapped(() => c.range(r)),
    put: (r) => mapped(() => c.put(r)),
    deleteRange: (r) => mapped(() => c.deleteRange(r)),
    txn: (r) => mapped(() => c.txn(r)),
    compact: (r) => mapped(() => c.compact(r)),
    watch: () => embeddedWatchStream(c),
    leaseGrant: (r) => mapped(() => c.leaseGrant(r)),
    leaseRevoke: (r) => mapped(() => c.leaseRevoke(r)),
    leaseKeepAlive: (reqs) =>
      mapped(async () => {
        const out: LeaseKeepAliveResponse[] = []
        for (const r of reqs) out.push(await c.leaseKeepAliveOnce(r))
        return out
      }),
    leaseTimeToLive: (r) => mapped(() => c.leaseTimeToLive(r)),
    leaseLeases: () => mapped(() => c.leaseLeases()),
    status: () => mapped(() => c.status()),
    hash: () => outside('Hash'),
    hashKV: (r) => mapped(() => c.hashKV(r)),
    alarm: () => outside('Alarm'),
    defragment: () => outside('Defragment'),
    moveLeader: () => outside('MoveLeader'),
    memberList: () => outside('MemberList'),
    downgrade: (r) => mapped(() => {
      if (typeof r.action === 'number') throw new TypeError("connect()'s downgrade() takes action names only")
      return c.downgrade({ ...(r.action === undefined ? {} : { action: r.action }), version: r.version })
    }),
    authEnable: () => outside('AuthEnable'),
    authDisable: () => outside('AuthDisable'),
    authStatus: () => outside('AuthStatus'),
    authenticate: () => outside('Authenticate'),
    userAdd: () => outside('UserAdd'),
    userGet: () => outside('UserGet'),
    userList: () => outside('UserList'),
    userDelete: () => outside('UserDelete'),
    userChangePassword: () => outside('UserChangePassword'),
    userGrantRole: () => outside('UserGrantRole'),
    userRevokeRole: () => outside('UserRevokeRole'),
    roleAdd: () => outside('RoleAdd'),
    roleGet: () => outside('RoleGet'),
    roleList: () => outside('RoleList'),
    roleDelete: () => outside('RoleDelete'),
    roleGrantPermission: () => outside('RoleGrantPermission'),
    roleRevokePermission: () => outside('RoleRevokePermission'),
    login: () => outside('login'),
    memberAdd: () => outside('MemberAdd'),
    snapshot: () => outside('Snapshot'),
    async close() {
      await c.close()
      await dispose()
    },
  }
}

const SUPPORTS: Supports = { ...SUPPORTS_ALL, maintenance: false, auth: false, authStatus: false, authToken: false, memberAdd: false }

export const connectAdapter: Adapter = {
  name: 'connect (etcdlite)',
  supports: SUPPORTS,
  async factory(): Promise<EtcdTestClient> {
    const etcd = await openEtcd({ memory: true, bcryptCost: TEST_BCRYPT_COST })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      return connectClient(await connect({ endpoints: [endpoint] }), () => etcd.close())
    } catch (e) {
      await etcd.close()
      throw e
    }
  },
}

const present = haveEtcd()

export const connectReferenceAdapter: Adapter = {
  name: 'connect (real etcd)',
  // etcd 3.4 has no Downgrade.
  supports: { ...SUPPORTS, authLegacy: true, authHardened: false, downgrade: false },
  oracle: true,
  etcdVersion: '3.4.23',
  concurrency: 8,
  ...(present ? {} : { skip: 'no `etcd` binary on PATH' }),
  async factory(): Promise<EtcdTestClient> {
    const etcd = await startReferenceEtcd(['--bcrypt-cost', String(TEST_BCRYPT_COST)])
    try {
      return connectClient(await connect({ endpoints: [etcd.endpoint] }), () => etcd.dispose())
    } catch (e) {
      await etcd.dispose()
      throw e
    }
  },
}
