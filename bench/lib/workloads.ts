// The server benchmark's workloads and the result shape that bench/client.ts prints and bench/run.ts reads.

/**
 * What one client process does against one server:
 * - `put`: one key of the key space per request, in turn;
 * - `range`: one pre-populated key;
 * - `range-prefix`: a prefix holding PREFIX_KEYS pre-populated keys, all returned;
 * - `txn-cas`: compare-and-swap on one of HOT_KEYS hot keys (compare the value last seen, put a new one;
 *   on a lost race the failure branch reads the current value), as a lock or counter client does;
 * - `txn-16`: one txn of 16 puts to keys of the key space;
 * - `mix`: 90% `range` of one of MIX_KEYS pre-populated keys, 10% `put` to one of them.
 */
export type Op = 'put' | 'range' | 'range-prefix' | 'txn-cas' | 'txn-16' | 'mix'

export const OPS: readonly Op[] = ['put', 'range', 'range-prefix', 'txn-cas', 'txn-16', 'mix']
/** Keys under the prefix of `range-prefix`. */
export const PREFIX_KEYS = 100
/** Keys the `txn-cas` clients fight over. */
export const HOT_KEYS = 16
/** Puts per `txn-16` request. */
export const TXN_PUTS = 16
/** Keys the `mix` workload reads and writes. */
export const MIX_KEYS = 1000

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
  /** Ranges with serializable=true (etcd skips its ReadIndex round); default: the --serializable flag. */
  readonly serializable?: boolean
}

/** The default workload set, in run order. */
export const WORKLOADS: readonly Workload[] = [
  { name: 'put-1', op: 'put', clients: 1, channels: 1 },
  { name: 'put-16conn', op: 'put', clients: 16, channels: 16 },
  { name: 'put-16x1conn', op: 'put', clients: 16, channels: 1 },
  { name: 'range-1', op: 'range', clients: 1, channels: 1 },
  { name: 'range-16conn', op: 'range', clients: 16, channels: 16 },
  { name: 'range-16x1conn', op: 'range', clients: 16, channels: 1 },
  { name: 'put-1000x100conn', op: 'put', clients: 1000, channels: 100 },
  { name: 'range-1-serializable', op: 'range', clients: 1, channels: 1, serializable: true },
  { name: 'range-16conn-serializable', op: 'range', clients: 16, channels: 16, serializable: true },
  { name: 'range-prefix100-16conn', op: 'range-prefix', clients: 16, channels: 16 },
  { name: 'txn-cas-16conn', op: 'txn-cas', clients: 16, channels: 16 },
  { name: 'txn-16puts-16conn', op: 'txn-16', clients: 16, channels: 16 },
  { name: 'mix-90r10w-16conn', op: 'mix', clients: 16, channels: 16 },
]

/** Everything the client process needs besides the endpoint and the workload. */
/**
 * The KV load generator's client: grpc-js with protobufjs (the default, what etcdlite's users run), or bare
 * node:http2 with hand-encoded messages (bench/lib/h2-kv.ts), which costs the load generator about half.
 */
export const KV_CLIENTS = ['grpc-js', 'h2'] as const
export type KvClientKind = (typeof KV_CLIENTS)[number]

export interface LoadParams {
  /** The KV load generator's client (KV_CLIENTS). */
  readonly client: KvClientKind
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
  /** The client the load generator used (LoadParams.client). */
  readonly client: KvClientKind
  /** Its main thread's (which runs every client), in % of one core; near 100 the client was the limit. Null where not measurable. */
  readonly clientMainCpuPct: number | null
  /** The machine's CPU steal during the window, in % (cpu-steal.ts); null where not measurable. */
  readonly stealPct: number | null
}

/** Marker lines the client writes to stderr so the runner can sample the server's CPU over the window. */
export const MEASURE_START = '@measure-start'
export const MEASURE_END = '@measure-end'
