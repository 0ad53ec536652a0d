// The server benchmark's workloads and the result shape that bench/client.ts prints and bench/run.ts reads.

/** What one client process does against one server. */
export type Op = 'put' | 'range'

/**
 * One workload: `clients` concurrent request loops, each with one request in flight, spread over
 * `channels` gRPC channels (each channel is its own TCP connection). channels = clients models
 * independent clients; channels = 1 with many clients models one multiplexed client (HTTP/2 streams).
 */
export interface Workload {
  /** Stable name used in tables and JSON, e.g. `put-16ch`. */
  readonly name: string
  readonly op: Op
  readonly clients: number
  readonly channels: number
}

/** The default workload set, in run order. */
export const WORKLOADS: readonly Workload[] = [
  { name: 'put-1', op: 'put', clients: 1, channels: 1 },
  { name: 'put-16conn', op: 'put', clients: 16, channels: 16 },
  { name: 'put-16x1conn', op: 'put', clients: 16, channels: 1 },
  { name: 'range-1', op: 'range', clients: 1, channels: 1 },
  { name: 'range-16conn', op: 'range', clients: 16, channels: 16 },
  { name: 'range-16x1conn', op: 'range', clients: 16, channels: 1 },
]

/** Everything the client process needs besides the endpoint and the workload. */
export interface LoadParams {
  readonly seconds: number
  readonly warmupSeconds: number
  readonly keySize: number
  readonly valueSize: number
  /** Number of distinct keys the put workloads cycle through. */
  readonly keySpace: number
  /** Send Range with serializable=true (etcd then skips the ReadIndex round). Default false, as clients do. */
  readonly serializable: boolean
}

/** What bench/client.ts prints (one JSON object on stdout) for one workload run. */
export interface ClientResult {
  readonly op: Op
  readonly clients: number
  readonly channels: number
  /** Requests that started inside the measured window and completed without error. */
  readonly ops: number
  readonly errors: number
  /** First error message seen, if any. */
  readonly firstError: string | null
  /** Measured wall time in seconds (from window start to the last completion). */
  readonly elapsedSeconds: number
  readonly opsPerSec: number
  readonly p50Ms: number
  readonly p90Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  readonly meanMs: number
  /** CPU used by the client process during the window, in % of one core (shows if the client is the bottleneck). */
  readonly clientCpuPct: number
}

/** Marker lines the client writes to stderr so the runner can sample the server's CPU over the window. */
export const MEASURE_START = '@measure-start'
export const MEASURE_END = '@measure-end'
