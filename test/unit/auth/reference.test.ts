// The auth store's two hardest-to-get-exactly-right parts, compared with the real etcd 3.4.23 over gRPC
// (skipped when no `etcd` is on PATH):
// - the order of a role's permissions after each grant (etcd sorts with Go's unstable sort.Sort, so equal
//   keys land where Go's pdqsort puts them; src/auth/go-sort.ts ports it), and the duplicate a re-grant
//   can add;
// - the answer of permission checks for random permission sets and random requests, inverted ranges and
//   permissions on "" included, where etcd's answer depends on its interval tree's shape.
// Seeds: AUTH_REF_SEEDS=1,2,3 replays the random rounds.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as grpc from '@grpc/grpc-js'
import type { Permission, PermissionType, Role, User } from '../../../src/auth/permission.js'
import { RangePermCache, type AccessType } from '../../../src/auth/range-perm-cache.js'
import { AuthStore } from '../../../src/auth/store.js'
import type { LevelBackend } from '../../../src/backend/level-backend.js'
import { loadEtcdProto } from '../../../src/grpc/proto.js'
import { ManualClock } from '../../../src/pkg/clock.js'
import { Prng, seedsFromEnv } from '../../helpers/prng.js'
import { haveEtcd, startReferenceEtcd, type ServerProcess } from '../../helpers/processes.js'
import { memoryBackend } from '../../helpers/memory-backend.js'

const enc = (s: string): Buffer => Buffer.from(s, 'latin1')
const str = (b: Uint8Array): string => Buffer.from(b).toString('latin1')
const showPerm = (p: Permission): string => `${p.permType} ${JSON.stringify(str(p.key))}..${JSON.stringify(str(p.rangeEnd))}`

type Reply = Record<string, unknown>

/** One unary call with the `token` metadata, as etcd clients send it. */
function call(client: grpc.Client, method: string, req: object, token?: string): Promise<Reply> {
  const fn = (client as unknown as Record<string, unknown>)[method]
  if (typeof fn !== 'function') throw new Error(`no method ${method}`)
  const md = new grpc.Metadata()
  if (token !== undefined) md.set('token', token)
  return new Promise((resolve, reject) => {
    ;(fn as (r: object, m: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: Reply) => void) => void).call(client, req, md, (err, res) => {
      if (err !== null) reject(err)
      else resolve(res ?? {})
    })
  })
}

interface PbPermission {
  readonly permType: PermissionType
  readonly key: Buffer
  readonly range_end: Buffer
}
const fromPb = (p: PbPermission): Permission => ({ permType: p.permType, key: new Uint8Array(p.key), rangeEnd: new Uint8Array(p.range_end) })

describe('against the real etcd', { skip: haveEtcd() ? false : 'no etcd on PATH' }, () => {
  let etcd: ServerProcess
  let auth: grpc.Client
  let kv: grpc.Client
  let rootToken: string
  let mine: { be: LevelBackend; s: AuthStore }

  before(async () => {
    etcd = await startReferenceEtcd(['--bcrypt-cost', '4'])
    const proto = loadEtcdProto()
    auth = new proto.etcdserverpb.Auth(etcd.endpoint, grpc.credentials.createInsecure())
    kv = new proto.etcdserverpb.KV(etcd.endpoint, grpc.credentials.createInsecure())
    await call(auth, 'UserAdd', { name: 'root', password: 'rootpw' })
    await call(auth, 'UserGrantRole', { user: 'root', role: 'root' })
    await call(auth, 'AuthEnable', {})
    rootToken = (await call(auth, 'Authenticate', { name: 'root', password: 'rootpw' }))['token'] as string
    const be = await memoryBackend()
    const s = await AuthStore.open(be, { bcryptCost: 4, tokenTtlMs: 0, clock: new ManualClock(), onError: (e) => assert.fail(String(e)) })
    mine = { be, s }
  })

  after(async () => {
    auth?.close()
    kv?.close()
    await mine?.s.close()
    await mine?.be.close()
    await etcd?.dispose()
  })

  const admin = (method: string, req: object): Promise<Reply> => call(auth, method, req, rootToken)

  async function etcdRolePerms(role: string): Promise<Permission[]> {
    return ((await admin('RoleGet', { role }))['perm'] as PbPermission[]).map(fromPb)
  }

  /** Grant the same permissions in the same order to a role on both sides, comparing the stored order each time. */
  async function grantBoth(role: string, perms: readonly Permission[]): Promise<void> {
    await admin('RoleAdd', { name: role })
    await mine.s.roleAdd(role)
    for (const [i, p] of perms.entries()) {
      await admin('RoleGrantPermission', { name: role, perm: { permType: p.permType, key: Buffer.from(p.key), range_end: Buffer.from(p.rangeEnd) } })
      await mine.s.roleGrantPermission(role, p)
      assert.deepEqual(mine.s.roleGet(role).map(showPerm), (await etcdRolePerms(role)).map(showPerm), `${role}: after grant #${i} ${showPerm(p)}`)
    }
  }

  const p = (permType: PermissionType, key: string, rangeEnd = ''): Permission => ({ permType, key: enc(key), rangeEnd: enc(rangeEnd) })

  describe('permission order (Go sort.Sort, equal keys)', () => {
    it('30 permissions on one key, shuffled range ends: past 12 Go sorts with pdqsort', async () => {
      const rng = new Prng(7)
      const ends = Array.from({ length: 30 }, (_, i) => `k${String(i).padStart(2, '0')}`)
      for (let i = ends.length - 1; i > 0; i--) {
        const j = rng.int(i + 1)
        ;[ends[i], ends[j]] = [ends[j] as string, ends[i] as string]
      }
      await grantBoth('same', ends.map((e) => p('READ', 'k', e)))
    })

    it('60 permissions on two keys around a third (partitions with many duplicates)', async () => {
      const rng = new Prng(11)
      const perms = Array.from({ length: 60 }, (_, i) => p(rng.pick(['READ', 'WRITE', 'READWRITE'] as const), rng.pick(['a', 'b', 'b', 'c']), `z${i}`))
      await grantBoth('dups', perms)
    })

    it('a re-grant updates the first permission with that key, or adds a duplicate', async () => {
      await grantBoth('regrant', [p('READ', 'a', 'c'), p('READ', 'a', 'b'), p('WRITE', 'a', 'c'), p('WRITE', 'a', 'b'), p('READWRITE', 'a', 'b')])
    })
  })

  describe('permission checks on random permission sets', () => {
    const ALPHA = ['a', 'b', 'c', 'd']
    const randKey = (rng: Prng, minLen: number): string => {
      let s = ''
      const n = rng.between(minLen, 2)
      for (let i = 0; i < n; i++) s += rng.pick(ALPHA)
      return s
    }
    const randEnd = (rng: Prng): string => rng.weighted([[2, ''], [1, '\0'], [5, randKey(rng, 1)]])
    const randPerm = (rng: Prng): Permission =>
      p(rng.pick(['READ', 'WRITE', 'READWRITE'] as const), rng.chance(0.1) ? '' : randKey(rng, 1), randEnd(rng))

    interface Round {
      readonly name: string
      readonly roles: ReadonlyArray<readonly Permission[]>
      readonly queries: ReadonlyArray<{ key: string; end: string; access: AccessType }>
    }

    const fixed: Round = {
      name: 'fixed: [b, e) and [a, g) from two roles, inverted [f, a): pruned by the tree (denied)',
      roles: [[p('READ', 'b', 'e')], [p('READ', 'a', 'g')]],
      queries: [
        { key: 'f', end: 'a', access: 'READ' },
        { key: 'c', end: 'a', access: 'READ' },
        { key: 'f', end: 'g', access: 'READ' },
        { key: 'a', end: 'g', access: 'READ' },
      ],
    }
    const random = (seed: number): Round => {
      const rng = new Prng(seed)
      const roles = Array.from({ length: rng.between(1, 3) }, () => Array.from({ length: rng.between(1, 5) }, () => randPerm(rng)))
      const queries = Array.from({ length: 30 }, (_, i) => {
        const access: AccessType = i % 3 === 2 ? 'WRITE' : 'READ'
        return { key: randKey(rng, 1), end: randEnd(rng), access }
      })
      return { name: `seed ${seed}`, roles, queries }
    }
    const rounds = [fixed, ...seedsFromEnv('AUTH_REF_SEEDS', [1, 2, 3, 4, 5, 6]).map(random)]

    for (const [n, round] of rounds.entries()) {
      it(round.name, async () => {
        const user = `u${n}`
        const roleNames = round.roles.map((_, i) => `q${n}-${i}`)
        await admin('UserAdd', { name: user, password: 'pw' })
        for (const [i, perms] of round.roles.entries()) {
          await grantBoth(roleNames[i] as string, perms)
          await admin('UserGrantRole', { user, role: roleNames[i] })
        }
        const token = (await call(auth, 'Authenticate', { name: user, password: 'pw' }))['token'] as string

        // Our cache, fed what etcd stored: the user's roles as etcd lists them, each role's perms in etcd's order.
        const stored = new Map<string, Role>()
        for (const r of roleNames) stored.set(r, { name: r, keyPermission: await etcdRolePerms(r) })
        const u: User = { name: user, password: '', roles: (await admin('UserGet', { name: user }))['roles'] as string[], noPassword: false }
        const cache = new RangePermCache()
        cache.refresh([u], (r) => stored.get(r))

        const problems: string[] = []
        for (const q of round.queries) {
          const req = { key: enc(q.key), range_end: enc(q.end) }
          let etcdOk: boolean
          try {
            if (q.access === 'READ') await call(kv, 'Range', { ...req, serializable: true }, token)
            else await call(kv, 'DeleteRange', req, token)
            etcdOk = true
          } catch (e) {
            assert.equal((e as grpc.ServiceError).code, grpc.status.PERMISSION_DENIED, String(e))
            etcdOk = false
          }
          const ours = cache.isRangeOpPermitted(user, enc(q.key), enc(q.end), q.access)
          if (ours !== etcdOk) problems.push(`${q.access} ${JSON.stringify(q.key)}..${JSON.stringify(q.end)}: etcd ${etcdOk}, ours ${ours}`)
        }
        const perms = round.roles.map((ps) => ps.map(showPerm).join(', '))
        assert.deepEqual(problems, [], `roles: ${perms.join(' | ')}`)
      })
    }
  })
})
