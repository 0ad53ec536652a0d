// etcdlite served over gRPC (openEtcd().listen on port 0), reached with a raw @grpc/grpc-js client.
import { openEtcd } from '../../../../src/embed/etcd.js'
import { SUPPORTS_ALL, TEST_BCRYPT_COST, type Adapter } from '../client.js'
import { rawTestClient } from './raw.js'

export const grpcAdapter: Adapter = {
  name: 'grpc',
  supports: SUPPORTS_ALL,
  // Auth
  async factory(server) {
    const ttl = server?.authTokenTtl === undefined ? {} : { authTokenTtl: server.authTokenTtl }
    const etcd = await openEtcd({ memory: true, bcryptCost: TEST_BCRYPT_COST, ...ttl })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      return rawTestClient(endpoint, () => etcd.close())
    } catch (e) {
      await etcd.close()
      throw e
    }
  },
}
