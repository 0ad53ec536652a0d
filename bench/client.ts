// The load generator for bench/run.ts: one process, one workload, one server. The same code runs against
// etcd and etcdlite; it prints one ClientResult as JSON on stdout and progress markers on stderr.
//
//   node build/bench/client.js --endpoint 127.0.0.1:2379 --op put --clients 16 --channels 16 \
//     --seconds 5 --warmup 1 --key-size 16 --value-size 128 --key-space 10000 [--serializable] [--token T]
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../src/grpc/proto.js'
import type { KVClient } from '../src/grpc/generated/etcdserverpb/KV.js'
import { SampleBuffer, quantile } from './lib/stats.js'
import {
  HOT_KEYS, MIX_KEYS, OPS, PREFIX_KEYS, TXN_PUTS, type ClientResult, type LoadParams, type Op,
} from './lib/workloads.js'
import { LOAD_PARAM_OPTIONS, loadParamsOf, numberArg } from './lib/args.js'
import { MeasureWindow } from './lib/measure-window.js'

interface ClientArgs extends LoadParams {
  readonly endpoint: string
  readonly op: Op
  readonly clients: number
  readonly channels: number
  /** Sent as the `token` metadata of every request (auth enabled). */
  readonly token: string | undefined
}

function parseClientArgs(argv: readonly string[]): ClientArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      endpoint: { type: 'string' },
      op: { type: 'string' },
      clients: { type: 'string', default: '1' },
      channels: { type: 'string', default: '1' },
      ...LOAD_PARAM_OPTIONS,
      token: { type: 'string' },
    },
    strict: true,
  })
  const op = OPS.find((o) => o === values.op)
  if (op === undefined) throw new Error(`--op must be one of ${OPS.join(', ')}, got ${String(values.op)}`)
  if (values.endpoint === undefined) throw new Error('--endpoint host:port is required')
  const clients = Math.floor(numberArg('clients', values.clients, 1))
  const channels = Math.floor(numberArg('channels', values.channels, 1))
  if (channels > clients) throw new Error('--channels must be ≤ --clients')
  return {
    endpoint: values.endpoint,
    op,
    clients,
    channels,
    ...loadParamsOf(values),
    token: values.token,
  }
}

/** A key of exactly `size` bytes: a one-letter prefix and a zero-padded decimal index. */
function makeKey(prefix: string, index: number, size: number): Buffer {
  const digits = String(index)
  if (digits.length + prefix.length > size) throw new Error(`--key-size ${size} is too small for key index ${index}`)
  return Buffer.from(prefix + digits.padStart(size - prefix.length, '0'), 'latin1')
}

/** Open `n` KV clients, each on its own channel (and so its own TCP connection), and wait until all are ready. */
async function openChannels(endpoint: string, n: number): Promise<KVClient[]> {
  const proto = loadEtcdProto()
  const clients: KVClient[] = []
  for (let i = 0; i < n; i++) {
    // grpc-js shares subchannels (connections) between channels with equal target and options by
    // default; a local subchannel pool gives every channel its own connection.
    clients.push(new proto.etcdserverpb.KV(endpoint, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }))
  }
  const deadline = Date.now() + 10_000
  await Promise.all(clients.map((c) => new Promise<void>((resolve, reject) => {
    c.waitForReady(deadline, (err) => (err === undefined || err === null ? resolve() : reject(err)))
  })))
  return clients
}

type Call = () => Promise<void>

function putCall(kv: KVClient, keys: readonly Buffer[], value: Buffer, next: () => number, md: grpc.Metadata): Call {
  return () => new Promise<void>((resolve, reject) => {
    const key = keys[next()]
    if (key === undefined) throw new Error('put: key index out of range')
    kv.Put({ key, value }, md, (err, res) => {
      if (err !== null) reject(err)
      else if (res?.header === null || res?.header === undefined) reject(new Error('put: response without header'))
      else resolve()
    })
  })
}

function rangeCall(kv: KVClient, key: Buffer, valueSize: number, serializable: boolean, md: grpc.Metadata): Call {
  return () => new Promise<void>((resolve, reject) => {
    kv.Range({ key, serializable }, md, (err, res) => {
      if (err !== null) reject(err)
      else if (res?.kvs.length !== 1 || res.kvs[0]?.value.length !== valueSize) reject(new Error('range: expected the pre-populated key'))
      else resolve()
    })
  })
}

function prefixRangeCall(kv: KVClient, key: Buffer, rangeEnd: Buffer, serializable: boolean, md: grpc.Metadata): Call {
  return () => new Promise<void>((resolve, reject) => {
    kv.Range({ key, range_end: rangeEnd, serializable }, md, (err, res) => {
      if (err !== null) reject(err)
      else if (res?.kvs.length !== PREFIX_KEYS) reject(new Error(`range-prefix: expected ${PREFIX_KEYS} keys, got ${res?.kvs.length ?? 0}`))
      else resolve()
    })
  })
}

/**
 * Compare-and-swap on the hot keys, as a lock or counter client does: compare the value this client last
 * saw, put a fresh one if it still holds, else read the current one (the failure branch) for the next try.
 */
function casCall(kv: KVClient, keys: readonly Buffer[], initial: Buffer, valueSize: number, md: grpc.Metadata): Call {
  const seen = keys.map(() => initial)
  let turn = Math.floor(Math.random() * keys.length)
  return () => new Promise<void>((resolve, reject) => {
    const i = turn
    turn = (turn + 1) % keys.length
    const key = keys[i] as Buffer
    const next = randomBytes(valueSize)
    kv.Txn(
      {
        compare: [{ key, target: 'VALUE', result: 'EQUAL', value: seen[i] as Buffer }],
        success: [{ request_put: { key, value: next } }],
        failure: [{ request_range: { key } }],
      },
      md,
      (err, res) => {
        if (err !== null || res === undefined) {
          reject(err ?? new Error('txn-cas: no response'))
          return
        }
        if (res.succeeded) seen[i] = next
        else {
          const now = res.responses[0]?.response_range?.kvs[0]?.value
          if (now === undefined) reject(new Error('txn-cas: the failure branch did not read the key'))
          else seen[i] = now
        }
        resolve()
      },
    )
  })
}

function txn16Call(kv: KVClient, keys: readonly Buffer[], value: Buffer, next: () => number, md: grpc.Metadata): Call {
  return () => new Promise<void>((resolve, reject) => {
    const success = Array.from({ length: TXN_PUTS }, () => ({ request_put: { key: keys[next()] as Buffer, value } }))
    kv.Txn({ success }, md, (err, res) => {
      if (err !== null) reject(err)
      else if (res?.succeeded !== true || res.responses.length !== TXN_PUTS) reject(new Error('txn-16: expected 16 put responses'))
      else resolve()
    })
  })
}

/** 90% reads, 10% writes over MIX_KEYS keys (a deterministic pattern per client, so both servers get the same). */
function mixCall(kv: KVClient, keys: readonly Buffer[], value: Buffer, valueSize: number, serializable: boolean, md: grpc.Metadata, seed: number): Call {
  let n = seed
  const read = (key: Buffer): Call => rangeCall(kv, key, valueSize, serializable, md)
  return () => {
    n++
    const key = keys[(n * 7919) % keys.length] as Buffer
    if (n % 10 === 0) return putCall(kv, [key], value, () => 0, md)()
    return read(key)()
  }
}

/** Put `keys` with `value`, 128 at a time (etcd's --max-txn-ops), before the measurement. */
async function populate(kv: KVClient, keys: readonly Buffer[], value: Buffer, md: grpc.Metadata): Promise<void> {
  for (let i = 0; i < keys.length; i += 128) {
    const success = keys.slice(i, i + 128).map((key) => ({ request_put: { key, value } }))
    await new Promise<void>((resolve, reject) => {
      kv.Txn({ success }, md, (err) => (err === null ? resolve() : reject(err)))
    })
  }
}

async function run(args: ClientArgs): Promise<ClientResult> {
  const channels = await openChannels(args.endpoint, args.channels)
  try {
    const value = randomBytes(args.valueSize)
    const rangeKey = makeKey('r', 0, args.keySize)
    const md = new grpc.Metadata()
    if (args.token !== undefined) md.set('token', args.token)
    let calls: Call[]
    if (args.op === 'put') {
      const keys = Array.from({ length: args.keySpace }, (_, i) => makeKey('p', i, args.keySize))
      let seq = 0
      const next = (): number => {
        const i = seq
        seq = (seq + 1) % keys.length
        return i
      }
      calls = Array.from({ length: args.clients }, (_, i) => putCall(channels[i % channels.length] as KVClient, keys, value, next, md))
    } else if (args.op === 'range') {
      // Pre-populate the one key every range request reads.
      await putCall(channels[0] as KVClient, [rangeKey], value, () => 0, md)()
      calls = Array.from({ length: args.clients }, (_, i) => rangeCall(channels[i % channels.length] as KVClient, rangeKey, args.valueSize, args.serializable, md))
    } else if (args.op === 'range-prefix') {
      const keys = Array.from({ length: PREFIX_KEYS }, (_, i) => makeKey('q', i, args.keySize))
      await populate(channels[0] as KVClient, keys, value, md)
      const prefix = Buffer.from('q', 'latin1')
      const end = Buffer.from('r', 'latin1')
      calls = Array.from({ length: args.clients }, (_, i) => prefixRangeCall(channels[i % channels.length] as KVClient, prefix, end, args.serializable, md))
    } else if (args.op === 'txn-cas') {
      const keys = Array.from({ length: HOT_KEYS }, (_, i) => makeKey('h', i, args.keySize))
      await populate(channels[0] as KVClient, keys, value, md)
      calls = Array.from({ length: args.clients }, (_, i) => casCall(channels[i % channels.length] as KVClient, keys, value, args.valueSize, md))
    } else if (args.op === 'txn-16') {
      const keys = Array.from({ length: Math.max(args.keySpace, TXN_PUTS) }, (_, i) => makeKey('p', i, args.keySize))
      let seq = 0
      const next = (): number => {
        const i = seq
        seq = (seq + 1) % keys.length
        return i
      }
      calls = Array.from({ length: args.clients }, (_, i) => txn16Call(channels[i % channels.length] as KVClient, keys, value, next, md))
    } else {
      const keys = Array.from({ length: MIX_KEYS }, (_, i) => makeKey('m', i, args.keySize))
      await populate(channels[0] as KVClient, keys, value, md)
      calls = Array.from({ length: args.clients }, (_, i) => mixCall(channels[i % channels.length] as KVClient, keys, value, args.valueSize, args.serializable, md, i * 1000003))
    }

    const samples = new SampleBuffer()
    let errors = 0
    let firstError: string | null = null
    const window = new MeasureWindow(args.warmupSeconds, args.seconds, (marker) => process.stderr.write(`${marker}\n`))

    const loop = async (call: Call): Promise<void> => {
      for (;;) {
        const start = performance.now()
        if (start >= window.end) return
        try {
          await call()
          const done = performance.now()
          if (window.record(start, done)) samples.push(done - start)
        } catch (e) {
          errors++
          firstError ??= e instanceof Error ? e.message : String(e)
          if (errors > 100 && samples.length === 0) throw new Error(`too many errors: ${firstError}`, { cause: e })
        }
      }
    }
    let measured: ReturnType<MeasureWindow['close']>
    try {
      await Promise.all(calls.map(loop))
    } finally {
      measured = window.close()
    }
    const { elapsedSeconds, clientCpuPct, clientMainCpuPct, stealPct } = measured

    const sorted = samples.sorted()
    let sum = 0
    for (const x of sorted) sum += x
    const round = (x: number, d = 3): number => Number(x.toFixed(d))
    return {
      op: args.op,
      clients: args.clients,
      channels: args.channels,
      ops: sorted.length,
      errors,
      firstError,
      elapsedSeconds: round(elapsedSeconds),
      opsPerSec: round(elapsedSeconds > 0 ? sorted.length / elapsedSeconds : 0, 1),
      p50Ms: round(quantile(sorted, 0.5)),
      p90Ms: round(quantile(sorted, 0.9)),
      p99Ms: round(quantile(sorted, 0.99)),
      maxMs: round(quantile(sorted, 1)),
      meanMs: round(sorted.length > 0 ? sum / sorted.length : Number.NaN),
      clientCpuPct,
      clientMainCpuPct,
      stealPct,
    }
  } finally {
    for (const c of channels) c.close()
  }
}

run(parseClientArgs(process.argv.slice(2))).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`)
  },
  (err: unknown) => {
    process.stderr.write(`bench client: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  },
)
