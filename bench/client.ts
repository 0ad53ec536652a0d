// The load generator for bench/run.ts: one process, one workload, one server. The same code runs against
// etcd and etcdlite; it prints one ClientResult as JSON on stdout and progress markers on stderr.
//
//   node build/bench/client.js --endpoint 127.0.0.1:2379 --op put --clients 16 --channels 16 \
//     --seconds 5 --warmup 1 --key-size 16 --value-size 128 --key-space 10000 [--serializable] [--token T] [--client grpc-js|h2]
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { SampleBuffer, quantile } from './lib/stats.js'
import {
  HOT_KEYS, MIX_KEYS, OPS, PREFIX_KEYS, TXN_PUTS, type ClientResult, type LoadParams, type Op,
} from './lib/workloads.js'
import { LOAD_PARAM_OPTIONS, loadParamsOf, numberArg } from './lib/args.js'
import { MeasureWindow } from './lib/measure-window.js'
import { openTransports, type KvTransport } from './lib/kv-transport.js'

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

type Call = () => Promise<void>

function putCall(kv: KvTransport, keys: readonly Buffer[], value: Buffer, next: () => number): Call {
  return () => {
    const key = keys[next()]
    if (key === undefined) throw new Error('put: key index out of range')
    return kv.put(key, value)
  }
}

function rangeCall(kv: KvTransport, key: Buffer, valueSize: number, serializable: boolean): Call {
  return async () => {
    const values = await kv.range(key, undefined, serializable)
    if (values.length !== 1 || values[0]?.length !== valueSize) throw new Error('range: expected the pre-populated key')
  }
}

function prefixRangeCall(kv: KvTransport, key: Buffer, rangeEnd: Buffer, serializable: boolean): Call {
  return async () => {
    const values = await kv.range(key, rangeEnd, serializable)
    if (values.length !== PREFIX_KEYS) throw new Error(`range-prefix: expected ${PREFIX_KEYS} keys, got ${values.length}`)
  }
}

/**
 * Compare-and-swap on the hot keys, as a lock or counter client does: compare the value this client last
 * saw, put a fresh one if it still holds, else read the current one (the failure branch) for the next try.
 */
function casCall(kv: KvTransport, keys: readonly Buffer[], initial: Buffer, valueSize: number): Call {
  const seen: Uint8Array[] = keys.map(() => initial)
  let turn = Math.floor(Math.random() * keys.length)
  return async () => {
    const i = turn
    turn = (turn + 1) % keys.length
    const key = keys[i] as Buffer
    const next = randomBytes(valueSize)
    const res = await kv.txn({ compareValue: { key, value: seen[i] as Uint8Array }, success: [{ put: { key, value: next } }], failure: [{ range: { key } }] })
    if (res.succeeded) seen[i] = next
    else if (res.firstRangeValue === undefined) throw new Error('txn-cas: the failure branch did not read the key')
    else seen[i] = res.firstRangeValue
  }
}

function txn16Call(kv: KvTransport, keys: readonly Buffer[], value: Buffer, next: () => number): Call {
  return async () => {
    const success = Array.from({ length: TXN_PUTS }, () => ({ put: { key: keys[next()] as Buffer, value } }))
    const res = await kv.txn({ success })
    if (!res.succeeded || res.responses !== TXN_PUTS) throw new Error('txn-16: expected 16 put responses')
  }
}

/** 90% reads, 10% writes over MIX_KEYS keys (a deterministic pattern per client, so both servers get the same). */
function mixCall(kv: KvTransport, keys: readonly Buffer[], value: Buffer, valueSize: number, serializable: boolean, seed: number): Call {
  let n = seed
  return () => {
    n++
    const key = keys[(n * 7919) % keys.length] as Buffer
    if (n % 10 === 0) return kv.put(key, value)
    return rangeCall(kv, key, valueSize, serializable)()
  }
}

/** Put `keys` with `value`, 128 at a time (etcd's --max-txn-ops), before the measurement. */
async function populate(kv: KvTransport, keys: readonly Buffer[], value: Buffer): Promise<void> {
  for (let i = 0; i < keys.length; i += 128) await kv.txn({ success: keys.slice(i, i + 128).map((key) => ({ put: { key, value } })) })
}

async function run(args: ClientArgs): Promise<ClientResult> {
  const channels = await openTransports(args.client, args.endpoint, args.channels, args.token)
  try {
    const value = randomBytes(args.valueSize)
    const rangeKey = makeKey('r', 0, args.keySize)
    const on = (i: number): KvTransport => channels[i % channels.length] as KvTransport
    let calls: Call[]
    if (args.op === 'put') {
      const keys = Array.from({ length: args.keySpace }, (_, i) => makeKey('p', i, args.keySize))
      let seq = 0
      const next = (): number => {
        const i = seq
        seq = (seq + 1) % keys.length
        return i
      }
      calls = Array.from({ length: args.clients }, (_, i) => putCall(on(i), keys, value, next))
    } else if (args.op === 'range') {
      // Pre-populate the one key every range request reads.
      await on(0).put(rangeKey, value)
      calls = Array.from({ length: args.clients }, (_, i) => rangeCall(on(i), rangeKey, args.valueSize, args.serializable))
    } else if (args.op === 'range-prefix') {
      const keys = Array.from({ length: PREFIX_KEYS }, (_, i) => makeKey('q', i, args.keySize))
      await populate(on(0), keys, value)
      const prefix = Buffer.from('q', 'latin1')
      const end = Buffer.from('r', 'latin1')
      calls = Array.from({ length: args.clients }, (_, i) => prefixRangeCall(on(i), prefix, end, args.serializable))
    } else if (args.op === 'txn-cas') {
      const keys = Array.from({ length: HOT_KEYS }, (_, i) => makeKey('h', i, args.keySize))
      await populate(on(0), keys, value)
      calls = Array.from({ length: args.clients }, (_, i) => casCall(on(i), keys, value, args.valueSize))
    } else if (args.op === 'txn-16') {
      const keys = Array.from({ length: Math.max(args.keySpace, TXN_PUTS) }, (_, i) => makeKey('p', i, args.keySize))
      let seq = 0
      const next = (): number => {
        const i = seq
        seq = (seq + 1) % keys.length
        return i
      }
      calls = Array.from({ length: args.clients }, (_, i) => txn16Call(on(i), keys, value, next))
    } else {
      const keys = Array.from({ length: MIX_KEYS }, (_, i) => makeKey('m', i, args.keySize))
      await populate(on(0), keys, value)
      calls = Array.from({ length: args.clients }, (_, i) => mixCall(on(i), keys, value, args.valueSize, args.serializable, i * 1000003))
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
      client: args.client,
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
