// CPU time from Linux's /proc, for what each request costs in CPU: a server's over all its threads, its main
// thread's (the one thread that runs a Node server's JavaScript, so a Node server is bound by one core
// however many the machine has), and that of this process's reaped children (etcd's benchmark tool, once
// it has exited). Undefined where /proc cannot be read, so a run elsewhere reports no CPU rather than a
// wrong one.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** CPU milliseconds at one moment, to subtract from a later sample. */
export interface CpuSample {
  /** The server process, all threads, user + system. */
  readonly serverMs: number
  /** Its main thread alone. */
  readonly mainMs: number
  /** The exited children of this process, user + system. */
  readonly childrenMs: number
  /** performance.now() when taken. */
  readonly at: number
}

/** A server's CPU over one run of the tool, and the tool's. */
export interface CpuUse {
  readonly serverMs: number
  readonly mainMs: number
  readonly toolMs: number
  readonly wallMs: number
}

let tickMs: number | undefined
/** Milliseconds per clock tick, the unit of /proc's CPU times (USER_HZ, 100 on nearly every Linux). */
function msPerTick(): number {
  if (tickMs === undefined) {
    let hz = 100
    try {
      hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()) || 100
    } catch {
      // no getconf: the usual value
    }
    tickMs = 1000 / hz
  }
  return tickMs
}

/** utime + stime, or cutime + cstime with `children`, of a /proc stat file, in ms. */
function statCpuMs(path: string, children = false): number | undefined {
  let s: string
  try {
    s = readFileSync(path, 'latin1')
  } catch {
    return undefined
  }
  // The command name, in parentheses, may hold spaces and parentheses itself: fields count from the last ')'.
  // After it come field 3 (state) onward; utime is field 14, stime 15, cutime 16, cstime 17.
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ')
  const [a, b] = children ? [f[13], f[14]] : [f[11], f[12]]
  const ticks = Number(a) + Number(b)
  return Number.isFinite(ticks) ? ticks * msPerTick() : undefined
}

/** The CPU times of server `pid` and of this process's reaped children, now. */
export function cpuSample(pid: number): CpuSample | undefined {
  const serverMs = statCpuMs(`/proc/${pid}/stat`)
  const mainMs = statCpuMs(`/proc/${pid}/task/${pid}/stat`)
  const childrenMs = statCpuMs('/proc/self/stat', true)
  if (serverMs === undefined || mainMs === undefined || childrenMs === undefined) return undefined
  return { serverMs, mainMs, childrenMs, at: performance.now() }
}

/** What was used between `before` and now; undefined when either sample is missing. */
export function cpuSince(before: CpuSample | undefined, pid: number): CpuUse | undefined {
  const now = cpuSample(pid)
  if (before === undefined || now === undefined) return undefined
  return { serverMs: now.serverMs - before.serverMs, mainMs: now.mainMs - before.mainMs, toolMs: now.childrenMs - before.childrenMs, wallMs: now.at - before.at }
}
