// The ceilings in the runner's tables: per workload, what the bare ceiling program reached on this machine
// in the same run, and each server's result as a fraction of it, so that each workload's result can be read
// against what any server could reach on this machine.
import type { RpcCeilingResult } from '../ceilings/rpc-ceiling.js'
import type { StorageCeilingRow } from '../ceilings/storage-ceiling.js'
import type { PushCeilingResult } from '../ceilings/push-ceiling.js'
import { median } from './stats.js'
import { fmt, printRows } from './table.js'
import type { Op } from './workloads.js'

/** The KV ops the RPC ceiling answers (canned Range and Put; a mix of both). */
export const RPC_CEILING_OPS: ReadonlySet<Op> = new Set<Op>(['put', 'range', 'mix'])
/** The KV ops the commit ceiling measures: Puts committed to LevelDB before the canned answer. */
export const COMMIT_CEILING_OPS: ReadonlySet<Op> = new Set<Op>(['put'])

export type RpcCeilingMeasurement = RpcCeilingResult & { readonly round: number; readonly workload: string }
export type PushCeilingMeasurement = PushCeilingResult & { readonly round: number; readonly workload: string }
export type StorageCeilingMeasurement = StorageCeilingRow & { readonly round: number }

/** One line of the ceilings table: the ceiling's median and each server's median as a share of it. */
export interface CeilingLine {
  readonly kind: 'rpc' | 'commit' | 'push'
  readonly workload: string
  /** ops/s (rpc) or events/s (push). */
  readonly ceiling: number
  readonly etcd: number | null
  readonly lite: number | null
}

/** `kind`: 'rpc' for the RPC ceiling's measurements, 'commit' for the commit ceiling's (the same server, committing Puts). */
export function rpcCeilingLines(ms: readonly RpcCeilingMeasurement[], served: ReadonlyMap<string, { etcd: number | null; lite: number | null }>, kind: 'rpc' | 'commit' = 'rpc'): CeilingLine[] {
  const names = [...new Set(ms.map((m) => m.workload))]
  return names.map((workload) => ({
    kind,
    workload,
    ceiling: median(ms.filter((m) => m.workload === workload).map((m) => m.opsPerSec)),
    etcd: served.get(workload)?.etcd ?? null,
    lite: served.get(workload)?.lite ?? null,
  }))
}

export function pushCeilingLines(ms: readonly PushCeilingMeasurement[], served: ReadonlyMap<string, { etcd: number | null; lite: number | null }>): CeilingLine[] {
  const names = [...new Set(ms.map((m) => m.workload))]
  return names.map((workload) => ({
    kind: 'push',
    workload,
    ceiling: median(ms.filter((m) => m.workload === workload).map((m) => m.eventsPerSec)),
    etcd: served.get(workload)?.etcd ?? null,
    lite: served.get(workload)?.lite ?? null,
  }))
}

const pct = (x: number | null, of: number): string => (x === null || of <= 0 ? '' : `${fmt((100 * x) / of, 0)}%`)

export function printCeilingTables(lines: readonly CeilingLine[], storage: readonly StorageCeilingMeasurement[]): void {
  const out = process.stdout
  if (lines.length > 0) {
    out.write('\nceilings: the same load against a bare grpc-js server with canned answers (rpc, ops/s), the same server\n' +
      'committing each Put to LevelDB before answering (commit, ops/s), or a bare Watch stream pushing\n' +
      'pre-encoded responses (push, events/s), same run; each server as a share of it (medians)\n\n')
    printRows(
      ['workload', 'ceiling', 'etcd', 'etcd % of ceiling', 'etcdlite', 'etcdlite % of ceiling'],
      lines.map((l) => [`${l.workload} (${l.kind})`, fmt(l.ceiling, 0), fmt(l.etcd, 0), pct(l.etcd, l.ceiling), fmt(l.lite, 0), pct(l.lite, l.ceiling)]),
    )
  }
  if (storage.length > 0) {
    out.write('\nstorage ceiling: raw classic-level writes of the records a put writes, one batch in flight (medians)\n\n')
    const keys = [...new Set(storage.map((r) => `${r.batchSize}/${String(r.sync)}`))]
    printRows(
      ['batch', 'sync', 'puts/s', 'batches/s', 'p50 ms', 'p99 ms'],
      keys.map((k) => {
        const rs = storage.filter((r) => `${r.batchSize}/${String(r.sync)}` === k)
        const first = rs[0] as StorageCeilingMeasurement
        return [
          String(first.batchSize), String(first.sync), fmt(median(rs.map((r) => r.putsPerSec)), 0), fmt(median(rs.map((r) => r.batchesPerSec)), 0),
          fmt(median(rs.map((r) => r.p50Ms)), 2), fmt(median(rs.map((r) => r.p99Ms)), 2),
        ]
      }),
    )
  }
}
