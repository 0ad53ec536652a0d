// How much unmeasured load a server gets before it is measured (--server-warmup).
//
// etcdlite runs on V8, which compiles a function with its optimizing compiler only once it has run often
// enough; until then the function runs interpreted or baseline-compiled, several times slower. etcd is
// compiled ahead of time. Measured on this bench's machine, a put-1 window that opened after 1 s of load
// cost etcdlite 1.18–1.27 ms of server CPU per put (four runs) and one that opened after 10 s 0.37–0.65 ms
// (two runs; etcd: 0.43 and 0.35); watch-fanout-100 cost 9.8 µs of server CPU per event after 1 s and 4.3 µs after 8 s (etcd: 5.0
// and 3.6). A benchmark of a long-running server measures it warm, so every server (and every Node
// ceiling server, which warms up the same way) gets the same unmeasured load first.

/** Default --server-warmup, seconds. */
export const DEFAULT_SERVER_WARMUP_SECONDS = 5

/**
 * The KV servers are shared by every KV workload and round: before the first round each of them, and the
 * RPC ceiling, runs every selected workload's load once, unmeasured, this many seconds each; 0: no pass.
 */
export function kvWarmupPassSeconds(serverWarmupSeconds: number, workloads: number): number {
  if (serverWarmupSeconds <= 0 || workloads <= 0) return 0
  return Math.max(1, serverWarmupSeconds / workloads)
}

/** A workload that starts its own fresh server warms it up with its own load for this many seconds. */
export function freshServerWarmupSeconds(warmupSeconds: number, serverWarmupSeconds: number): number {
  return Math.max(warmupSeconds, serverWarmupSeconds)
}
