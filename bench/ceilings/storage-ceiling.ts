// The storage ceiling: raw classic-level writes of exactly the records etcdlite writes for a put, with the
// batch API exactly as src/backend/level-backend.ts uses it (one chained batch per commit, at most one in
// flight), in batches of 1, 16, 128 and 1024 puts, synced and not. No index, no gRPC: what LevelDB on this
// disk can take at most.
//
// A put writes one record (src/mvcc/kvstore-txn.ts): key = the `key` bucket's prefix byte + the 17-byte
// revision {main: rev, sub: 0}; value = the encoded mvccpb.KeyValue {key, create_revision, mod_revision,
// version, value}. etcdlite writes no per-commit meta record (no consistent index: the revision is the
// index), so a batch of B puts is B records with B consecutive revisions, as a group commit of B puts is.
//
//   node build/bench/ceilings/storage-ceiling.js [--seconds 3] [--warmup 0] [--batches 1,16,128,1024]
//     [--sync both|true|false] [--key-size 16] [--value-size 64] [--key-space 100000] [--dir /tmp] [--json]
// prints one JSON line per row (`"type":"storage-ceiling"`) and a table; with --json one JSON object
// {rows: [...]} and nothing else on stdout (for runStorageCeiling). Progress goes to stderr.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { AbstractChainedBatchWriteOptions } from 'abstract-level'
import { ClassicLevel } from 'classic-level'
import { BUCKET_PREFIX } from '../../src/backend/schema.js'
import { encodeKeyValue } from '../../src/mvcc/kv-codec.js'
import { revToBytes } from '../../src/mvcc/revision.js'
import { LoadProcess } from '../lib/child.js'
import { quantile, SampleBuffer } from '../lib/stats.js'
import { fmt, printRows } from '../lib/table.js'
import { numberArg } from '../lib/args.js'

export const STORAGE_BATCH_SIZES: readonly number[] = [1, 16, 128, 1024]

export interface StorageCeilingParams {
  /** Measured seconds per row. */
  readonly seconds: number
  /** Unmeasured seconds of the same writes before each row's window (default 0). */
  readonly warmupSeconds?: number
  /** Puts per batch, one row each (default STORAGE_BATCH_SIZES). */
  readonly batchSizes?: readonly number[]
  /** `sync` values, one row each per batch size (default [true, false]: etcdlite's durable default, then --unsafe-no-fsync). */
  readonly syncModes?: readonly boolean[]
  readonly keySize: number
  readonly valueSize: number
  /** Distinct user keys the puts cycle through (they only shape the values: create_revision and version). */
  readonly keySpace: number
  /** Where each row's temp database goes (default os.tmpdir(), where bench/lib/servers.ts puts etcdlite's data dir). */
  readonly dir?: string
}

/** One batch size and sync mode. */
export interface StorageCeilingRow {
  readonly batchSize: number
  readonly sync: boolean
  readonly batches: number
  readonly puts: number
  /** Measured wall time, from the first measured batch's start to the last one's completion. */
  readonly seconds: number
  readonly putsPerSec: number
  readonly batchesPerSec: number
  /**
   * Batch latency, ms: from the first record put into the chained batch (records are encoded as they are
   * added, as etcdlite's txns do) until `write()` resolves.
   */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  /** CPU of the process (main thread and LevelDB's threads) over the window: % of one core, µs per put. */
  readonly cpuPct: number
  readonly cpuUsPerPut: number | null
  /** Stored key + value bytes per put. */
  readonly bytesPerPut: number
}

type Db = ClassicLevel<Uint8Array, Uint8Array>

/** The stored key, as level-backend.ts's prefixed('key', revToBytes(rev)). */
function storedRevKey(main: number): Buffer {
  const rev = revToBytes({ main, sub: 0 })
  const out = Buffer.allocUnsafe(rev.length + 1)
  out[0] = BUCKET_PREFIX.key
  out.set(rev, 1)
  return out
}

function makeKey(index: number, size: number): Buffer {
  const digits = String(index)
  if (digits.length + 1 > size) throw new Error(`key size ${size} is too small for key index ${index}`)
  return Buffer.from('p' + digits.padStart(size - 1, '0'), 'latin1')
}

/** Stops a measurement early (SIGTERM in the CLI). */
export interface StopSignal {
  readonly aborted: boolean
}

async function measureRow(p: StorageCeilingParams, batchSize: number, sync: boolean, stop: StopSignal): Promise<StorageCeilingRow> {
  const dir = mkdtempSync(join(p.dir ?? tmpdir(), 'etcdlite-storage-ceiling-'))
  const db: Db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' })
  try {
    await db.open()
    const keys = Array.from({ length: p.keySpace }, (_, i) => makeKey(i, p.keySize))
    const value = Buffer.alloc(p.valueSize, 0x61)
    // As level-backend.ts's flush(): classic-level honours `sync`.
    const options: AbstractChainedBatchWriteOptions & { sync?: boolean } = { sync }
    const samples = new SampleBuffer()
    // Revision 1 is the empty store's; every put takes the next one.
    let rev = 1
    let puts = 0
    let bytes = 0
    const t0 = performance.now()
    const start = t0 + (p.warmupSeconds ?? 0) * 1000
    const end = start + p.seconds * 1000
    // The window: from the first measured batch's start to the last one's completion.
    let cpu0: NodeJS.CpuUsage | undefined
    let first = start
    let last = start
    for (;;) {
      const begin = performance.now()
      if (begin >= end || stop.aborted) break
      if (cpu0 === undefined && begin >= start) {
        cpu0 = process.cpuUsage()
        first = begin
      }
      const chain = db.batch()
      for (let i = 0; i < batchSize; i++) {
        rev++
        const n = rev - 2
        const key = keys[n % keys.length] as Buffer
        const k = storedRevKey(rev)
        const v = encodeKeyValue({
          key, value, createRevision: (n % keys.length) + 2, modRevision: rev, version: Math.floor(n / keys.length) + 1, lease: 0n,
        })
        chain.put(k, v)
        if (begin >= start) bytes += k.length + v.length
      }
      await chain.write(options)
      const done = performance.now()
      if (begin >= start) {
        samples.push(done - begin)
        puts += batchSize
        last = done
      }
    }
    const cpu = process.cpuUsage(cpu0)
    const sorted = samples.sorted()
    const seconds = (last - first) / 1000
    const cpuUs = cpu0 === undefined ? 0 : cpu.user + cpu.system
    const r3 = (x: number): number => Number(x.toFixed(3))
    return {
      batchSize, sync, batches: sorted.length, puts, seconds: r3(seconds),
      putsPerSec: Number((seconds > 0 ? puts / seconds : 0).toFixed(1)),
      batchesPerSec: Number((seconds > 0 ? sorted.length / seconds : 0).toFixed(1)),
      p50Ms: r3(quantile(sorted, 0.5)), p99Ms: r3(quantile(sorted, 0.99)), maxMs: r3(quantile(sorted, 1)),
      cpuPct: Number((seconds > 0 ? (cpuUs / 1e4) / seconds : 0).toFixed(1)),
      cpuUsPerPut: puts > 0 ? Number((cpuUs / puts).toFixed(2)) : null,
      bytesPerPut: puts > 0 ? Number((bytes / puts).toFixed(1)) : 0,
    }
  } finally {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Measure every (sync mode, batch size) row in this process, each on a fresh database in a fresh temp dir
 * that is removed afterwards. Rows run one after another; `onRow` sees each as it completes.
 */
export async function measureStorageCeiling(p: StorageCeilingParams, stop: StopSignal = { aborted: false },
  onRow: (r: StorageCeilingRow) => void = () => undefined): Promise<StorageCeilingRow[]> {
  const rows: StorageCeilingRow[] = []
  for (const sync of p.syncModes ?? [true, false]) {
    for (const b of p.batchSizes ?? STORAGE_BATCH_SIZES) {
      if (stop.aborted) return rows
      const r = await measureRow(p, b, sync, stop)
      // A row cut short by `stop` is left out.
      if (stop.aborted) return rows
      rows.push(r)
      onRow(r)
    }
  }
  return rows
}

const SELF_JS = fileURLToPath(import.meta.url)

/**
 * Run the storage ceiling in a child process (this file's CLI with --json), so its CPU, memory and
 * LevelDB threads stay out of the caller's, and a runner's exit path kills it (bench/lib/child.ts).
 */
export async function runStorageCeiling(p: StorageCeilingParams): Promise<StorageCeilingRow[]> {
  const args = [
    '--json', '--seconds', String(p.seconds), '--warmup', String(p.warmupSeconds ?? 0),
    '--batches', (p.batchSizes ?? STORAGE_BATCH_SIZES).join(','),
    '--sync', syncArg(p.syncModes ?? [true, false]),
    '--key-size', String(p.keySize), '--value-size', String(p.valueSize), '--key-space', String(p.keySpace),
    ...(p.dir === undefined ? [] : ['--dir', p.dir]),
  ]
  const child = new LoadProcess('storage ceiling', SELF_JS, args)
  try {
    return (await child.result<{ rows: StorageCeilingRow[] }>()).rows
  } finally {
    child.kill()
  }
}

function syncArg(modes: readonly boolean[]): string {
  if (modes.length === 1) return String(modes[0])
  if (modes.length === 2 && modes[0] === true && modes[1] === false) return 'both'
  throw new Error('syncModes: [true], [false] or [true, false]')
}

// ---------------------------------------------------------------------------------------------------
// CLI

function parseCli(argv: readonly string[]): { readonly params: StorageCeilingParams; readonly json: boolean } {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seconds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '0' },
      batches: { type: 'string', default: STORAGE_BATCH_SIZES.join(',') },
      sync: { type: 'string', default: 'both' },
      'key-size': { type: 'string', default: '16' },
      'value-size': { type: 'string', default: '64' },
      'key-space': { type: 'string', default: '100000' },
      dir: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  })
  const syncModes = { both: [true, false], true: [true], false: [false] }[values.sync]
  if (syncModes === undefined) throw new Error(`--sync must be both, true or false, got ${values.sync}`)
  return {
    json: values.json,
    params: {
      seconds: numberArg('seconds', values.seconds, 0.1),
      warmupSeconds: numberArg('warmup', values.warmup, 0),
      batchSizes: values.batches.split(',').map((x) => Math.floor(numberArg('batches', x.trim(), 1))),
      syncModes,
      keySize: Math.floor(numberArg('key-size', values['key-size'], 2)),
      valueSize: Math.floor(numberArg('value-size', values['value-size'], 0)),
      keySpace: Math.floor(numberArg('key-space', values['key-space'], 1)),
      ...(values.dir === undefined ? {} : { dir: values.dir }),
    },
  }
}

async function cli(): Promise<void> {
  const { params, json } = parseCli(process.argv.slice(2))
  const stop = { aborted: false }
  // SIGTERM/SIGINT: finish the batch in flight, close the database, remove its dir, exit 143/130.
  let signalCode = 0
  const onSignal = (code: number) => (): void => {
    signalCode = code
    stop.aborted = true
  }
  process.once('SIGTERM', onSignal(143))
  process.once('SIGINT', onSignal(130))
  const rows = await measureStorageCeiling(params, stop, (r) => {
    process.stderr.write(`storage-ceiling: batch ${r.batchSize} sync ${String(r.sync)}: ${r.putsPerSec} puts/s\n`)
    if (!json) process.stdout.write(`${JSON.stringify({ type: 'storage-ceiling', ...r })}\n`)
  })
  if (signalCode !== 0) {
    process.exitCode = signalCode
    return
  }
  if (json) {
    process.stdout.write(`${JSON.stringify({ rows })}\n`)
    return
  }
  process.stdout.write(`\nstorage ceiling: classic-level chained batches, one in flight, ${params.seconds} s per row; ` +
    `records as etcdlite's put (18 B key, KeyValue of key ${params.keySize} B + value ${params.valueSize} B)\n\n`)
  printRows(
    ['batch', 'sync', 'puts/s', 'batches/s', 'p50 ms', 'p99 ms', 'max ms', 'cpu%', 'µs/put'],
    rows.map((r) => [String(r.batchSize), String(r.sync), fmt(r.putsPerSec, 0), fmt(r.batchesPerSec, 0), fmt(r.p50Ms, 3), fmt(r.p99Ms, 3),
      fmt(r.maxMs, 3), fmt(r.cpuPct, 0), fmt(r.cpuUsPerPut, 2)]),
  )
}

if (process.argv[1] === SELF_JS) {
  cli().then(
    () => undefined,
    (err: unknown) => {
      process.stderr.write(`storage-ceiling: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
      process.exitCode = 1
    },
  )
}
