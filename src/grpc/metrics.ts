// Per-method gRPC server metrics, named as etcd exposes them (go-grpc-prometheus, which etcd's v3rpc/grpc.go
// chains into every unary and stream call), plus etcd's own byte counters (v3rpc/metrics.go, codec.go).
//
// The hot path only bumps plain numbers on a per-method record: started and handled in a wrapper around the
// handler, messages and bytes in a wrapper around the (de)serializer, so every message is counted once, on
// the wire, whatever the handler does. prom-client sees the numbers only when scraped (collect()).
import {
  status, type MethodDefinition, type ServiceDefinition, type UntypedHandleCall, type UntypedServiceImplementation,
} from '@grpc/grpc-js'
import { Counter, Histogram, type Registry } from 'prom-client'

/** go-grpc-prometheus's grpc_type label. */
export type GrpcType = 'unary' | 'client_stream' | 'server_stream' | 'bidi_stream'

/** grpc-go codes.Code.String(), indexed by code: the grpc_code label values. */
const CODE_NAMES = [
  'OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists',
  'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented',
  'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated',
] as const

/** prometheus.DefBuckets, which go-grpc-prometheus's handling-time histogram uses. */
export const HANDLING_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

/** One method's counts: plain numbers, so counting costs no label hashing. */
class MethodStats {
  started = 0
  received = 0
  sent = 0
  /** Calls completed, by status code (index = code). */
  readonly handled: number[] = CODE_NAMES.map(() => 0)
  /** Handling-time observations per bucket (not cumulative; the last slot is past the largest bound). */
  readonly buckets: number[] = [...HANDLING_SECONDS_BUCKETS.map(() => 0), 0]
  sum = 0
  count = 0
  readonly labels: { readonly grpc_method: string; readonly grpc_service: string; readonly grpc_type: GrpcType }

  constructor(service: string, method: string, type: GrpcType) {
    this.labels = { grpc_method: method, grpc_service: service, grpc_type: type }
  }

  done(code: number, startedMs: number): void {
    this.handled[code in this.handled ? code : status.UNKNOWN]! += 1
    const s = (performance.now() - startedMs) / 1000
    let i = 0
    while (i < HANDLING_SECONDS_BUCKETS.length && s > HANDLING_SECONDS_BUCKETS[i]!) i++
    this.buckets[i]! += 1
    this.sum += s
    this.count++
  }
}

interface StatusLike {
  readonly code?: unknown
}
const codeOf = (err: unknown): number => {
  const c = typeof err === 'object' && err !== null ? (err as StatusLike).code : undefined
  return typeof c === 'number' && Number.isInteger(c) && c >= 0 && c < CODE_NAMES.length ? c : status.UNKNOWN
}

/** What a handler may see of its call: enough to learn how a streaming call ended. */
interface StreamEvents {
  on(event: 'error', l: (err: unknown) => void): unknown
  on(event: 'finish' | 'cancelled', l: () => void): unknown
}
type UnaryCallback = (err: unknown, ...rest: unknown[]) => void
type AnyHandler = (call: StreamEvents, cb?: UnaryCallback) => void

const typeOf = (m: MethodDefinition<unknown, unknown>): GrpcType =>
  m.requestStream ? (m.responseStream ? 'bidi_stream' : 'client_stream') : m.responseStream ? 'server_stream' : 'unary'

const HANDLING_NAME = 'grpc_server_handling_seconds'
const HANDLING_HELP = 'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.'

interface ExportedValue {
  readonly labels: Readonly<Record<string, string | number>>
  readonly sharedLabels: Readonly<Record<string, string>>
  readonly value: number
  readonly metricName: string
}

/**
 * The histogram of handling times, built from the method records at scrape time. prom-client has no way to
 * set a histogram's buckets, so this replaces getForPromString(), which prom-client 15's Registry reads for
 * the text format (and Histogram.get() builds on for JSON); test/e2e/http.test.ts compares the text with etcd's.
 */
class HandlingHistogram extends Histogram<'grpc_method' | 'grpc_service' | 'grpc_type'> {
  private readonly records: () => Iterable<MethodStats>

  constructor(registry: Registry, records: () => Iterable<MethodStats>) {
    super({
      name: HANDLING_NAME,
      help: HANDLING_HELP,
      labelNames: ['grpc_method', 'grpc_service', 'grpc_type'],
      buckets: [...HANDLING_SECONDS_BUCKETS],
      registers: [registry],
    })
    this.records = records
  }

  getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: ExportedValue[] }> {
    const values: ExportedValue[] = []
    const sharedLabels = {}
    for (const r of this.records()) {
      let acc = 0
      HANDLING_SECONDS_BUCKETS.forEach((le, i) => {
        acc += r.buckets[i]!
        values.push({ labels: { ...r.labels, le }, sharedLabels, value: acc, metricName: `${HANDLING_NAME}_bucket` })
      })
      values.push({ labels: { ...r.labels, le: '+Inf' }, sharedLabels, value: r.count, metricName: `${HANDLING_NAME}_bucket` })
      values.push({ labels: { ...r.labels }, sharedLabels, value: r.sum, metricName: `${HANDLING_NAME}_sum` })
      values.push({ labels: { ...r.labels }, sharedLabels, value: r.count, metricName: `${HANDLING_NAME}_count` })
    }
    return Promise.resolve({ name: HANDLING_NAME, help: HANDLING_HELP, type: 'histogram', aggregator: 'sum', values })
  }
}

/**
 * The gRPC metrics of one EtcdServer (one registry), shared by every gRPC server bound for it. Every service
 * goes through {@link GrpcMetrics.instrument} on registration; its methods are then listed with zero counts
 * before any call, as go-grpc-prometheus's Register does.
 *
 * Exposed: grpc_server_started_total, grpc_server_handled_total (by grpc_code), grpc_server_msg_received_total,
 * grpc_server_msg_sent_total, grpc_server_handling_seconds (etcd shows it only with --metrics=extensive;
 * etcdlite always does), etcd_network_client_grpc_received_bytes_total and _sent_bytes_total.
 */
export class GrpcMetrics {
  private readonly methods = new Map<string, MethodStats>()
  private receivedBytes = 0
  private sentBytes = 0

  constructor(registry: Registry) {
    const records = (): Iterable<MethodStats> => this.methods.values()
    const perMethod = (name: string, help: string, value: (r: MethodStats) => number): void => {
      new Counter({
        name, help, labelNames: ['grpc_method', 'grpc_service', 'grpc_type'], registers: [registry],
        collect(this: Counter<string>) {
          this.reset()
          for (const r of records()) this.inc(r.labels, value(r))
        },
      })
    }
    perMethod('grpc_server_started_total', 'Total number of RPCs started on the server.', (r) => r.started)
    new Counter({
      name: 'grpc_server_handled_total',
      help: 'Total number of RPCs completed on the server, regardless of success or failure.',
      labelNames: ['grpc_code', 'grpc_method', 'grpc_service', 'grpc_type'],
      registers: [registry],
      collect(this: Counter<string>) {
        this.reset()
        for (const r of records()) {
          CODE_NAMES.forEach((grpc_code, code) => this.inc({ grpc_code, ...r.labels }, r.handled[code]))
        }
      },
    })
    perMethod('grpc_server_msg_received_total', 'Total number of RPC stream messages received on the server.', (r) => r.received)
    perMethod('grpc_server_msg_sent_total', 'Total number of gRPC stream messages sent by the server.', (r) => r.sent)
    new HandlingHistogram(registry, records)
    const bytes = (name: string, help: string, value: () => number): void => {
      new Counter({
        name, help, registers: [registry],
        collect(this: Counter<string>) {
          this.reset()
          this.inc(value())
        },
      })
    }
    bytes('etcd_network_client_grpc_received_bytes_total', 'The total number of bytes received from grpc clients.', () => this.receivedBytes)
    bytes('etcd_network_client_grpc_sent_bytes_total', 'The total number of bytes sent to grpc clients.', () => this.sentBytes)
  }

  /**
   * Wrap a service for counting: each method's deserializer counts received messages and bytes, its
   * serializer sent ones, and its handler calls started, their status code when they end, and how long they
   * took (a unary call: until its callback; a stream: until its status is sent or the client cancels).
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
      outDef[name] = {
        ...m,
        requestDeserialize: (b: Buffer): unknown => {
          rec.received++
          this.receivedBytes += b.length
          return deserialize(b)
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
      outImpl[name] = (type === 'unary' || type === 'client_stream' ? wrapUnary(rec, h) : wrapStream(rec, h)) as UntypedHandleCall
    }
    return { def: outDef, impl: outImpl }
  }
}

function wrapUnary(rec: MethodStats, handler: UntypedHandleCall): AnyHandler {
  const h = handler as AnyHandler
  return (call, cb) => {
    rec.started++
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

function wrapStream(rec: MethodStats, handler: UntypedHandleCall): AnyHandler {
  const h = handler as AnyHandler
  return (call) => {
    rec.started++
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
    call.on('cancelled', () => end(status.CANCELLED))
    try {
      h(call)
    } catch (err) {
      end(status.UNKNOWN)
      throw err
    }
  }
}

const byRegistry = new WeakMap<Registry, GrpcMetrics>()

/** The gRPC metrics registered in `registry` (created on first use): one set per EtcdServer. */
export function grpcMetricsFor(registry: Registry): GrpcMetrics {
  let m = byRegistry.get(registry)
  if (m === undefined) {
    m = new GrpcMetrics(registry)
    byRegistry.set(registry, m)
  }
  return m
}
