// The start-up benchmark's load process (bench/lib/startup-run.ts is the runner's side and holds the
// protocol): fill one fresh server with N keys as fast as practical, then print one JSON result on stdout.
// Raw @grpc/grpc-js with hand-encoded TxnRequests of `opsPerTxn` puts (etcd's --max-txn-ops default, 128),
// `inFlight` txns in flight over `connections` TCP connections; responses are scanned only for `succeeded`,
// so the client spends its CPU on the wire and not on protobufjs objects. The same code for both servers.
//
//   node build/bench/startup-loader.js --config '{"endpoint":"127.0.0.1:2379","keys":1000000,...}'
import { parseArgs } from 'node:util'
import * as grpc from '@grpc/grpc-js'
import { lenFieldSize, Reader, WIRE_LEN, WIRE_VARINT, writeBytesField, writeVarint } from '../src/pkg/proto-wire.js'
import {
  MARK_LOAD_DONE, MARK_LOAD_START, startupKey, startupValue, writeOrder,
  type StartupLoaderConfig, type StartupLoaderResult,
} from './lib/startup-run.js'

const TXN_METHOD = '/etcdserverpb.KV/Txn'
const CONNECT_TIMEOUT_MS = 10_000
/** A txn refused with one of these codes is retried (etcd: "too many requests", leader changes). */
const RETRY_CODES: ReadonlySet<number> = new Set([grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED])
const MAX_ATTEMPTS = 5
const RETRY_DELAY_MS = 100

function parseConfig(argv: readonly string[]): StartupLoaderConfig {
  const { values } = parseArgs({ args: [...argv], options: { config: { type: 'string' } }, strict: true })
  if (values.config === undefined) throw new Error('--config <json> is required')
  const c = JSON.parse(values.config) as unknown
  if (typeof c !== 'object' || c === null || !('endpoint' in c) || !('keys' in c)) throw new Error('--config: not a start-up loader config')
  return c as StartupLoaderConfig
}

function mark(marker: string): void {
  process.stderr.write(`${marker}\n`)
}

/** `TxnRequest{success: [RequestOp{request_put: PutRequest{key, value}} …]}` with no compares: always succeeds. */
function encodePutTxn(kvs: readonly (readonly [Buffer, Buffer])[]): Buffer {
  let size = 0
  for (const [k, v] of kvs) size += lenFieldSize(lenFieldSize(lenFieldSize(k.length) + lenFieldSize(v.length)))
  const out = Buffer.allocUnsafe(size)
  let pos = 0
  for (const [k, v] of kvs) {
    const put = lenFieldSize(k.length) + lenFieldSize(v.length)
    out[pos++] = (2 << 3) | WIRE_LEN // TxnRequest.success
    pos = writeVarint(out, pos, lenFieldSize(put))
    out[pos++] = (2 << 3) | WIRE_LEN // RequestOp.request_put
    pos = writeVarint(out, pos, put)
    pos = writeBytesField(out, pos, 1, k)
    pos = writeBytesField(out, pos, 2, v)
  }
  if (pos !== size) throw new Error(`encodePutTxn: wrote ${pos} of ${size} bytes`)
  return out
}

/** TxnResponse.succeeded (field 2); every other field is skipped. */
function txnSucceeded(buf: Buffer): boolean {
  const r = new Reader(buf)
  let ok = false
  while (!r.done) {
    const tag = r.varint()
    if (tag >>> 3 === 2 && (tag & 7) === WIRE_VARINT) ok = r.bool()
    else r.skip(tag & 7)
  }
  return ok
}

function call(client: grpc.Client, req: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest<Buffer, Buffer>(TXN_METHOD, (b) => b, (b) => b, req, (err, res) => {
      if (err !== null) reject(err)
      else if (res === undefined) reject(new Error('txn: no response'))
      else resolve(res)
    })
  })
}

async function waitReady(clients: readonly grpc.Client[]): Promise<void> {
  const deadline = Date.now() + CONNECT_TIMEOUT_MS
  await Promise.all(clients.map((c) => new Promise<void>((resolve, reject) => {
    c.waitForReady(deadline, (err) => (err === undefined || err === null ? resolve() : reject(err)))
  })))
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function main(): Promise<void> {
  const cfg = parseConfig(process.argv.slice(2))
  const order = writeOrder(cfg.keys)
  const txns = Math.ceil(cfg.keys / cfg.opsPerTxn)
  // Each client gets its own TCP connection (a local subchannel pool stops grpc-js from sharing one).
  const clients = Array.from({ length: cfg.connections }, () =>
    new grpc.Client(cfg.endpoint, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }))
  let retries = 0
  try {
    await waitReady(clients)
    let next = 0
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    mark(MARK_LOAD_START)
    const worker = async (w: number): Promise<void> => {
      const client = clients[w % clients.length] as grpc.Client
      for (let t = next++; t < txns; t = next++) {
        const kvs: (readonly [Buffer, Buffer])[] = []
        for (let seq = t * cfg.opsPerTxn; seq < Math.min(cfg.keys, (t + 1) * cfg.opsPerTxn); seq++) {
          const i = order(seq)
          kvs.push([startupKey(cfg.keyPrefix, i, cfg.keySize), startupValue(i, cfg.valueSize)])
        }
        const req = encodePutTxn(kvs)
        for (let attempt = 1; ; attempt++) {
          try {
            if (!txnSucceeded(await call(client, req))) throw new Error(`txn ${t}: succeeded = false`)
            break
          } catch (e) {
            const code = (e as Partial<grpc.ServiceError>).code
            if (attempt >= MAX_ATTEMPTS || code === undefined || !RETRY_CODES.has(code)) throw e
            retries++
            await sleep(RETRY_DELAY_MS)
          }
        }
      }
    }
    await Promise.all(Array.from({ length: cfg.inFlight }, (_, w) => worker(w)))
    const seconds = (performance.now() - t0) / 1000
    const cpu = process.cpuUsage(cpu0)
    mark(MARK_LOAD_DONE)
    const probe = order(cfg.keys - 1)
    const result: StartupLoaderResult = {
      keys: cfg.keys,
      txns,
      retries,
      seconds: Number(seconds.toFixed(3)),
      keysPerSec: Math.round(cfg.keys / seconds),
      clientCpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(3)),
      probeIndex: probe,
    }
    process.stdout.write(`${JSON.stringify(result)}\n`)
  } finally {
    for (const c of clients) c.close()
  }
}

main().then(
  () => undefined,
  (err: unknown) => {
    process.stderr.write(`startup-loader: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  },
)
