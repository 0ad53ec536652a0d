// The contract between the micro-benchmark harness (run.ts) and a suite: a suite builds its fixtures and
// hands back tasks. A task that takes nanoseconds does `batch` operations per call, so the timer's
// resolution and the call overhead are spread over them; the harness reports per operation.

export interface MicroTask {
  readonly name: string
  /** Operations per call of `fn` (default 1). */
  readonly batch?: number
  readonly fn: () => unknown
}

export interface MicroSuite {
  /** Prefix of the task names, e.g. 'kv-codec'. */
  readonly name: string
  tasks(): MicroTask[] | Promise<MicroTask[]>
  /** Release what tasks() opened (stores, timers). */
  close?(): Promise<void>
}

/** Deterministic pseudo-random integers in [0, n), so every run measures the same inputs. */
export function seeded(seed = 1): (n: number) => number {
  let x = seed >>> 0 || 1
  return (n) => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % n
  }
}

/** `n` bytes of 'a'. */
export const bytes = (n: number): Uint8Array => new Uint8Array(n).fill(0x61)

const enc = new TextEncoder()
/** The UTF-8 bytes of `s`. */
export const utf8 = (s: string): Uint8Array => enc.encode(s)
