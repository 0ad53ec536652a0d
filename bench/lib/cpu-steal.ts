// CPU time the hypervisor gave to other guests while this machine's vCPUs wanted to run ("steal", the
// eighth field of /proc/stat's cpu line). On a shared VM it is what makes one run's figures differ from
// the next: the report gives it for the whole run, so a reader can tell a quiet run from a noisy one.
import { readFileSync } from 'node:fs'

export interface CpuTimes {
  /** Jiffies stolen, summed over all CPUs. */
  readonly steal: number
  /** Jiffies of every kind (user, nice, system, idle, iowait, irq, softirq, steal), summed over all CPUs. */
  readonly total: number
}

/** The machine's CPU times now; undefined where /proc/stat is missing (not Linux). */
export function readCpuTimes(statText?: string): CpuTimes | undefined {
  let text = statText
  if (text === undefined) {
    try {
      text = readFileSync('/proc/stat', 'utf8')
    } catch {
      return undefined
    }
  }
  const line = text.split('\n').find((l) => l.startsWith('cpu '))
  if (line === undefined) return undefined
  // user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already in user.
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number)
  if (f.length < 8 || f.some((x) => !Number.isFinite(x))) return undefined
  return { steal: f[7] ?? 0, total: f.reduce((a, b) => a + b, 0) }
}

/** Steal between two readings, in % of all CPU time that passed; null when either is missing or none passed. */
export function stealPct(from: CpuTimes | undefined, to: CpuTimes | undefined): number | null {
  if (from === undefined || to === undefined) return null
  const total = to.total - from.total
  if (total <= 0) return null
  return Number((((to.steal - from.steal) / total) * 100).toFixed(1))
}
