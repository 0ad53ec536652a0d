// Whether a throughput target is within reach on the machine that ran, from the run's own measurements.
// The issue asks, where a target is beyond what can be done here, for the measurement that proves it.
// Both bounds below are generous to the target: anything they rule out no server could reach on this
// machine with this load generator, however little work it did.

/** Why a target cannot be met on this machine; undefined when the bound does not rule it out. */
export type OutOfReach = string | undefined

const fmt = (x: number, digits = 0): string => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** How the notes name the RPC ceiling and the commit ceiling. */
const RPC_CEILING = 'the RPC ceiling (canned answers)'
const COMMIT_CEILING = "the commit ceiling (canned answers once each put's record is committed to LevelDB)"

/**
 * A KV target of `factor` × etcd's ops/s is out of reach when the RPC ceiling is below it: the ceiling is a
 * bare grpc-js server answering the same requests with canned responses, driven by the same load generator,
 * so no server doing real work can go faster. `ceiling` names another ceiling of the same kind in the note.
 */
export function kvOutOfReach(factor: number, etcdOps: number | null, ceilingOps: number | null, ceiling = RPC_CEILING): OutOfReach {
  if (etcdOps === null || ceilingOps === null || etcdOps <= 0) return undefined
  if (ceilingOps >= factor * etcdOps) return undefined
  return `out of reach here: ${ceiling} reached ${fmt(ceilingOps)} ops/s, ` +
    `${fmt(ceilingOps / etcdOps, 2)}× etcd, below the ${fmt(factor * etcdOps)} ops/s asked for`
}

/**
 * The same for a put target, by the commit ceiling: the RPC ceiling's server committing each Put's record
 * through etcdlite's backend (its group commit, synced as the run's servers are) before its canned answer.
 * A server that must commit a put before answering it cannot beat that.
 */
export function commitOutOfReach(factor: number, etcdOps: number | null, commitOps: number | null): OutOfReach {
  return kvOutOfReach(factor, etcdOps, commitOps, COMMIT_CEILING)
}

/**
 * A put target of `share` × the RPC ceiling is out of reach when the commit ceiling is below it: committing
 * the puts alone, with nothing else done, already costs more than the target leaves.
 */
export function commitShareOutOfReach(share: number, rpcOps: number | null, commitOps: number | null): OutOfReach {
  if (rpcOps === null || commitOps === null || rpcOps <= 0) return undefined
  if (commitOps >= share * rpcOps) return undefined
  return `out of reach here: ${COMMIT_CEILING} reached ` +
    `${fmt(commitOps)} ops/s, ${fmt((100 * commitOps) / rpcOps)} % of the RPC ceiling's ${fmt(rpcOps)}, below the ${fmt(share * rpcOps)} ops/s asked for`
}

/** One server's fan-out run, as the summary line gives it. */
export interface FanoutRun {
  readonly eventsPerSec: number
  readonly putsPerSec: number
  /** The writer process's CPU in % of one core. */
  readonly writerCpuPct: number
  /** The watcher processes' CPU per received event, µs. */
  readonly clientUsPerEvent: number
}

export interface FanoutBudget {
  readonly factor: number
  readonly watchers: number
  readonly cores: number
  readonly etcd: FanoutRun
  readonly lite: FanoutRun
  /** Server CPU per put of the RPC ceiling (canned answers) under the writer's load, µs; null if not measured. */
  readonly ceilingUsPerPut: number | null
  /** The load generator's CPU per put against that ceiling, in cores·s (its cheapest puts); null if not measured. */
  readonly ceilingWriterCoresPerPut: number | null
  /** Server CPU per event of the push ceiling (pre-encoded responses, as batched as the servers'), µs; null if not measured. */
  readonly pushUsPerEvent: number | null
}

/**
 * A fan-out target of `factor` × etcd's events/s is out of reach when the CPU it needs, counted at the
 * cheapest measured cost of each part, exceeds the machine's cores. At the target rate, with every put
 * reaching every watcher (the fewest puts it can take): the writer's CPU for those puts (its cheapest per put
 * in the two runs and against the RPC ceiling), the watcher processes' CPU for those events (the cheaper of
 * the two runs per event), the RPC ceiling's CPU answering those puts with canned responses, and the push
 * ceiling's CPU pushing those events pre-encoded.
 */
export function fanoutOutOfReach(b: FanoutBudget): OutOfReach {
  if (b.ceilingUsPerPut === null || b.watchers <= 0 || b.etcd.eventsPerSec <= 0) return undefined
  const runs = [b.etcd, b.lite].filter((r) => r.putsPerSec > 0 && r.eventsPerSec > 0)
  if (runs.length === 0) return undefined
  const events = b.factor * b.etcd.eventsPerSec
  const puts = events / b.watchers
  const writerCoresPerPut = Math.min(...runs.map((r) => r.writerCpuPct / 100 / r.putsPerSec), b.ceilingWriterCoresPerPut ?? Infinity)
  const clientUsPerEvent = Math.min(...runs.map((r) => r.clientUsPerEvent))
  const writer = writerCoresPerPut * puts
  const watchers = (clientUsPerEvent * events) / 1e6
  const answer = (b.ceilingUsPerPut * puts) / 1e6
  const push = ((b.pushUsPerEvent ?? 0) * events) / 1e6
  const total = writer + watchers + answer + push
  if (total <= b.cores) return undefined
  return `out of reach here: ${fmt(events)} events/s take at least ${fmt(puts)} puts/s; at the cheapest costs ` +
    `this run measured, the writer needs ${fmt(writer, 2)} cores, the watcher processes ${fmt(watchers, 2)}, ` +
    `a server answering the puts with canned responses ${fmt(answer, 2)}` +
    `${b.pushUsPerEvent === null ? '' : ` and pushing the events pre-encoded ${fmt(push, 2)}`}: ` +
    `${fmt(total, 2)} of the machine's ${b.cores} cores`
}

/**
 * A full-speed fan-out target of `factor` × etcd's events/s is out of reach when the puts it takes exceed the
 * commit ceiling. Each put reaches every watcher at most once, so `factor` × etcd's events/s takes at least
 * that many events ÷ `watchers` puts/s; the full-speed writer is put-16conn's load (16 puts in flight on 16
 * connections), and on that load a server that must commit each put before answering it does not beat the
 * commit ceiling, which serves no watchers at all.
 */
export function fanoutCommitOutOfReach(factor: number, watchers: number, etcdEventsPerSec: number | null, commitOps: number | null): OutOfReach {
  if (etcdEventsPerSec === null || commitOps === null || watchers <= 0 || etcdEventsPerSec <= 0) return undefined
  const events = factor * etcdEventsPerSec
  const puts = events / watchers
  if (commitOps >= puts) return undefined
  return `out of reach here: ${fmt(events)} events/s to ${fmt(watchers)} watchers take at least ${fmt(puts)} puts/s ` +
    `from the writer (put-16conn's load), and on that load ${COMMIT_CEILING} reached ${fmt(commitOps)} ops/s with no watchers`
}
