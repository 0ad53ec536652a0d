// Per-method gRPC server metrics, named as etcd exposes them (go-grpc-prometheus, which etcd's v3rpc/grpc.go
// chains into every unary and stream call), plus etcd's own v3rpc families: the client byte counters
// (v3rpc/metrics.go, codec.go), etcd_server_client_requests_total (its interceptors) and
// etcd_network_server_stream_failures_total (its watch and keep-alive streams).
//
// The hot path only bumps plain numbers on a per-method record: started and handled in a wrapper around the
// handler, messages and bytes in a wrapper around the (de)serializer, so every message is counted once, on
// the wire, whatever the handler does. The families are built from the numbers when scraped
// (etcdserver/metrics.ts asks for them).
import {
  status, type MethodDefinition, type ServiceDefinition, type UntypedHandleCall, type UntypedServiceImplementation,
} from '@grpc/grpc-js'
import type { MetricsContext, ServerMetrics } from '../etcdserver/metrics.js'
import type { MetricFamily } from '../pkg/expfmt.js'
import { HistogramCounts } from '../pkg/histogram.js'

/** go-grpc-prometheus's grpc_type label. */
export type GrpcType = 'unary' | 'client_stream' | 'server_stream' | 'bidi_stream'

/** grpc-go codes.Code.String(), indexed by code: the grpc_code label values. */
const CODE_NAMES = [
  'OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists',
  'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented',
  'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated',
] as const

/** prometheus.DefBuckets, which go-grpc-prometheus's handling-time histogram uses. */
export const HANDLING_SECONDS_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/**
 * The services etcd registers on its gRPC server before go-grpc-prometheus's Register, which lists their
 * methods with zero counts before any call (v3rpc/grpc.go). Lock and Election are registered later and
 * reflection not at all, so their methods appear once called.
 */
const PRE_REGISTERED = new Set([
  'etcdserverpb.KV', 'etcdserverpb.Watch', 'etcdserverpb.Lease', 'etcdserverpb.Cluster', 'etcdserverpb.Maintenance',
  'etcdserverpb.Auth', 'grpc.health.v1.Health',
])
/** Methods etcd 3.4's API does not have (3.5 added them), so a 3.4 server lists them only once called. */
const SINCE_3_5 = new Set(['etcdserverpb.Auth/AuthStatus', 'etcdserverpb.Maintenance/Downgrade'])

/**
 * The code a stream's handler returns in etcd when its client cancels, where it is not Canceled: etcd's
 * LeaseKeepAlive answers its context's cancellation with ErrGRPCNoLeader ("the only server-side
 * cancellation is noleader for now"), so every keep-alive stream a client closes counts as Unavailable.
 */
const CANCELLED_AS: Readonly<Record<string, number>> = {
  'etcdserverpb.Lease/LeaseKeepAlive': status.UNAVAILABLE,
}

/** One method's counts: plain numbers, so counting costs no label hashing. */
class MethodStats {
  started = 0
  received = 0
  sent = 0
  /** Calls completed, by status code (index = code). */
  readonly handled: number[] = CODE_NAMES.map(() => 0)
  readonly seconds = new HistogramCounts(HANDLING_SECONDS_BUCKETS)
  readonly labels: { readonly grpc_method: string; readonly grpc_service: string; readonly grpc_type: GrpcType }
  /** The code a call its client cancelled ends with. */
  readonly cancelledCode: number
  private readonly preRegistered: boolean
  private readonly since35: boolean

  constructor(service: string, method: string, type: GrpcType) {
    this.labels = { grpc_method: method, grpc_service: service, grpc_type: type }
    this.preRegistered = PRE_REGISTERED.has(service)
    this.since35 = SINCE_3_5.has(`${service}/${method}`)
    this.cancelledCode = CANCELLED_AS[`${service}/${method}`] ?? status.CANCELLED
  }

  /** Whether the server lists the method now: called at least once, or listed from the start. */
  shown(ctx: MetricsContext): boolean {
    return this.started !== 0 || (this.preRegistered && (!this.since35 || ctx.minor >= 5))
  }

  done(code: number, startedMs: number): void {
    const i = code in this.handled ? code : status.UNKNOWN
    this.handled[i] = (this.handled[i] ?? 0) + 1
    this.seconds.observe((performance.now() - startedMs) / 1000)
  }
}

interface StatusLike {
  readonly code?: unknown
}
const codeOf = (err: unknown): number => {
  const c = typeof err === 'object' && err !== null ? (err as StatusLike).code : undefined
  return typeof c === 'number' && Number.isInteger(c) && c >= 0 && c < CODE_NAMES.length ? c : status.UNKNOWN
}

/** What a handler may see of its call: its metadata, and enough to learn how a streaming call ended. */
interface CallLike {
  readonly metadata?: { get(key: string): readonly unknown[] }
  on(event: 'error', l: (err: unknown) => void): unknown
  on(event: 'finish' | 'cancelled', l: () => void): unknown
}
type UnaryCallback = (err: unknown, ...rest: unknown[]) => void
type AnyHandler = (call: CallLike, cb?: UnaryCallback) => void

const typeOf = (m: MethodDefinition<unknown, unknown>): GrpcType =>
  m.requestStream ? (m.responseStream ? 'bidi_stream' : 'client_stream') : m.responseStream ? 'server_stream' : 'unary'

/** etcd's rpctypes.MetadataClientAPIVersionKey: clientv3 sends its version there ("3.4", "3.5"). */
const CLIENT_API_VERSION = 'client-api-version'

/** The call's client-api-version metadata, or "unknown" when it sends none (as etcd's interceptors label it). */
function clientApiVersion(call: CallLike): string {
  const v = call.metadata?.get(CLIENT_API_VERSION)[0]
  if (typeof v === 'string') return v
  return v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : 'unknown'
}

/** etcd's streamFailures labels: what failed, on which stream API. */
export type StreamFailure = { readonly type: 'send' | 'receive'; readonly api: 'watch' | 'lease-keepalive' }

/** The streams etcd counts failures of, by method path. */
const STREAM_APIS: Readonly<Record<string, StreamFailure['api']>> = {
  '/etcdserverpb.Watch/Watch': 'watch',
  '/etcdserverpb.Lease/LeaseKeepAlive': 'lease-keepalive',
}

/**
 * The gRPC metrics of one EtcdServer, shared by every gRPC server bound for it. Every service goes through
 * {@link GrpcMetrics.instrument} on registration.
 *
 * Exposed: grpc_server_started_total, grpc_server_handled_total (by grpc_code), grpc_server_msg_received_total,
 * grpc_server_msg_sent_total, grpc_server_handling_seconds (only with etcd's --metrics=extensive),
 * etcd_network_client_grpc_received_bytes_total and _sent_bytes_total, etcd_server_client_requests_total and
 * etcd_network_server_stream_failures_total.
 */
export class GrpcMetrics {
  private readonly methods = new Map<string, MethodStats>()
  private receivedBytes = 0
  private sentBytes = 0
  /** Calls by type ("unary" or "stream") and client API version, keyed `type|version`. */
  private readonly clientRequests = new Map<string, number>()
  private readonly streamFailures = new Map<string, number>()

  /** Count a stream that failed other than by its client going away (etcd's streamFailures). */
  streamFailed(f: StreamFailure): void {
    const k = `${f.type}|${f.api}`
    this.streamFailures.set(k, (this.streamFailures.get(k) ?? 0) + 1)
  }

  private clientRequest(type: 'unary' | 'stream', call: CallLike): void {
    const k = `${type}|${clientApiVersion(call)}`
    this.clientRequests.set(k, (this.clientRequests.get(k) ?? 0) + 1)
  }

  /** The families, as etcd shows them for `ctx`. */
  families(ctx: MetricsContext): MetricFamily[] {
    const shown = [...this.methods.values()].filter((r) => r.shown(ctx))
    const perMethod = (name: string, help: string, value: (r: MethodStats) => number): MetricFamily => ({
      name, help, type: 'counter', metrics: shown.map((r) => ({ labels: r.labels, value: value(r) })),
    })
    const out: MetricFamily[] = [
      perMethod('grpc_server_started_total', 'Total number of RPCs started on the server.', (r) => r.started),
      {
        name: 'grpc_server_handled_total',
        help: 'Total number of RPCs completed on the server, regardless of success or failure.',
        type: 'counter',
        metrics: shown.flatMap((r) => CODE_NAMES.map((grpc_code, code) => ({ labels: { grpc_code, ...r.labels }, value: r.handled[code] ?? 0 }))),
      },
      perMethod('grpc_server_msg_received_total', 'Total number of RPC stream messages received on the server.', (r) => r.received),
      perMethod('grpc_server_msg_sent_total', 'Total number of gRPC stream messages sent by the server.', (r) => r.sent),
      {
        name: 'etcd_network_client_grpc_received_bytes_total', help: 'The total number of bytes received from grpc clients.',
        type: 'counter', metrics: [{ labels: {}, value: this.receivedBytes }],
      },
      {
        name: 'etcd_network_client_grpc_sent_bytes_total', help: 'The total number of bytes sent to grpc clients.',
        type: 'counter', metrics: [{ labels: {}, value: this.sentBytes }],
      },
      {
        name: 'etcd_server_client_requests_total', help: 'The total number of client requests per client version.', type: 'counter',
        metrics: [...this.clientRequests].map(([k, value]) => {
          const [type = '', client_api_version = ''] = k.split('|')
          return { labels: { client_api_version, type }, value }
        }),
      },
      {
        name: 'etcd_network_server_stream_failures_total', help: 'The total number of stream failures from the local server.', type: 'counter',
        metrics: [...this.streamFailures].map(([k, value]) => {
          const [Type = '', API = ''] = k.split('|')
          return { labels: { API, Type }, value }
        }),
      },
    ]
    if (ctx.extensive) {
      out.push({
        name: 'grpc_server_handling_seconds',
        help: 'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.',
        type: 'histogram',
        metrics: shown.map((r) => ({ labels: r.labels, bounds: r.seconds.bounds, cumulative: r.seconds.cumulative(), sum: r.seconds.sum, count: r.seconds.count })),
      })
    }
    return out
  }

  /**
   * Wrap a service for counting: each method's deserializer counts received messages and bytes, its
   * serializer sent ones, and its handler calls started (and per client API version), their status code
   * when they end, and how long they took (a unary call: until its callback; a stream: until its status is
   * sent or the client cancels).
   */
  instrument(def: ServiceDefinition, impl: UntypedServiceImplementation): { def: ServiceDefinition; impl: UntypedServiceImplementation } {
    const outDef: Record<string, MethodDefinition<unknown, unknown>> = {}
    const outImpl: UntypedServiceImplementation = {}
    for (const [name, m] of Object.entries(def) as [string, MethodDefinition<unknown, unknown>][]) {
      const path = m.path.startsWith('/') ? m.path.slice(1) : m.path
      const slash = path.lastIndexOf('/')
      const type = typeOf(m)
      let st = this.methods.get(m.path)
      if (st === undefined) {
        st = new MethodStats(path.slice(0, slash), path.slice(slash + 1), type)
        this.methods.set(m.path, st)
      }
      const rec = st
      const deserialize = m.requestDeserialize
      const serialize = m.responseSerialize
      const api = STREAM_APIS[m.path]
      outDef[name] = {
        ...m,
        requestDeserialize: (b: Buffer): unknown => {
          // etcd's codec counts the bytes before unmarshalling; go-grpc-prometheus counts a message once it
          // has been received whole, so not one that does not unmarshal.
          this.receivedBytes += b.length
          let msg: unknown
          try {
            msg = deserialize(b)
          } catch (err) {
            // A message that does not unmarshal ends the stream's receive loop in etcd, which counts it.
            if (api !== undefined) this.streamFailed({ type: 'receive', api })
            throw err
          }
          rec.received++
          return msg
        },
        responseSerialize: (v: unknown): Buffer => {
          const b = serialize(v)
          rec.sent++
          this.sentBytes += b.length
          return b
        },
      }
      const h = impl[name]
      if (h === undefined) continue
      // A client stream ends through its callback, as a unary call does; etcd's interceptors count it as a stream.
      const wrapped = type === 'unary' ? this.wrapUnary(rec, h, 'unary') : type === 'client_stream' ? this.wrapUnary(rec, h, 'stream') : this.wrapStream(rec, h)
      outImpl[name] = wrapped as UntypedHandleCall
    }
    return { def: outDef, impl: outImpl }
  }

  private wrapUnary(rec: MethodStats, handler: UntypedHandleCall, kind: 'unary' | 'stream'): AnyHandler {
    const h = handler as AnyHandler
    return (call, cb) => {
      rec.started++
      this.clientRequest(kind, call)
      const t0 = performance.now()
      let ended = false
      try {
        h(call, (err: unknown, ...rest: unknown[]) => {
          if (!ended) {
            ended = true
            rec.done(err === null || err === undefined ? status.OK : codeOf(err), t0)
          }
          cb?.(err, ...rest)
        })
      } catch (err) {
        // grpc-js answers a throwing handler with UNKNOWN.
        if (!ended) rec.done(status.UNKNOWN, t0)
        ended = true
        throw err
      }
    }
  }

  /** A server or bidirectional stream: it ends when its status goes out or its client cancels. */
  private wrapStream(rec: MethodStats, handler: UntypedHandleCall): AnyHandler {
    const h = handler as AnyHandler
    return (call) => {
      rec.started++
      this.clientRequest('stream', call)
      const t0 = performance.now()
      let code: number = status.OK
      let ended = false
      const end = (c: number): void => {
        if (ended) return
        ended = true
        rec.done(c, t0)
      }
      // 'error' (the handler failed the call) always precedes 'finish' (the status went out).
      call.on('error', (err) => (code = codeOf(err)))
      call.on('finish', () => end(code))
      call.on('cancelled', () => end(rec.cancelledCode))
      try {
        h(call)
      } catch (err) {
        end(status.UNKNOWN)
        throw err
      }
    }
  }
}

const byServer = new WeakMap<ServerMetrics, GrpcMetrics>()

/** The gRPC metrics of one EtcdServer (made on first use, and shown on its /metrics). */
export function grpcMetricsFor(server: ServerMetrics): GrpcMetrics {
  let m = byServer.get(server)
  if (m === undefined) {
    const made = new GrpcMetrics()
    server.addSource((ctx) => made.families(ctx))
    byServer.set(server, made)
    m = made
  }
  return m
}
