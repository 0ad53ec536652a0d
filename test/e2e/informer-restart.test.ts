// Resume without relist over a process restart: 10,000 keys cached by informers talking gRPC to a server
// process (the etcdlite CLI, and the real etcd), killed by SIGKILL or stopped by SIGTERM and started again
// on the same data directory (on a new port) while writes continue. Each informer ends with a cache equal
// to a fresh range, after exactly one list and zero spurious events.
//
// The informers reach the server through GrpcTestSource (test/helpers/grpc-source.ts); once the package has
// its remote client, `source()` below is the one line to change: `connect()` to the current endpoint.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { SharedInformer } from '../../src/informer/shared-informer.js'
import { toPbPut, toPbTxn } from '../compliance/adapters/pb.js'
import { GrpcTestSource } from '../helpers/grpc-source.js'
import { assertSameState, cacheOf, freshRange, objDecoder, Recorder, type Obj } from '../helpers/informer.js'
import { etcdServing, haveEtcd, referenceEtcdArgs, startEtcdliteProcess, type ServerProcess } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'
import { until } from '../helpers/until.js'

const KEYS = 10_000
const enc = (s: string): Uint8Array => Buffer.from(s)
const k = (i: number): string => `r/${String(i).padStart(6, '0')}`

/** A server process on a data directory that survives restarts. */
interface Restartable {
  endpoint: string
  restart(signal: NodeJS.Signals): Promise<void>
  dispose(): Promise<void>
}

async function etcdlite(): Promise<Restartable> {
  const dir = await tempDir('informer-e2e-')
  let p: ServerProcess = await startEtcdliteProcess({ dataDir: dir.path })
  const s: Restartable = {
    endpoint: p.endpoint,
    restart: async (signal) => {
      await p.stop(signal)
      p = await startEtcdliteProcess({ dataDir: dir.path })
      s.endpoint = p.endpoint
    },
    dispose: async () => {
      await p.stop('SIGKILL')
      await dir.remove()
    },
  }
  return s
}

async function realEtcd(): Promise<Restartable> {
  const dir = await tempDir('informer-e2e-etcd-')
  const start = async (): Promise<{ proc: ChildProcess; endpoint: string }> => {
    const proc = spawn('etcd', referenceEtcdArgs(dir.path), { stdio: ['ignore', 'ignore', 'pipe'] })
    try {
      return { proc, endpoint: await etcdServing(proc, 20_000) }
    } catch (e) {
      proc.kill('SIGKILL')
      throw e
    }
  }
  const stop = async (proc: ChildProcess, signal: NodeJS.Signals): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return
    proc.kill(signal)
    await once(proc, 'exit')
  }
  let cur = await start()
  const s: Restartable = {
    endpoint: cur.endpoint,
    restart: async (signal) => {
      await stop(cur.proc, signal)
      cur = await start()
      s.endpoint = cur.endpoint
    },
    dispose: async () => {
      await stop(cur.proc, 'SIGKILL')
      await dir.remove()
    },
  }
  return s
}

/** The informers' way to the server: replace with the remote client's connect() once it exists. */
function source(server: Restartable): GrpcTestSource {
  return new GrpcTestSource(() => server.endpoint)
}

async function scenario(server: Restartable, signal: NodeJS.Signals): Promise<void> {
  const src = source(server)
  const writes = new GrpcTestSource(() => server.endpoint)
  try {
    for (let i = 0; i < KEYS; i += 100) {
      const success = Array.from({ length: 100 }, (_, j) => ({ type: 'put' as const, request: { key: enc(k(i + j)), value: enc(`v${i + j}`) } }))
      await writes.kv().Txn(toPbTxn({ success }))
    }
    const informers = [500, 1000].map((pageSize) => {
      const rec = new Recorder()
      const inf = new SharedInformer<Obj>(src, { prefix: 'r/', decode: objDecoder, pageSize, retryInitialMs: 20, retryMaxMs: 200, onError: () => undefined })
      inf.addEventHandler(rec.handler)
      return { inf: inf.start(), rec }
    })
    await Promise.all(informers.map((x) => x.inf.synced))
    let writing = true
    let written = 0
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        try {
          await writes.kv().Put(toPbPut({ key: enc(k((n * 7919) % (KEYS + 500))), value: enc(`w${n}`) }))
          written++
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
    })()
    await until(() => written >= 100, 'writes before the restart', 20_000)
    await server.restart(signal)
    const before = written
    await until(() => written >= before + 100, 'writes after the restart', 30_000)
    writing = false
    await writer
    const want = await freshRange(writes, enc('r/'), enc('r0'))
    const rev = (await writes.range({ key: enc('r/'), rangeEnd: enc('r0'), limit: 1, revision: 0 })).header.revision
    for (const { inf, rec } of informers) {
      await until(() => inf.revision >= rev, 'the informer catching up', 30_000)
      assertSameState(cacheOf(inf), want, 'cache')
      assertSameState(rec.view(), want, 'handler view')
      assert.equal(inf.stats.lists, 1)
      assert.ok(inf.stats.watches >= 2, `resumed after the restart (${inf.stats.watches} watches)`)
      assert.deepEqual(rec.spurious(), [])
      await inf.stop()
    }
  } finally {
    src.close()
    writes.close()
  }
}

describe('informer over a restarted server process', () => {
  for (const [name, make, skip] of [['etcdlite', etcdlite, false], ['etcd', realEtcd, !haveEtcd()]] as const) {
    for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
      it(`${name}, ${signal}: 10,000 keys, writes throughout, one list, no spurious event`, { skip: skip && 'etcd is not installed' }, async () => {
        const server = await make()
        try {
          await scenario(server, signal)
        } finally {
          await server.dispose()
        }
      })
    }
  }
})
