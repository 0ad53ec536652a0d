// The watch benchmark's workloads, and the protocol between bench/run.ts (the runner) and
// bench/watch-client.ts (the load processes): a JSON config on argv, commands on stdin, markers on
// stderr, one JSON result on stdout.

/**
 * Watch fan-out: `watchers` watchers spread evenly over `streams` Watch streams, all on the one key the
 * writer puts (or, with --watch-prefix, on the prefix the writer's keys share). The writer runs at full
 * speed (`rate` null: `writerClients` puts in flight on as many connections) or open-loop at `rate` puts/s.
 */
export interface FanoutWorkload {
  readonly kind: 'fanout'
  readonly name: string
  readonly watchers: number
  readonly streams: number
  readonly rate: number | null
}

/**
 * Watch catch-up: `historyRevs` puts over `historyKeys` keys, then `watchers` watchers (on `streams`
 * streams) from revision 2; timed from the first create request until every watcher has received every
 * event of its key (`watch: 'key'`, watcher i on key i mod historyKeys) or of the whole prefix (`'prefix'`).
 */
export interface CatchupWorkload {
  readonly kind: 'catchup'
  readonly name: string
  readonly watchers: number
  readonly streams: number
  readonly historyRevs: number
  readonly historyKeys: number
  readonly watch: 'key' | 'prefix'
}

/** Memory per watcher: server RSS growth for `watchers` watchers on distinct keys, `streams` streams. */
export interface MemWorkload {
  readonly kind: 'mem'
  readonly name: string
  readonly watchers: number
  readonly streams: number
}

export type WatchWorkload = FanoutWorkload | CatchupWorkload | MemWorkload

/** The default watch workload set, in run order. */
export const WATCH_WORKLOADS: readonly WatchWorkload[] = [
  { kind: 'fanout', name: 'watch-fanout-100', watchers: 100, streams: 10, rate: null },
  { kind: 'fanout', name: 'watch-fanout-100-r500', watchers: 100, streams: 10, rate: 500 },
  { kind: 'fanout', name: 'watch-fanout-10k', watchers: 10_000, streams: 100, rate: null },
  { kind: 'fanout', name: 'watch-fanout-10k-r5', watchers: 10_000, streams: 100, rate: 5 },
  { kind: 'catchup', name: 'watch-catchup-50', watchers: 50, streams: 5, historyRevs: 10_000, historyKeys: 100, watch: 'prefix' },
  { kind: 'catchup', name: 'watch-catchup-10k', watchers: 10_000, streams: 100, historyRevs: 10_000, historyKeys: 100, watch: 'key' },
  { kind: 'mem', name: 'watch-mem-100k', watchers: 100_000, streams: 100 },
]

/** Streams per gRPC connection in the watch processes (etcd clients multiplex streams on one connection). */
export const STREAMS_PER_CONNECTION = 10

/**
 * The HTTP/2 flow-control window the watch processes grant, per stream and per connection, in bytes.
 * grpc-js keeps HTTP/2's default, 64 KiB, unless told otherwise; with it, 10,000 watchers behind a full-speed
 * writer got what the window let through (about 1.1M events/s from either server, both servers and the
 * watcher process partly idle) rather than what the servers could send. Real etcd clients grant more:
 * grpc-go, under etcd's own clientv3, grows its window from the bandwidth-delay product up to 16 MiB, and
 * grpc-java's default is 1 MiB, the value used here. Both servers get the same clients.
 */
export const WATCH_FLOW_CONTROL_WINDOW = 1024 * 1024

/** Puts in flight when the fan-out writer runs at full speed, each on its own connection (as put-16conn). */
export const FULL_SPEED_WRITERS = 16

/** Puts in flight per connection while writing catch-up history (setup, not measured; FULL_SPEED_WRITERS connections). */
export const HISTORY_PUTS_PER_CONNECTION = 4

/** At most this many watchers per run record per-event receive times for the latency figures. */
export const LATENCY_SAMPLED_WATCHERS = 64

/** What a watch load process does. */
export type WatchRole = 'writer' | 'history' | 'fanout' | 'catchup' | 'mem'

/** The config a watch load process gets as one JSON argument (`--config`). */
export interface WatchClientConfig {
  readonly role: WatchRole
  readonly endpoint: string
  readonly keySize: number
  readonly valueSize: number
  /** The key prefix of everything this workload writes and watches (one letter). */
  readonly prefix: string
  /** Writer: distinct keys to cycle through (1 = the single watched key). */
  readonly keySpace: number
  /** Writer: puts/s, or null for full speed with `writerClients` puts in flight. */
  readonly rate: number | null
  readonly writerClients: number
  /** History: puts to write. */
  readonly historyRevs: number
  /** Watchers: the global index range [first, first + count) this process owns, and their streams. */
  readonly firstWatcher: number
  readonly watchers: number
  readonly streams: number
  /** Watchers: watch the prefix instead of one key. */
  readonly watchPrefix: boolean
  /** Catch-up: keys the history was written over (watcher i watches key i mod historyKeys in 'key' mode). */
  readonly historyKeys: number
  /** Fan-out watchers: record receive times of every event for every `sampleEvery`-th watcher. */
  readonly sampleEvery: number
  /** Fan-out: where to write the binary samples (writer: rev, sendUs, ackUs; watchers: rev, recvUs). */
  readonly samplesFile: string
}

/** Stdin commands (one per line) and stderr markers (a line starting with the marker). */
export const CMD_GO = 'go' // go <startUs> <endUs>
export const CMD_DRAIN = 'drain' // drain <lastRev> <deadlineUs>
export const CMD_FINISH = 'finish'
export const MARK_READY = '@ready'
export const MARK_CREATED = '@created'

/** What the fan-out writer prints. */
export interface WriterResult {
  readonly role: 'writer'
  readonly puts: number
  readonly putsInWindow: number
  readonly errors: number
  readonly firstError: string | null
  readonly putP50Ms: number
  readonly putP99Ms: number
  readonly firstRev: number
  readonly lastRev: number
  /** Writer CPU over the window, % of one core. */
  readonly cpuPct: number
}

/** What the history writer prints. */
export interface HistoryResult {
  readonly role: 'history'
  readonly puts: number
  readonly lastRev: number
  readonly seconds: number
}

/** What a fan-out watch process prints. */
export interface FanoutResult {
  readonly role: 'fanout'
  readonly watchers: number
  readonly sampledWatchers: number
  readonly eventsInWindow: number
  readonly responsesInWindow: number
  readonly totalEvents: number
  /** Watchers that had not reached the writer's last revision when draining ended. */
  readonly laggingWatchers: number
  readonly canceled: number
  readonly cancelReason: string | null
  /** Sample pairs dropped because the buffer was full. */
  readonly samplesDropped: number
  /** CPU of this process over the window: µs, and % of one core. */
  readonly cpuUs: number
  readonly cpuPct: number
  readonly streamErrors: number
  readonly firstStreamError: string | null
}

/** What a catch-up watch process prints. */
export interface CatchupResult {
  readonly role: 'catchup'
  readonly watchers: number
  readonly completeWatchers: number
  readonly expectedEvents: number
  readonly events: number
  /** nowUs() when the first create request went out, and when the last watcher completed (null: did not). */
  readonly startUs: number
  readonly doneUs: number | null
  readonly headerRevision: number
  readonly canceled: number
  readonly cancelReason: string | null
  readonly cpuUs: number
  readonly streamErrors: number
  readonly firstStreamError: string | null
}

/** What a memory watch process prints. */
export interface MemResult {
  readonly role: 'mem'
  readonly watchers: number
  readonly created: number
  readonly canceled: number
  readonly cancelReason: string | null
  readonly streamErrors: number
  readonly firstStreamError: string | null
}

export type WatchClientResult = WriterResult | HistoryResult | FanoutResult | CatchupResult | MemResult
