// The JSON lines a run writes (bench/results.jsonl), one per measurement, and the report reads.
import type { CpuUse } from './cpu-time.js'
import type { ServerName, Target } from './servers.js'

/** The machine, the versions and the command line of a run. */
export interface MetaRecord {
  readonly type: 'meta'
  readonly date: string
  readonly command: string
  readonly cpu: string
  readonly cores: number
  readonly ramGiB: number
  readonly kernel: string
  readonly node: string
  readonly etcd: string
  readonly etcdlite: string
  readonly benchmark: string
  /** os.loadavg() (1, 5, 15 minutes) when the run started and when it ended: other work on the machine. */
  readonly loadAvgStart: readonly number[]
  readonly loadAvgEnd: readonly number[]
  readonly rounds: number
  readonly quick: boolean
}

/** One run of etcd's benchmark tool; `error` instead of figures when it failed. */
export interface ToolRecord {
  readonly type: 'tool'
  readonly workload: string
  readonly server: Target
  readonly round: number
  readonly perSecond: number | null
  readonly p99Ms: number | null
  /** What the tool counted: requests (watch: events), its rate times its duration. */
  readonly requests?: number
  /** The server's and the tool's CPU over the whole run of the tool; absent without Linux's /proc. */
  readonly cpu?: CpuUse
  readonly error?: string
}

/**
 * One start of a CLI server on an empty data dir (spawn to serving), or of a floor under etcdlite's start
 * (bench/node/startup-floor.ts: an empty node, or node with grpc-js and LevelDB loaded and a server bound),
 * and its RSS once idle.
 */
export interface StartupRecord {
  readonly type: 'startup'
  readonly server: ServerName | 'node' | 'node+libs'
  readonly round: number
  readonly readyMs: number
  readonly idleRssMiB: number | null
}

/** A fresh node process: importing etcdlite, then the first openEtcd({ memory: true }). */
export interface FirstOpenRecord {
  readonly type: 'first-open'
  readonly round: number
  readonly importMs: number
  readonly openMs: number
}

/** The embedded API driven in-process: `inFlight` requests at a time. */
export interface EmbeddedRecord {
  readonly type: 'embedded'
  readonly round: number
  readonly op: 'put' | 'range'
  readonly storage: 'memory' | 'disk'
  readonly inFlight: number
  readonly opsPerSec: number
}

/** One line printed by bench/informer.ts. */
export interface InformerRecord {
  readonly type: 'informer'
  readonly line: string
}

/** One micro-benchmark task (bench/micro). */
export interface MicroRecord {
  readonly type: 'micro'
  readonly name: string
  readonly opsPerSec: number
  readonly meanNs: number
  readonly p99Ns: number
  /** Relative margin of error of the mean latency, %. */
  readonly rme: number
  readonly samples: number
}

/** Appends of a put-sized record, each fdatasync'd before the next, by one writer (bench/ceiling/sync-floor.ts). */
export interface SyncFloorRecord {
  readonly type: 'sync-floor'
  readonly round: number
  /** `growing`: appended to a file that grows (LevelDB's log); `preallocated`: written into a zero-filled file (etcd's WAL). */
  readonly file: 'growing' | 'preallocated'
  readonly recordBytes: number
  readonly syncsPerSec: number
}

export type BenchRecord = MetaRecord | ToolRecord | StartupRecord | FirstOpenRecord | EmbeddedRecord | InformerRecord | MicroRecord | SyncFloorRecord
