// The lease benchmark's load process (bench/lib/lease-workloads.ts has the workloads and the protocol):
// one role per process, the same code for etcd and etcdlite, raw @grpc/grpc-js with the project's protos.
//   churn:  N closed loops of LeaseGrant → one LeaseKeepAlive message on the loop's stream → LeaseRevoke
//   expiry: prefix watch (DELETE only), grant+put N leases of TTL T, time until every key is deleted
//
//   node build/bench/lease-client.js --config '{"role":"churn","endpoint":"127.0.0.1:2379",...}'
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../src/grpc/proto.js'
import type { KVClient } from '../src/grpc/generated/etcdserverpb/KV.js'
import type { WatchClient } from '../src/grpc/generated/etcdserverpb/Watch.js'
import type { LeaseClient } from '../src/grpc/generated/etcdserverpb/Lease.js'
import type { LeaseKeepAliveRequest } from '../src/grpc/generated/etcdserverpb/LeaseKeepAliveRequest.js'
import type { LeaseKeepAliveResponse__Output } from '../src/grpc/generated/etcdserverpb/LeaseKeepAliveResponse.js'
import type { WatchRequest } from '../src/grpc/generated/etcdserverpb/WatchRequest.js'
import type { WatchResponse__Output } from '../src/grpc/generated/etcdserverpb/WatchResponse.js'
import { SampleBuffer, quantile } from './lib/stats.js'
import { MeasureWindow } from './lib/measure-window.js'
import { prefixRangeEnd } from './lib/watch-wire.js'
import {
  CHURN_TTL_SECONDS, EXPIRY_GRACE_SECONDS, EXPIRY_SETUP_CONNECTIONS, EXPIRY_SETUP_IN_FLIGHT, MARK_EXPIRED, MARK_GRANTS_DONE, MARK_SETUP_START,
  type ChurnResult, type ExpiryResult, type LeaseClientConfig, type LeaseClientResult, type PhaseLatency,
} from './lib/lease-workloads.js'

const CONNECT_TIMEOUT_MS = 10_000
/** The one-letter prefix of the expiry workload's keys. */
const EXPIRY_PREFIX = 'e'

function parseConfig(argv: readonly string[]): LeaseClientConfig {
  const { values } = parseArgs({ args: [...argv], options: { config: { type: 'string' } }, strict: true })
  if (values.config === undefined) throw new Error('--config <json> is required')
  const c = JSON.parse(values.config) as unknown
  if (typeof c !== 'object' || c === null || !('role' in c) || !('endpoint' in c)) throw new Error('--config: not a lease client config')
  return c as LeaseClientConfig
}

function mark(marker: string): void {
  process.stderr.write(`${marker}\n`)
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

const round3 = (x: number): number => Number(x.toFixed(3))

/** A key of exactly `size` bytes: the prefix and a zero-padded decimal index (as bench/client.ts). */
function makeKey(prefix: string, index: number, size: number): Buffer {
  const digits = String(index)
  if (digits.length + prefix.length > size) throw new Error(`key size ${size} is too small for key index ${index}`)
  return Buffer.from(prefix + digits.padStart(size - prefix.length, '0'), 'latin1')
}

/** `n` channels, each its own TCP connection (a local subchannel pool stops grpc-js from sharing one). */
function openChannels(endpoint: string, n: number): grpc.Channel[] {
  return Array.from({ length: n }, () => new grpc.Channel(endpoint, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }))
}

async function waitReady(clients: readonly grpc.Client[]): Promise<void> {
  const deadline = Date.now() + CONNECT_TIMEOUT_MS
  await Promise.all(clients.map((c) => new Promise<void>((resolve, reject) => {
    c.waitForReady(deadline, (err) => (err === undefined || err === null ? resolve() : reject(err)))
  })))
}

function leaseClient(ch: grpc.Channel, endpoint: string): LeaseClient {
  return new (loadEtcdProto().etcdserverpb.Lease)(endpoint, grpc.credentials.createInsecure(), { channelOverride: ch })
}

function kvClient(ch: grpc.Channel, endpoint: string): KVClient {
  return new (loadEtcdProto().etcdserverpb.KV)(endpoint, grpc.credentials.createInsecure(), { channelOverride: ch })
}

/** LeaseGrant with a server-chosen ID; resolves with the ID (decimal string) and the granted TTL. */
function grant(lease: LeaseClient, ttl: number): Promise<{ id: string; ttl: number }> {
  return new Promise((resolve, reject) => {
    lease.LeaseGrant({ TTL: ttl, ID: 0 }, (err, res) => {
      if (err !== null) reject(err)
      else if (res === undefined || res.error !== '') reject(new Error(`grant: ${res?.error ?? 'no response'}`))
      else if (res.ID === '0') reject(new Error('grant: lease ID 0'))
      else resolve({ id: res.ID, ttl: Number(res.TTL) })
    })
  })
}

function revoke(lease: LeaseClient, id: string): Promise<void> {
  return new Promise((resolve, reject) => {
    lease.LeaseRevoke({ ID: id }, (err, res) => {
      if (err !== null) reject(err)
      else if (res?.header === null || res?.header === undefined) reject(new Error('revoke: response without header'))
      else resolve()
    })
  })
}

function put(kv: KVClient, key: Buffer, value: Buffer, lease: string): Promise<void> {
  return new Promise((resolve, reject) => {
    kv.Put({ key, value, lease }, (err, res) => {
      if (err !== null) reject(err)
      else if (res?.header === null || res?.header === undefined) reject(new Error('put: response without header'))
      else resolve()
    })
  })
}

/**
 * One bidirectional LeaseKeepAlive stream, used by one loop with at most one request in flight, as a
 * client keeps one keep-alive stream per connection. A failure of the stream fails the request in flight
 * and every later one.
 */
class KeepAliveStream {
  private readonly call: grpc.ClientDuplexStream<LeaseKeepAliveRequest, LeaseKeepAliveResponse__Output>
  private pending: { readonly id: string; readonly resolve: (ttl: number) => void; readonly reject: (e: Error) => void } | undefined
  private failure: Error | undefined
  private closing = false

  constructor(lease: LeaseClient) {
    this.call = lease.LeaseKeepAlive()
    this.call.on('data', (r: LeaseKeepAliveResponse__Output) => {
      const p = this.pending
      this.pending = undefined
      if (p === undefined) this.fail(new Error(`keep-alive: unexpected response for lease ${r.ID}`))
      else if (r.ID !== p.id) p.reject(new Error(`keep-alive: response for lease ${r.ID}, expected ${p.id}`))
      else p.resolve(Number(r.TTL))
    })
    this.call.on('error', (e: Error) => this.fail(e))
    this.call.on('end', () => this.fail(new Error('keep-alive: stream ended by the server')))
  }

  private fail(e: Error): void {
    if (this.closing) return
    this.failure ??= e
    const p = this.pending
    this.pending = undefined
    p?.reject(e)
  }

  /** Send one keep-alive for `id`; resolves with the TTL the server answers (0: unknown lease). */
  once(id: string): Promise<number> {
    if (this.failure !== undefined) return Promise.reject(this.failure)
    if (this.pending !== undefined) return Promise.reject(new Error('keep-alive: one request at a time'))
    return new Promise((resolve, reject) => {
      this.pending = { id, resolve, reject }
      this.call.write({ ID: id })
    })
  }

  close(): void {
    this.closing = true
    this.call.end()
    this.call.cancel()
  }
}

function latency(s: SampleBuffer): PhaseLatency {
  const sorted = s.sorted()
  return { p50Ms: round3(quantile(sorted, 0.5)), p99Ms: round3(quantile(sorted, 0.99)) }
}

async function runChurn(cfg: Extract<LeaseClientConfig, { role: 'churn' }>): Promise<ChurnResult> {
  if (cfg.channels > cfg.clients) throw new Error('churn: channels must be ≤ clients')
  const channels = openChannels(cfg.endpoint, cfg.channels)
  const leases = channels.map((ch) => leaseClient(ch, cfg.endpoint))
  const streams: KeepAliveStream[] = []
  try {
    await waitReady(leases)
    for (let i = 0; i < cfg.clients; i++) streams.push(new KeepAliveStream(leases[i % leases.length] as LeaseClient))

    const cycles = new SampleBuffer()
    const grants = new SampleBuffer()
    const keepAlives = new SampleBuffer()
    const revokes = new SampleBuffer()
    let errors = 0
    let firstError: string | null = null
    const window = new MeasureWindow(cfg.warmupSeconds, cfg.seconds, mark)

    const loop = async (i: number): Promise<void> => {
      const lease = leases[i % leases.length] as LeaseClient
      const ka = streams[i] as KeepAliveStream
      for (;;) {
        const start = performance.now()
        if (start >= window.end) return
        try {
          const { id } = await grant(lease, CHURN_TTL_SECONDS)
          const granted = performance.now()
          const ttl = await ka.once(id)
          if (ttl <= 0) throw new Error(`keep-alive: TTL ${ttl} for a lease just granted`)
          const kept = performance.now()
          await revoke(lease, id)
          const done = performance.now()
          if (window.record(start, done)) {
            cycles.push(done - start)
            grants.push(granted - start)
            keepAlives.push(kept - granted)
            revokes.push(done - kept)
          }
        } catch (e) {
          errors++
          firstError ??= errText(e)
          if (errors > 100 && cycles.length === 0) throw new Error(`too many errors: ${firstError}`, { cause: e })
          // A broken keep-alive stream fails every later cycle at once: stop this loop rather than spin.
          if (errors > 100) return
        }
      }
    }
    let measured: ReturnType<MeasureWindow['close']>
    try {
      await Promise.all(streams.map((_, i) => loop(i)))
    } finally {
      measured = window.close()
    }
    const { elapsedSeconds, clientCpuPct, clientMainCpuPct, stealPct } = measured

    const sorted = cycles.sorted()
    return {
      role: 'churn',
      clients: cfg.clients,
      channels: cfg.channels,
      cycles: sorted.length,
      errors,
      firstError,
      elapsedSeconds: round3(elapsedSeconds),
      cyclesPerSec: Number((elapsedSeconds > 0 ? sorted.length / elapsedSeconds : 0).toFixed(1)),
      p50Ms: round3(quantile(sorted, 0.5)),
      p99Ms: round3(quantile(sorted, 0.99)),
      grant: latency(grants),
      keepAlive: latency(keepAlives),
      revoke: latency(revokes),
      clientCpuPct,
      clientMainCpuPct,
      stealPct,
    }
  } finally {
    for (const s of streams) s.close()
    for (const l of leases) l.close()
    for (const ch of channels) ch.close()
  }
}

/**
 * A prefix watch that reports DELETE events only (filter NOPUT) and records when each distinct key was
 * first seen deleted; `failed` rejects if the stream fails or the watch is canceled.
 */
class DeleteCounter {
  /** Receive time (performance.now()) of each distinct key's DELETE, in arrival order. */
  readonly times: number[] = []
  readonly revisions = new Set<string>()
  readonly failed: Promise<never>
  private readonly keys = new Set<string>()
  private readonly call: grpc.ClientDuplexStream<WatchRequest, WatchResponse__Output>
  private closing = false
  private waiter: { readonly n: number; readonly resolve: () => void } | undefined

  private constructor(watch: WatchClient, prefix: Buffer, created: (ok: boolean, why: string) => void) {
    this.call = watch.Watch()
    let rejectFailed: (e: Error) => void = () => undefined
    this.failed = new Promise<never>((_, reject) => {
      rejectFailed = reject
    })
    this.failed.catch(() => undefined)
    const fail = (e: Error): void => {
      if (this.closing) return
      created(false, e.message)
      rejectFailed(e)
    }
    this.call.on('data', (r: WatchResponse__Output) => {
      if (r.created) created(true, '')
      if (r.canceled) fail(new Error(`watch canceled: ${r.cancel_reason}`))
      const now = performance.now()
      for (const ev of r.events) {
        if (ev.type !== 'DELETE' || ev.kv === null) continue
        const k = ev.kv.key.toString('latin1')
        if (this.keys.has(k)) continue
        this.keys.add(k)
        this.revisions.add(ev.kv.mod_revision)
        this.times.push(now)
      }
      this.check()
    })
    this.call.on('error', (e: Error) => fail(e))
    this.call.on('end', () => fail(new Error('watch stream ended by the server')))
    this.call.write({ create_request: { key: prefix, range_end: prefixRangeEnd(prefix), filters: ['NOPUT'] } })
  }

  /** Open the watch and wait for its `created` response. */
  static async open(endpoint: string, ch: grpc.Channel, prefix: Buffer): Promise<DeleteCounter> {
    const watch = new (loadEtcdProto().etcdserverpb.Watch)(endpoint, grpc.credentials.createInsecure(), { channelOverride: ch })
    let counter: DeleteCounter | undefined
    await new Promise<void>((resolve, reject) => {
      counter = new DeleteCounter(watch, prefix, (ok, why) => (ok ? resolve() : reject(new Error(`watch not created: ${why}`))))
    })
    if (counter === undefined) throw new Error('watch: no counter')
    return counter
  }

  /** Resolves once `n` distinct keys have been seen deleted (at once if they already have). */
  deleted(n: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiter = { n, resolve }
      this.check()
    })
  }

  private check(): void {
    const w = this.waiter
    if (w !== undefined && this.times.length >= w.n) {
      this.waiter = undefined
      w.resolve()
    }
  }

  close(): void {
    this.closing = true
    this.call.end()
    this.call.cancel()
  }
}

function countPrefix(kv: KVClient, prefix: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    kv.Range({ key: prefix, range_end: prefixRangeEnd(prefix), count_only: true }, (err, res) => {
      if (err !== null || res === undefined) reject(err ?? new Error('range: no response'))
      else resolve(Number(res.count))
    })
  })
}

async function runExpiry(cfg: Extract<LeaseClientConfig, { role: 'expiry' }>): Promise<ExpiryResult> {
  const cpu0 = process.cpuUsage()
  const channels = openChannels(cfg.endpoint, EXPIRY_SETUP_CONNECTIONS)
  const leases = channels.map((ch) => leaseClient(ch, cfg.endpoint))
  const kvs = channels.map((ch) => kvClient(ch, cfg.endpoint))
  const prefix = Buffer.from(EXPIRY_PREFIX, 'latin1')
  const keys = Array.from({ length: cfg.leases }, (_, i) => makeKey(EXPIRY_PREFIX, i, cfg.keySize))
  const value = randomBytes(cfg.valueSize)
  let counter: DeleteCounter | undefined
  let timer: NodeJS.Timeout | undefined
  try {
    await waitReady([...leases, ...kvs])
    const watchChannel = channels[0]
    if (watchChannel === undefined) throw new Error('expiry: no channel')
    counter = await DeleteCounter.open(cfg.endpoint, watchChannel, prefix)
    const deletes = counter

    let errors = 0
    let firstError: string | null = null
    let next = 0
    let lastGrantAt = 0
    let grantedTtl = 0
    mark(MARK_SETUP_START)
    const setupStart = performance.now()
    const loop = async (slot: number): Promise<void> => {
      const lease = leases[slot % leases.length] as LeaseClient
      const kv = kvs[slot % kvs.length] as KVClient
      for (let i = next++; i < cfg.leases; i = next++) {
        try {
          const g = await grant(lease, cfg.ttlSeconds)
          const at = performance.now()
          if (at > lastGrantAt) lastGrantAt = at
          if (g.ttl > grantedTtl) grantedTtl = g.ttl
          await put(kv, keys[i] as Buffer, value, g.id)
        } catch (e) {
          errors++
          firstError ??= errText(e)
        }
      }
    }
    await Promise.all(Array.from({ length: EXPIRY_SETUP_IN_FLIGHT }, (_, slot) => loop(slot)))
    const setupEnd = performance.now()
    mark(MARK_GRANTS_DONE)

    // Wait for every written key's DELETE, or give up TTL + grace after the last grant. A key whose grant
    // or put failed is never written, so it is not waited for.
    const want = cfg.leases - errors
    const deadlineMs = Math.max(0, lastGrantAt + (Math.max(grantedTtl, cfg.ttlSeconds) + EXPIRY_GRACE_SECONDS) * 1000 - performance.now())
    const allSeen = deletes.deleted(want)
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs)
    })
    try {
      await Promise.race([allSeen, timeout, deletes.failed])
    } catch (e) {
      errors++
      firstError ??= errText(e)
    }
    mark(MARK_EXPIRED)
    const finished = deletes.times.length >= want && want > 0
    const remainingKeys = await countPrefix(kvs[0] as KVClient, prefix)
    const cpu = process.cpuUsage(cpu0)
    const rel = (t: number | undefined): number | null => (t === undefined ? null : round3((t - lastGrantAt) / 1000))
    const expirySeconds = finished ? rel(deletes.times[deletes.times.length - 1]) : null
    return {
      role: 'expiry',
      leases: cfg.leases,
      ttlSeconds: cfg.ttlSeconds,
      grantedTtlSeconds: grantedTtl,
      setupSeconds: round3((setupEnd - setupStart) / 1000),
      expirySeconds,
      overdueSeconds: expirySeconds === null ? null : round3(expirySeconds - grantedTtl),
      firstDeleteSeconds: rel(deletes.times[0]),
      deletes: deletes.times.length,
      deletesDuringSetup: deletes.times.filter((t) => t < lastGrantAt).length,
      deleteRevisions: deletes.revisions.size,
      remainingKeys,
      errors,
      firstError,
      clientCpuSeconds: round3((cpu.user + cpu.system) / 1e6),
    }
  } finally {
    clearTimeout(timer)
    counter?.close()
    for (const c of [...leases, ...kvs]) c.close()
    for (const ch of channels) ch.close()
  }
}

async function main(): Promise<LeaseClientResult> {
  const cfg = parseConfig(process.argv.slice(2))
  switch (cfg.role) {
    case 'churn': return runChurn(cfg)
    case 'expiry': return runExpiry(cfg)
  }
}

main().then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`)
  },
  (err: unknown) => {
    process.stderr.write(`lease client: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  },
)
