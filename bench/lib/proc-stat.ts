// CPU time of a process or thread from its /proc stat line (/proc/<pid>/stat, /proc/<pid>/task/<tid>/stat:
// the same format), for the runner's server CPU and the load generator's main thread.

/** Linux reports these times in USER_HZ ticks, 100 per second on every mainstream build. */
export const USER_HZ = 100

/** utime + stime of a stat line, in ticks; undefined for a line that lacks them. */
export function statCpuTicks(stat: string): number | undefined {
  // Fields after the parenthesised command name (which may hold spaces and parentheses); utime and stime
  // are fields 14 and 15 of the line (1-based), 12 and 13 after the name.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(rest[11]) + Number(rest[12])
  return Number.isFinite(ticks) ? ticks : undefined
}
