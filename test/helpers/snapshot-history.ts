// Random histories for the snapshot round trips (puts, deletes, txns, compactions, leases, users and
// roles, auth on or off), applied to a live server over gRPC. The server's answers are not checked here:
// the test compares the source server with the one restored from its snapshot.
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import type * as grpc from '@grpc/grpc-js'
import { startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from './processes.js'
import { Client, dumpState, passwordOf, restoreIntoEtcd, snapshotSave, snapshotStatus } from './snapshot-interop.js'
import { tempDir } from './tmp.js'

export type HistoryOp =
  | { readonly op: 'put'; readonly key: number; readonly size: number; readonly lease: number | undefined }
  | { readonly op: 'del'; readonly key: number; readonly range: boolean }
  | { readonly op: 'txn'; readonly key: number; readonly puts: readonly number[]; readonly dels: readonly number[] }
  | { readonly op: 'compact'; readonly back: number }
  | { readonly op: 'grant'; readonly ttl: number }
  | { readonly op: 'revoke'; readonly lease: number }
  | { readonly op: 'user'; readonly user: number; readonly role: number | undefined }
  | { readonly op: 'role'; readonly role: number; readonly key: number; readonly range: boolean; readonly perm: 'READ' | 'WRITE' | 'READWRITE' }

export interface History {
  readonly ops: readonly HistoryOp[]
  /** Turn auth on at the end (a root user with the root role first). */
  readonly auth: boolean
}

const KEYS = 40
const key = (n: number): Buffer => Buffer.from(`k/${String(n).padStart(3, '0')}`)
const value = (n: number, size: number): Buffer => {
  const b = Buffer.alloc(size)
  for (let i = 0; i < size; i++) b[i] = (n * 31 + i * 7) & 0xff
  return b
}

/** Key writes; `big` mixes in values larger than a page (overflow pages in bbolt). */
const kvOp = (putWeight: number, big: boolean): fc.Arbitrary<HistoryOp> => fc.oneof(
  {
    weight: putWeight,
    arbitrary: fc.record({
      op: fc.constant('put' as const),
      key: fc.nat(KEYS - 1),
      size: big ? fc.oneof({ weight: 6, arbitrary: fc.nat(64) }, { weight: 1, arbitrary: fc.constantFrom(5000, 70_000) }) : fc.nat(64),
      // Mostly without a lease: a put naming a revoked lease fails, and the long history needs its revisions.
      lease: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat(9) }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('del' as const), key: fc.nat(KEYS - 1), range: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('txn' as const), key: fc.nat(KEYS - 1), puts: fc.array(fc.nat(KEYS - 1), { maxLength: 3 }), dels: fc.array(fc.nat(KEYS - 1), { maxLength: 2 }) }) },
)

const otherOp: fc.Arbitrary<HistoryOp> = fc.oneof(
  fc.record({ op: fc.constant('compact' as const), back: fc.nat(20) }),
  fc.record({ op: fc.constant('grant' as const), ttl: fc.integer({ min: 100, max: 100_000 }) }),
  fc.record({ op: fc.constant('revoke' as const), lease: fc.nat(9) }),
  fc.record({ op: fc.constant('user' as const), user: fc.nat(2), role: fc.option(fc.nat(2), { nil: undefined }) }),
  fc.record({ op: fc.constant('role' as const), role: fc.nat(2), key: fc.nat(KEYS - 1), range: fc.boolean(), perm: fc.constantFrom('READ' as const, 'WRITE' as const, 'READWRITE' as const) }),
)

/** A history of up to `maxOps` operations, mostly writes to keys. */
export function historyArb(maxOps: number): fc.Arbitrary<History> {
  return fc.record({
    ops: fc.array(fc.oneof({ weight: 4, arbitrary: kvOp(6, true) }, { weight: 1, arbitrary: otherOp }), { minLength: 1, maxLength: maxOps }),
    auth: fc.boolean(),
  })
}

/** A long history: `n` operations, nearly all small key writes, with a few compactions and leases among them. */
export function longHistory(n: number, seed: number): History {
  const ops = fc.sample(fc.oneof({ weight: 200, arbitrary: kvOp(16, false) }, { weight: 1, arbitrary: otherOp }), { seed, numRuns: n })
  return { ops: ops, auth: true }
}

/**
 * Apply a history to the server at `endpoint`; requests the server refuses (a revoked lease, a compacted
 * revision, a user that exists) are part of the history too. Key writes run up to `window` at a time
 * (their order is then the server's); the other operations wait for those in flight.
 */
export async function applyHistory(endpoint: string, h: History, window = 1): Promise<void> {
  const c = new Client(endpoint)
  const leases: string[] = []
  const inflight = new Set<Promise<unknown>>()
  const settle = (p: Promise<unknown>): Promise<unknown> => p.catch((e: unknown) => {
    if ((e as grpc.ServiceError).code === undefined) throw e
  })
  const barrier = async (): Promise<void> => {
    await Promise.all(inflight)
  }
  const leaseOf = (n: number | undefined): string => (n === undefined || leases.length === 0 ? '0' : (leases[n % leases.length] as string))
  try {
    for (const [i, o] of h.ops.entries()) {
      let p: Promise<unknown>
      switch (o.op) {
        case 'put':
          p = c.call('KV', 'Put', { key: key(o.key), value: value(i, o.size), lease: leaseOf(o.lease) })
          break
        case 'del':
          p = c.call('KV', 'DeleteRange', o.range ? { key: key(o.key), range_end: key(o.key + 5) } : { key: key(o.key) })
          break
        case 'txn':
          p = c.call('KV', 'Txn', {
            compare: [{ key: key(o.key), target: 'MOD', result: 'GREATER', mod_revision: 0 }],
            success: o.puts.map((k, j) => ({ request_put: { key: key(k), value: value(i + j, 10) } })),
            failure: o.dels.map((k) => ({ request_delete_range: { key: key(k) } })),
          })
          break
        case 'compact':
        case 'grant':
        case 'revoke':
        case 'user':
        case 'role':
          await barrier()
          p = other(c, o, leases)
      }
      const tracked = settle(p).finally(() => inflight.delete(tracked))
      inflight.add(tracked)
      if (inflight.size >= window) await Promise.race(inflight)
    }
    await barrier()
    if (h.auth) {
      for (const [m, req] of [['UserAdd', { name: 'root', password: passwordOf('root') }], ['UserGrantRole', { user: 'root', role: 'root' }], ['AuthEnable', {}]] as const) {
        await settle(c.call('Auth', m, req))
      }
    }
  } finally {
    c.close()
  }
}

async function other(c: Client, o: HistoryOp, leases: string[]): Promise<unknown> {
  switch (o.op) {
    case 'compact': {
      const rev = Number(((await c.call('KV', 'Range', { key: key(0) }))['header'] as Record<string, unknown>)['revision'])
      return c.call('KV', 'Compact', { revision: Math.max(1, rev - o.back) })
    }
    case 'grant': {
      const r = await c.call('Lease', 'LeaseGrant', { TTL: o.ttl })
      leases.push(String(r['ID']))
      return r
    }
    case 'revoke':
      return leases.length === 0 ? undefined : c.call('Lease', 'LeaseRevoke', { ID: leases[o.lease % leases.length] })
    case 'user': {
      const name = `u${o.user}`
      await c.call('Auth', 'UserAdd', { name, password: passwordOf(name) }).catch(() => undefined)
      return o.role === undefined ? undefined : c.call('Auth', 'UserGrantRole', { user: name, role: `r${o.role}` })
    }
    case 'role': {
      const name = `r${o.role}`
      await c.call('Auth', 'RoleAdd', { name }).catch(() => undefined)
      return c.call('Auth', 'RoleGrantPermission', {
        name, perm: { permType: o.perm, key: key(o.key), range_end: o.range ? key(o.key + 3) : Buffer.alloc(0) },
      })
    }
    case 'put':
    case 'del':
    case 'txn':
      return undefined
  }
}

export interface Moved {
  /** The source server's state before the snapshot, and the restored server's. */
  readonly source: unknown
  readonly restored: unknown
  /** etcdctl snapshot status of the file. */
  readonly status: { readonly revision: number; readonly totalKey: number; readonly totalSize: number }
  readonly fileSize: number
}

/**
 * Apply `h` to a fresh etcdlite, save a snapshot with etcdctl, restore it with etcdctl into the real etcd;
 * `then` runs against the restored etcd after it was compared.
 */
export async function etcdliteToEtcd(h: History, window = 1, then?: (endpoint: string) => Promise<void>): Promise<Moved> {
  return move(h, window, () => startEtcdliteProcess({ memory: true }), (file) => restoreIntoEtcd(file), then)
}

/** Apply `h` to a fresh real etcd, save a snapshot with etcdctl, start etcdlite from it (--restore-snapshot). */
export async function etcdToEtcdlite(h: History, window = 1): Promise<Moved> {
  return move(h, window, () => startReferenceEtcd(), (file) => startEtcdliteProcess({ memory: true, args: ['--restore-snapshot', file] }))
}

async function move(
  h: History,
  window: number,
  source: () => Promise<ServerProcess>,
  target: (file: string) => Promise<ServerProcess>,
  then?: (endpoint: string) => Promise<void>,
): Promise<Moved> {
  const dir = await tempDir('snapshot-move-')
  const src = await source()
  let dst: ServerProcess | undefined
  try {
    await applyHistory(src.endpoint, h, window)
    const before = await dumpState(src.endpoint, h.auth)
    const file = join(dir.path, 'snap.db')
    await snapshotSave(src.endpoint, file, h.auth)
    await src.dispose()
    const status = await snapshotStatus(file)
    dst = await target(file)
    const after = await dumpState(dst.endpoint, h.auth)
    await then?.(dst.endpoint)
    return { source: before, restored: after, status, fileSize: (await stat(file)).size }
  } finally {
    await src.dispose()
    await dst?.dispose()
    await dir.remove()
  }
}
