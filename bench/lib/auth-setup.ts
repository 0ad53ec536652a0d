// `npm run bench -- --auth`: turn on auth on a server the way an operator would, and hand back a token for
// a non-root user, so the KV workloads run with every request permission-checked (as in a deployment that
// uses etcd's RBAC). The user's role holds the two key ranges the workloads touch plus `decoys` single-key
// permissions elsewhere, so a check is not a trivial one-entry lookup.
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'

/** Permissions on other keys the bench user also holds. */
export const AUTH_DECOYS = 100

type Unary = (req: object) => Promise<Record<string, unknown>>

function unary(client: grpc.Client, method: string): Unary {
  const fn = (client as unknown as Record<string, unknown>)[method]
  if (typeof fn !== 'function') throw new Error(`no method ${method}`)
  return (req) =>
    new Promise((resolve, reject) => {
      ;(fn as (r: object, cb: (err: grpc.ServiceError | null, res?: Record<string, unknown>) => void) => void).call(client, req, (err, res) => {
        if (err !== null) reject(err)
        else resolve(res ?? {})
      })
    })
}

/**
 * Create root and a `bench` user whose role may read and write the put keys ("p…") and the range key
 * ("r…"), enable auth, and return the bench user's token.
 */
export async function enableBenchAuth(endpoint: string): Promise<string> {
  const proto = loadEtcdProto()
  const auth = new proto.etcdserverpb.Auth(endpoint, grpc.credentials.createInsecure())
  try {
    const call = (m: string, req: object): Promise<Record<string, unknown>> => unary(auth, m)(req)
    await call('UserAdd', { name: 'root', password: 'bench-root' })
    await call('UserGrantRole', { user: 'root', role: 'root' })
    await call('RoleAdd', { name: 'bench' })
    for (const [key, end] of [['p', 'q'], ['r', 's']] as const) {
      await call('RoleGrantPermission', { name: 'bench', perm: { permType: 'READWRITE', key: Buffer.from(key), range_end: Buffer.from(end) } })
    }
    for (let i = 0; i < AUTH_DECOYS; i++) {
      await call('RoleGrantPermission', { name: 'bench', perm: { permType: 'READ', key: Buffer.from(`z/decoy-${String(i).padStart(3, '0')}`) } })
    }
    await call('UserAdd', { name: 'bench', password: 'bench-user' })
    await call('UserGrantRole', { user: 'bench', role: 'bench' })
    await call('AuthEnable', {})
    const { token } = await call('Authenticate', { name: 'bench', password: 'bench-user' })
    if (typeof token !== 'string') throw new Error('Authenticate answered without a token')
    return token
  } finally {
    auth.close()
  }
}
