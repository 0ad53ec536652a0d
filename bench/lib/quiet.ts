// Waiting for the machine to go quiet before a measurement. Both servers stay up through the KV workloads,
// and a server keeps working after its load stops (etcd's snapshots and backend commits, LevelDB's
// compactions): without a wait that work lands in the next measurement's window, which on 2 cores is the
// other server's. The wait reads the whole machine's CPU from /proc/stat, so it also covers load processes
// still exiting and page-cache writeback.
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

/** Busy and total jiffies of all CPUs so far; undefined off Linux. */
function machineJiffies(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? ''
    // user nice system idle iowait irq softirq steal (guest time is already counted in user): idle, iowait
    // and steal (another guest's time on this host) are not this machine's work.
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number)
    const total = f.reduce((a, b) => a + b, 0)
    const notBusy = (f[3] ?? 0) + (f[4] ?? 0) + (f[7] ?? 0)
    return Number.isFinite(total) ? { busy: total - notBusy, total } : undefined
  } catch {
    return undefined
  }
}

export interface QuietOptions {
  /** Quiet = the machine's CPU use over one interval is under this fraction of one core. */
  readonly maxCores: number
  /** Length of one sampling interval. */
  readonly intervalMs: number
  /** This many successive quiet intervals end the wait. */
  readonly intervals: number
  /** Give up after this long (a machine that never goes quiet still gets measured). */
  readonly timeoutMs: number
}

export const QUIET_DEFAULTS: QuietOptions = { maxCores: 0.1, intervalMs: 250, intervals: 2, timeoutMs: 10_000 }

/**
 * Wait until the machine's CPU use stays under `maxCores` of one core for `intervals` successive
 * intervals, or `timeoutMs` has passed. Resolves to the milliseconds waited and whether it went quiet.
 */
export async function waitForQuiet(o: QuietOptions = QUIET_DEFAULTS): Promise<{ waitedMs: number; quiet: boolean }> {
  const t0 = performance.now()
  let prev = machineJiffies()
  if (prev === undefined) return { waitedMs: 0, quiet: false }
  let streak = 0
  while (performance.now() - t0 < o.timeoutMs) {
    await sleep(o.intervalMs)
    const now = machineJiffies()
    if (now === undefined) break
    const total = now.total - prev.total
    // total jiffies span all CPUs: busy ÷ total × cores = cores in use.
    // No jiffies counted (the guest was not run): no evidence of quiet.
    const cores = total > 0 ? ((now.busy - prev.busy) / total) * cpuCount() : Number.POSITIVE_INFINITY
    prev = now
    streak = cores < o.maxCores ? streak + 1 : 0
    if (streak >= o.intervals) return { waitedMs: Math.round(performance.now() - t0), quiet: true }
  }
  return { waitedMs: Math.round(performance.now() - t0), quiet: false }
}

let cpus: number | undefined
function cpuCount(): number {
  if (cpus === undefined) {
    const text = readFileSync('/proc/stat', 'latin1')
    cpus = Math.max(1, (text.match(/^cpu\d+ /gm) ?? []).length)
  }
  return cpus
}
