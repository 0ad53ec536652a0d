// Informer benchmarks on the embedded Etcd (in memory): event throughput from put() to a handler, the
// initial sync of N keys, and the heap an informer's cache costs per small object. Prints one line each.
//   node build/bench/informer.js [--events 20000] [--sync 100000] [--page 500] [--memory 1000000]
// Run with --expose-gc for steadier memory figures.
import { openEtcd, SharedInformer, type Etcd } from '../src/index.js'

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`)
  return i < 0 ? dflt : Number(process.argv[i + 1])
}

const enc = new TextEncoder()
const decode = (v: Uint8Array): { v: string } => ({ v: Buffer.from(v).toString() })

async function fill(etcd: Etcd, prefix: string, n: number): Promise<void> {
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

// The embedded server's timers do not keep the process alive; this does, until the runs are over.
const alive = setInterval(() => undefined, 1000)
await events(arg('events', 20_000))
await sync(arg('sync', 100_000))
await memory(arg('memory', 1_000_000))
clearInterval(alive)
