// Informer benchmarks. On the embedded Etcd (in memory): event throughput from put() to a handler, the
// initial sync of N keys, and the heap an informer's cache costs per small object. Over gRPC, against the
// etcdlite command in a child process: the initial sync of N keys by an informer through connect(),
// side by side with the etcd3 npm client's getAll() plus a watch, each with its time and client heap per
// cached object. Prints one line each.
//   node --expose-gc build/bench/informer.js [--events 20000] [--sync 100000] [--page 500] [--memory 1000000] [--grpc 100000]
// Run with --expose-gc for steadier memory figures.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { Etcd3 } from 'etcd3'
import { connect, openEtcd, SharedInformer, type Etcd, type EtcdClient } from '../src/index.js'
import { ETCDLITE_BIN } from '../test/helpers/processes.js'

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`)
  return i < 0 ? dflt : Number(process.argv[i + 1])
}

const enc = new TextEncoder()
const decode = (v: Uint8Array): { v: string } => ({ v: Buffer.from(v).toString() })

async function fill(etcd: Etcd | EtcdClient, prefix: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 128) {
    const success = []
    for (let j = i; j < Math.min(n, i + 128); j++) success.push({ type: 'put' as const, request: { key: enc.encode(`${prefix}${j}`), value: enc.encode(`v${j}`) } })
    await etcd.txn({ success })
  }
}

function heapMiB(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed / 2 ** 20
}

async function events(n: number): Promise<void> {
  const etcd = await openEtcd({ memory: true })
  let seen = 0
  let resolve!: () => void
  const all = new Promise<void>((r) => (resolve = r))
  const inf = new SharedInformer(etcd, { prefix: 'e/', decode }).start()
  inf.addEventHandler({ onAdd: () => void (++seen === n && resolve()), onUpdate: () => void (++seen === n && resolve()) })
  await inf.synced
  const t0 = performance.now()
  // Eight writers in flight, as a busy client would have.
  await Promise.all(Array.from({ length: 8 }, async (_, w) => {
    for (let i = w; i < n; i += 8) await etcd.put({ key: `e/${i % 1000}`, value: `v${i}` })
  }))
  await all
  const s = (performance.now() - t0) / 1000
  console.log(`events: ${n} puts -> handler in ${s.toFixed(2)} s = ${Math.round(n / s)} events/s`)
  await inf.stop()
  await etcd.close()
}

async function sync(n: number): Promise<void> {
  const etcd = await openEtcd({ memory: true })
  await fill(etcd, 's/', n)
  const t0 = performance.now()
  const pageSize = arg('page', 500)
  const inf = new SharedInformer(etcd, { prefix: 's/', decode, pageSize }).start()
  await inf.synced
  const s = (performance.now() - t0) / 1000
  console.log(`initial sync: ${n} keys in ${s.toFixed(2)} s = ${Math.round(n / s)} keys/s (pages of ${pageSize})`)
  await inf.stop()
  await etcd.close()
}

async function memory(n: number): Promise<void> {
  const etcd = await openEtcd({ memory: true })
  await fill(etcd, 'm/', n)
  const before = heapMiB()
  const inf = new SharedInformer(etcd, { prefix: 'm/', decode, pageSize: 10_000 }).start()
  await inf.synced
  const after = heapMiB()
  console.log(`memory: ${n} cached objects ({ v: string }, keys ~9 bytes) = ${(after - before).toFixed(0)} MiB heap, ${Math.round(((after - before) * 2 ** 20) / n)} bytes/object`)
  await inf.stop()
  await etcd.close()
}

/** The etcdlite command on a free port (in memory), and its client address once it serves. */
async function startServer(): Promise<{ endpoint: string; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, [ETCDLITE_BIN, '--memory', '--listen-client-urls', 'http://127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] })
  const lines = createInterface({ input: proc.stderr })
  let endpoint: string | undefined
  for await (const line of lines) {
    endpoint = line.includes('serving client traffic') ? /"address":"([^"]+)"/.exec(line)?.[1] : undefined
    if (endpoint !== undefined) break
  }
  if (endpoint === undefined) throw new Error('etcdlite did not start')
  lines.on('line', () => undefined)
  return {
    endpoint,
    stop: async () => {
      proc.kill('SIGTERM')
      await once(proc, 'exit')
    },
  }
}

async function grpcSync(n: number): Promise<void> {
  const server = await startServer()
  try {
    const writer = await connect({ endpoints: [server.endpoint] })
    await fill(writer, 'g/', n)
    await writer.close()
    const pageSize = arg('page', 500)
    {
      const before = heapMiB()
      const t0 = performance.now()
      const client = await connect({ endpoints: [server.endpoint] })
      const inf = new SharedInformer(client, { prefix: 'g/', decode, pageSize }).start()
      await inf.synced
      const s = (performance.now() - t0) / 1000
      const bytes = ((heapMiB() - before) * 2 ** 20) / n
      console.log(`grpc sync, informer over connect(): ${n} keys in ${s.toFixed(2)} s (pages of ${pageSize}), ${Math.round(bytes)} bytes of client heap per cached object`)
      await inf.stop()
      await client.close()
    }
    {
      const before = heapMiB()
      const t0 = performance.now()
      const client = new Etcd3({ hosts: `http://${server.endpoint}` })
      // What users of the etcd3 client write for a cache: every key at once, then a watch for the changes.
      const all = await client.getAll().prefix('g/').buffers()
      const cache = new Map(Object.entries(all).map(([k, v]) => [k, decode(v)]))
      const watcher = await client.watch().prefix('g/').create()
      watcher.on('put', (kv) => cache.set(kv.key.toString(), decode(kv.value)))
      const s = (performance.now() - t0) / 1000
      const bytes = ((heapMiB() - before) * 2 ** 20) / n
      console.log(`grpc sync, etcd3 getAll() + watch: ${cache.size} keys in ${s.toFixed(2)} s, ${Math.round(bytes)} bytes of client heap per cached object`)
      await watcher.cancel()
      client.close()
    }
  } finally {
    await server.stop()
  }
}

// The embedded server's timers do not keep the process alive; this does, until the runs are over.
const alive = setInterval(() => undefined, 1000)
await events(arg('events', 20_000))
await sync(arg('sync', 100_000))
await memory(arg('memory', 1_000_000))
await grpcSync(arg('grpc', 100_000))
clearInterval(alive)
