// The acceptance table: the workloads of etcd's benchmark tool that `npm run bench` runs against both
// servers. The arguments are the tool's own (`benchmark help <command>`); only the request count scales
// (--quick, and the warm-up pass).

/** The key the range workloads read, put (with a 256-byte value) before they run. */
export const RANGE_KEY = 'bench-range-key'

export interface Workload {
  readonly name: string
  /** For the report: what the clients do. */
  readonly title: string
  /** What a figure counts: requests per second, or watch events received per second. */
  readonly unit: 'requests/s' | 'events/s'
  /** The tool's arguments before the request count. */
  readonly args: readonly string[]
  /** The flag that sets the request count (`--put-total` for watch: the events are puts × watchers). */
  readonly totalFlag: '--total' | '--put-total'
  readonly total: number
  /** Arguments after the request count. */
  readonly tail: readonly string[]
  /** Put RANGE_KEY before the run. */
  readonly needsRangeKey: boolean
  /**
   * The tool's latency distribution is the requests' round trips. Not for watch: there it times each event
   * from the arrival of the response that carried it, on the client, which says nothing of the server.
   */
  readonly latency: boolean
  /** The acceptance figure: etcdlite / etcd must reach it (1.2× for writes, keep-alives and watch; 1.5× for reads and txns). */
  readonly target: number
  /** One client writing: each request waits for a sync of its own, so the sync floor bounds it (no group commit). */
  readonly syncBound: boolean
  /** The tool cancels each call's stream (lease keep-alive): nghttp2 closes a connection after ~1,000 resets. */
  readonly resetsEachCall?: boolean
}

const PUT_TAIL = ['--key-space-size', '100000', '--val-size', '256'] as const

function clients(conns: number, n: number): string[] {
  return ['--conns', String(conns), '--clients', String(n)]
}

function put(name: string, title: string, conns: number, n: number, total: number): Workload {
  return { name, title, unit: 'requests/s', args: [...clients(conns, n), 'put'], totalFlag: '--total', total, tail: PUT_TAIL, needsRangeKey: false, latency: true, target: 1.2, syncBound: n === 1 }
}

function range(name: string, title: string, conns: number, n: number, total: number): Workload {
  return { name, title, unit: 'requests/s', args: [...clients(conns, n), 'range', RANGE_KEY], totalFlag: '--total', total, tail: [], needsRangeKey: true, latency: true, target: 1.5, syncBound: false }
}

export const WORKLOADS: readonly Workload[] = [
  put('put-1', 'put, 1 client', 1, 1, 3000),
  put('put-16', 'put, 16 clients / 2 conns', 2, 16, 30_000),
  put('put-100', 'put, 100 clients / 10 conns', 10, 100, 60_000),
  range('range-1', 'range 1 key, 1 client', 1, 1, 10_000),
  range('range-16', 'range 1 key, 16 clients / 2 conns', 2, 16, 50_000),
  range('range-100', 'range 1 key, 100 clients / 10 conns', 10, 100, 100_000),
  {
    name: 'txn-put-16', title: 'txn-put, 16 clients / 2 conns', unit: 'requests/s', args: [...clients(2, 16), 'txn-put'], totalFlag: '--total', total: 20_000, tail: PUT_TAIL,
    needsRangeKey: false, latency: true, target: 1.5, syncBound: false,
  },
  {
    name: 'lease-keepalive-16', title: 'lease keep-alive, 16 clients / 2 conns', unit: 'requests/s', args: [...clients(2, 16), 'lease-keepalive'], totalFlag: '--total', total: 20_000, tail: [],
    needsRangeKey: false, latency: true, target: 1.2, syncBound: false, resetsEachCall: true,
  },
  {
    name: 'watch', title: 'watch, 10 streams × 100 watchers of 1 key', unit: 'events/s',
    args: [...clients(10, 100), 'watch', '--streams', '10', '--watch-per-stream', '100'], totalFlag: '--put-total', total: 5000,
    // Without --put-rate the tool panics on a zero-burst rate limiter.
    tail: ['--put-rate', '100000', '--key-space-size', '1'], needsRangeKey: false, latency: false, target: 1.2, syncBound: false,
  },
]

/** The tool's arguments for `w` with its request count multiplied by `scale` (at least 100 requests). */
export function toolArgs(w: Workload, scale = 1): string[] {
  const total = Math.max(100, Math.round(w.total * scale))
  return [...w.args, w.totalFlag, String(total), ...w.tail]
}

/** The workloads named in `names` (comma-separated), in table order; throws on an unknown name. */
export function selectWorkloads(names: string | undefined): Workload[] {
  if (names === undefined || names === 'all') return [...WORKLOADS]
  const wanted = new Set(names.split(',').map((s) => s.trim()).filter((s) => s !== ''))
  for (const n of wanted) {
    if (!WORKLOADS.some((w) => w.name === n)) throw new Error(`unknown workload ${n}; one of: ${WORKLOADS.map((w) => w.name).join(', ')}`)
  }
  return WORKLOADS.filter((w) => wanted.has(w.name))
}
