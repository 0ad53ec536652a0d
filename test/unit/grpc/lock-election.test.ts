// The Lock and Election gRPC handlers (src/grpc/lock.ts, election.ts, concurrency-call.ts) on a grpc-js server
// of their own over an in-process EtcdServer: a waiting Lock whose client cancels withdraws its key; ending
// the long-lived calls (shutdown) fails a waiting Lock, a waiting Campaign and an open Observe with
// UNAVAILABLE "etcdserver: server stopped" and withdraws the waiters; after that, new long calls are refused.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as grpc from '@grpc/grpc-js'
import { EtcdServer } from '../../../src/etcdserver/etcd-server.js'
import { loadEtcdProto } from '../../../src/grpc/proto.js'
import { lockHandlers } from '../../../src/grpc/lock.js'
import { electionHandlers } from '../../../src/grpc/election.js'
import { WatchCalls } from '../../../src/grpc/watch.js'
import { until } from '../../helpers/until.js'
import { memoryBackend } from '../../helpers/memory-backend.js'

type Cb = (e: grpc.ServiceError | null, r?: Record<string, unknown>) => void
type UnaryFn = (req: object, cb: Cb) => grpc.ClientUnaryCall

interface Rig {
  readonly server: EtcdServer
  readonly calls: WatchCalls
  readonly call: (client: grpc.Client, method: string, req: object) => { call: grpc.ClientUnaryCall; result: Promise<Record<string, unknown>> }
  readonly lock: grpc.Client
  readonly election: grpc.Client
  readonly grant: () => Promise<bigint>
  /** How many keys are under `prefix`. */
  readonly count: (prefix: string) => number
}

async function withRig(fn: (r: Rig) => Promise<void>): Promise<void> {
  const be = await memoryBackend()
  const server = await EtcdServer.open(be)
  const reported: unknown[] = []
  const report = (e: unknown): void => void reported.push(e)
  const calls = new WatchCalls()
  const proto = loadEtcdProto()
  const gs = new grpc.Server()
  gs.addService(proto.v3lockpb.Lock.service, lockHandlers(proto.v3lockpb.Lock.service, server, report, calls))
  gs.addService(proto.v3electionpb.Election.service, electionHandlers(proto.v3electionpb.Election.service, server, report, calls))
  const port = await new Promise<number>((resolve, reject) =>
    gs.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e === null ? resolve(p) : reject(e))))
  const ep = `127.0.0.1:${port}`
  const lock = new proto.v3lockpb.Lock(ep, grpc.credentials.createInsecure())
  const election = new proto.v3electionpb.Election(ep, grpc.credentials.createInsecure())
  const call: Rig['call'] = (client, method, req) => {
    const f = (client as unknown as Record<string, UnaryFn>)[method]
    assert.ok(f !== undefined)
    let c: grpc.ClientUnaryCall | undefined
    const result = new Promise<Record<string, unknown>>((resolve, reject) => {
      c = f.call(client, req, (e, r) => (e === null ? resolve(r ?? {}) : reject(e)))
    })
    result.catch(() => undefined)
    assert.ok(c !== undefined)
    return { call: c, result }
  }
  const count = (prefix: string): number =>
    server.kvService.range({ key: Buffer.from(prefix), rangeEnd: Buffer.from(prefix.slice(0, -1) + '0'), countOnly: true }).count
  try {
    await fn({ server, calls, call, lock, election, grant: async () => (await server.leaseService.leaseGrant({ ttl: 60 })).id, count })
    await until(() => server.watchable.streamCount() === 0, 'every watch stream closed')
  } finally {
    lock.close()
    election.close()
    gs.forceShutdown()
    await server.close()
  }
  assert.deepEqual(reported, [])
}

const stopped = (e: unknown): boolean => {
  const err = e as grpc.ServiceError
  return err.code === grpc.status.UNAVAILABLE && err.details === 'etcdserver: server stopped'
}

describe('Lock and Election handlers: long calls end', () => {
  it('a waiting Lock canceled by its client withdraws its key; the holder keeps the lock', async () => {
    await withRig(async ({ server, call, lock, grant, count }) => {
      await call(lock, 'Lock', { name: Buffer.from('m'), lease: String(await grant()) }).result
      const w = call(lock, 'Lock', { name: Buffer.from('m'), lease: String(await grant()) })
      await until(() => count('m/') === 2 && server.watchable.streamCount() === 1, 'the second locker waiting')
      w.call.cancel()
      await assert.rejects(w.result, (e: unknown) => (e as grpc.ServiceError).code === grpc.status.CANCELLED)
      await until(() => count('m/') === 1, 'the canceled waiter key deleted')
    })
  })

  it('shutdown fails a waiting Lock, a waiting Campaign and an open Observe with UNAVAILABLE and withdraws the waiters', async () => {
    await withRig(async ({ server, calls, call, lock, election, grant, count }) => {
      await call(lock, 'Lock', { name: Buffer.from('m'), lease: String(await grant()) }).result
      const wl = call(lock, 'Lock', { name: Buffer.from('m'), lease: String(await grant()) })
      await call(election, 'Campaign', { name: Buffer.from('e'), lease: String(await grant()), value: Buffer.from('a') }).result
      const wc = call(election, 'Campaign', { name: Buffer.from('e'), lease: String(await grant()), value: Buffer.from('b') })
      const seen: unknown[] = []
      const obs = (election as unknown as { Observe: (r: object) => grpc.ClientReadableStream<unknown> }).Observe({ name: Buffer.from('e') })
      const obsEnd = new Promise<unknown>((resolve) => obs.on('error', resolve))
      obs.on('data', (d: unknown) => seen.push(d))
      await until(() => seen.length === 1 && server.watchable.streamCount() === 3, 'two waiters and an observer')
      calls.endAll()
      await assert.rejects(wl.result, stopped)
      await assert.rejects(wc.result, stopped)
      assert.ok(stopped(await obsEnd))
      await until(() => count('m/') === 1 && count('e/') === 1, 'the waiters withdrawn')
      await assert.rejects(call(lock, 'Lock', { name: Buffer.from('n'), lease: String(await grant()) }).result, stopped)
    })
  })
})
