// The embedded API's throughput, in-process: put and single-key range on openEtcd({ memory: true }), and
// put on a data dir on disk with the default durability (each put resolves once its commit is synced).
// Each measurement keeps `inFlight` requests outstanding for --seconds; the keys and values are those of
// the gRPC workloads (random keys of a space of 100,000, 256-byte values). Prints one JSON line each:
//   node build/bench/node/embedded.js [--seconds 2] [--round 1]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { openEtcd, type Etcd } from '../../src/index.js'
import type { EmbeddedRecord } from '../lib/records.js'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' }, round: { type: 'string', default: '1' } } })
const seconds = Number(values.seconds)
const round = Number(values.round)
if (!(seconds > 0) || !Number.isInteger(round)) throw new TypeError('--seconds must be > 0 and --round an integer')

const value = new Uint8Array(256).fill(0x61)
const enc = new TextEncoder()
const keys = Array.from({ length: 100_000 }, (_, i) => enc.encode(`key-${i}`))
const rangeKey = enc.encode('bench-range-key')

function request(op: EmbeddedRecord['op'], etcd: Etcd): Promise<unknown> {
  return op === 'put'
    ? etcd.put({ key: keys[Math.floor(Math.random() * keys.length)] ?? rangeKey, value })
    : etcd.range({ key: rangeKey })
}

/** Requests completed per second with `inFlight` loops, each one request at a time, for `s` seconds. */
async function drive(etcd: Etcd, op: EmbeddedRecord['op'], inFlight: number, s: number): Promise<number> {
  let done = 0
  const t0 = performance.now()
  const end = t0 + s * 1000
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (performance.now() < end) {
      await request(op, etcd)
      done++
    }
  }))
  return done / ((performance.now() - t0) / 1000)
}

function emit(r: Omit<EmbeddedRecord, 'type' | 'round'>): void {
  const rec: EmbeddedRecord = { type: 'embedded', round, ...r }
  process.stdout.write(`${JSON.stringify(rec)}\n`)
}

// The embedded server's timers do not keep the process alive; this does, until the runs are over.
const alive = setInterval(() => undefined, 1000)
const mem = await openEtcd({ memory: true })
await mem.put({ key: rangeKey, value })
// Unmeasured: V8 optimizes the hot paths only after they have run for a while.
await drive(mem, 'put', 16, Math.min(1, seconds))
await drive(mem, 'range', 16, Math.min(1, seconds))
for (const op of ['put', 'range'] as const) {
  for (const inFlight of [1, 16]) emit({ op, storage: 'memory', inFlight, opsPerSec: await drive(mem, op, inFlight, seconds) })
}
await mem.close()

const dir = mkdtempSync(join(tmpdir(), 'etcdlite-embedded-'))
try {
  const disk = await openEtcd({ dataDir: join(dir, 'data') })
  for (const inFlight of [1, 16]) emit({ op: 'put', storage: 'disk', inFlight, opsPerSec: await drive(disk, 'put', inFlight, seconds) })
  await disk.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
  clearInterval(alive)
}
