// Shared pieces of the stress tests: which servers they run against, watch calls on connections of their
// own (grpc-js and raw HTTP/2), RSS sampling of a server process, and byte-range matching as etcd does it.
//
// Environment:
//   STRESS_TARGETS  comma-separated servers to run against: `etcdlite` (the CLI as a child process) and/or
//                   `etcd` (the real etcd 3.4 from PATH, to prove the tests themselves). Default: etcdlite.
//   STRESS_SCALE    multiplies the amount of writing (default 1 = the CI budget).
//   STRESS_SEED     comma-separated seeds to replay (watch stress only).
import { readFileSync } from 'node:fs'
import http2 from 'node:http2'
import * as grpc from '@grpc/grpc-js'
import type { WatchRequest, WatchResponse } from '../../src/etcdserver/types/watch.js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { fromPbWatchResponse, toPbWatchRequest } from '../compliance/harness/adapters/pb.js'
import { haveEtcd, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'

export type TargetName = 'etcdlite' | 'etcd'

export interface Target {
  readonly name: TargetName
  /** Set when this target cannot run here; says why. */
  readonly skip: string | false
}

/** The targets chosen by STRESS_TARGETS (default: etcdlite only). */
export function stressTargets(): Target[] {
  const raw = process.env['STRESS_TARGETS'] ?? 'etcdlite'
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => {
    if (s !== 'etcdlite' && s !== 'etcd') throw new Error(`STRESS_TARGETS: unknown target ${s} (etcdlite, etcd)`)
    return { name: s, skip: s === 'etcd' && !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false }
  })
}

/** STRESS_SCALE: a positive multiplier for the amount of work (default 1). */
export function stressScale(): number {
  const s = Number(process.env['STRESS_SCALE'] ?? '1')
  if (!(s > 0) || !Number.isFinite(s)) throw new Error(`STRESS_SCALE: not a positive number: ${process.env['STRESS_SCALE']}`)
  return s
}

/**
 * Start `target` as a child process. `memory`: etcdlite keeps everything in memory (etcd has no such mode
 * and always uses a fresh data dir). `disk`: a fresh data dir; etcdlite without fsync, because durability
 * is not under test here and fsync would only make the writer slower.
 */
export async function startTarget(target: TargetName, storage: 'memory' | 'disk'): Promise<ServerProcess> {
  if (target === 'etcd') return startReferenceEtcd()
  return storage === 'memory' ? startEtcdliteProcess({ memory: true }) : startEtcdliteProcess({ args: ['--unsafe-no-fsync'] })
}

/** Resident memory of a process, from /proc/<pid>/status, in bytes. */
export interface Rss {
  /** VmRSS: everything resident. */
  readonly total: number
  /** RssAnon: heap, stacks and buffers; excludes file pages (etcd's bbolt mmap, shared libraries). */
  readonly anon: number
}

export function readRss(pid: number): Rss {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (field: string): number => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)
    if (m?.[1] === undefined) throw new Error(`/proc/${pid}/status has no ${field}`)
    return Number(m[1]) * 1024
  }
  return { total: kib('VmRSS'), anon: kib('RssAnon') }
}

/** CPU time (user + system) a process has used so far, in seconds, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100 // clock ticks: USER_HZ is 100 on Linux
}

/** Samples a process's RSS every `intervalMs` until stopped; keeps the maxima. */
export class RssSampler {
  private readonly timer: NodeJS.Timeout
  private maxTotal: number
  private maxAnon: number
  readonly start: Rss
  samples = 0

  constructor(private readonly pid: number, intervalMs = 50) {
    this.start = readRss(pid)
    this.maxTotal = this.start.total
    this.maxAnon = this.start.anon
    this.timer = setInterval(() => this.sample(), intervalMs)
    this.timer.unref()
  }

  private sample(): void {
    let r: Rss
    try {
      r = readRss(this.pid)
    } catch {
      return // the process is gone; the test reports that on its own
    }
    this.samples++
    this.maxTotal = Math.max(this.maxTotal, r.total)
    this.maxAnon = Math.max(this.maxAnon, r.anon)
  }

  /** Stop sampling (after one last sample) and return the start and the maxima. */
  stop(): { readonly start: Rss; readonly max: Rss; readonly samples: number } {
    this.sample()
    clearInterval(this.timer)
    return { start: this.start, max: { total: this.maxTotal, anon: this.maxAnon }, samples: this.samples }
  }
}

export const MiB = 1024 * 1024
export const mib = (n: number): string => `${(n / MiB).toFixed(1)} MiB`

/** Reject with `what` if `p` has not settled within `ms`. */
export async function withDeadline<T>(p: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`deadline of ${ms} ms passed: ${what()}`)), ms)
  })
  try {
    return await Promise.race([p, deadline])
  } finally {
    clearTimeout(timer)
  }
}

/** Byte order as etcd compares keys. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b)
}

/**
 * True when `key` is watched by a watcher on [start, end): end undefined or empty = the single key start;
 * end "\0" = every key >= start (etcd's from-key).
 */
export function watches(start: Uint8Array, end: Uint8Array | undefined, key: Uint8Array): boolean {
  if (end === undefined || end.length === 0) return compareBytes(key, start) === 0
  if (end.length === 1 && end[0] === 0) return compareBytes(key, start) >= 0
  return compareBytes(key, start) >= 0 && compareBytes(key, end) < 0
}

/** The key that ends a prefix range (etcd's clientv3.GetPrefixRangeEnd). */
export function prefixEnd(prefix: Uint8Array): Buffer {
  const end = Buffer.from(prefix)
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1
      return end.subarray(0, i + 1)
    }
  }
  return Buffer.from([0])
}

// Watch calls

/** One Watch stream whose responses are handed to a callback as they arrive (no per-message promise). */
export interface WatchCall {
  send(req: WatchRequest): void
  /** Stop taking data from the transport: HTTP/2 flow control then stalls the server's sends. */
  pause(): void
  resume(): void
  /** Cancel the stream; its watchers go away on the server. */
  close(): void
  /** Resolves when the stream has ended, with the reason. */
  readonly ended: Promise<string>
}

/**
 * A Watch client seen through the wire shape the test adapters produce (pb.ts numbers for enums), not the
 * generated request type (enum names), as test/helpers/watch-stream.ts does.
 */
export type WatchClient = grpc.Client & { Watch(): grpc.ClientDuplexStream<object, unknown> }

export interface WatchCallHandlers {
  onResponse(r: WatchResponse): void
}

/**
 * A grpc-js Watch client with a connection of its own (a local subchannel pool: grpc-js would otherwise
 * share one connection between clients with the same target and options). No limit on message size:
 * etcd sends up to 1000 revisions in one catch-up response.
 */
export function watchConnection(endpoint: string): WatchClient {
  const proto = loadEtcdProto()
  return new proto.etcdserverpb.Watch(endpoint, grpc.credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
    'grpc.max_receive_message_length': -1,
  })
}

/** Open a Watch stream on a grpc-js client from watchConnection(). */
export function grpcWatchCall(client: WatchClient, h: WatchCallHandlers): WatchCall {
  const call = client.Watch()
  const ended = new Promise<string>((resolve) => {
    call.on('error', (e: grpc.ServiceError) => resolve(`status ${e.code}: ${e.details}`))
    call.on('end', () => resolve('end'))
  })
  call.on('data', (d: unknown) => h.onResponse(fromPbWatchResponse(d)))
  return {
    send: (req) => void call.write(toPbWatchRequest(req)),
    pause: () => call.pause(),
    resume: () => call.resume(),
    close: () => call.cancel(),
    ended,
  }
}

/**
 * A Watch stream on a raw node:http2 session of its own: gRPC framing (1-byte flag, 4-byte length) by
 * hand. pause() stops reading DATA frames, so the stream's HTTP/2 receive window (64 KiB) fills and the
 * server can send no more: a consumer that has stopped reading (node:http2 grants window only for data
 * read). `receivedBytes` counts bytes read, `bufferedBytes` those held unread.
 */
export function rawH2WatchCall(endpoint: string, h: WatchCallHandlers): WatchCall & { readonly receivedBytes: number; readonly bufferedBytes: number; closeSession(): Promise<void> } {
  const method = loadEtcdProto().etcdserverpb.Watch.service.Watch
  const serialize = method.requestSerialize as (req: object) => Buffer
  const session = http2.connect(`http://${endpoint}`)
  session.on('error', () => undefined) // reported through the stream's end
  const stream = session.request({ ':method': 'POST', ':path': '/etcdserverpb.Watch/Watch', 'content-type': 'application/grpc', te: 'trailers' })
  let received = 0
  let chunks: Buffer[] = []
  let buffered = 0
  const ended = new Promise<string>((resolve) => {
    stream.on('trailers', (t: http2.IncomingHttpHeaders) => resolve(`trailers grpc-status ${String(t['grpc-status'])} ${String(t['grpc-message'] ?? '')}`))
    stream.on('error', (e: Error) => resolve(`error ${e.message}`))
    stream.on('close', () => resolve('closed'))
  })
  // Bytes are concatenated only once a whole message is in (a catch-up response can be megabytes).
  let need: number | undefined
  stream.on('data', (d: Buffer) => {
    received += d.length
    chunks.push(d)
    buffered += d.length
    for (;;) {
      if (need === undefined) {
        if (buffered < 5) return
        if ((chunks[0] as Buffer).length < 5) chunks = [Buffer.concat(chunks)]
        const head = chunks[0] as Buffer
        if (head[0] !== 0) throw new Error('compressed gRPC message: not expected')
        need = 5 + head.readUInt32BE(1)
      }
      if (buffered < need) return
      const all = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)
      const msg = all.subarray(5, need)
      const rest = all.subarray(need)
      chunks = rest.length === 0 ? [] : [rest]
      buffered = rest.length
      need = undefined
      h.onResponse(fromPbWatchResponse(method.responseDeserialize(msg)))
    }
  })
  const frame = (msg: Buffer): Buffer => {
    const head = Buffer.alloc(5)
    head.writeUInt32BE(msg.length, 1)
    return Buffer.concat([head, msg])
  }
  return {
    send: (req) => void stream.write(frame(serialize(toPbWatchRequest(req)))),
    pause: () => void stream.pause(),
    resume: () => void stream.resume(),
    close: () => void stream.close(http2.constants.NGHTTP2_CANCEL),
    ended,
    get receivedBytes() {
      return received
    },
    /** Bytes the HTTP/2 stream holds that have not been read (while paused). */
    get bufferedBytes() {
      return stream.readableLength
    },
    closeSession: () =>
      new Promise<void>((resolve) => {
        if (session.closed || session.destroyed) {
          resolve()
          return
        }
        stream.close(http2.constants.NGHTTP2_CANCEL)
        session.close(() => resolve())
      }),
  }
}
