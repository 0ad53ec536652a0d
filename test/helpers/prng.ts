// A small seeded PRNG (sfc32) for reproducible random tests: same seed, same sequence, on every platform.

/** Seeded pseudo-random generator. Every test that uses one prints its seed when it fails. */
export class Prng {
  readonly seed: number
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(seed: number) {
    this.seed = seed >>> 0
    this.a = 0x9e3779b9
    this.b = 0x243f6a88
    this.c = 0xb7e15162
    this.d = this.seed
    for (let i = 0; i < 16; i++) this.u32()
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    this.a >>>= 0
    this.b >>>= 0
    this.c >>>= 0
    this.d >>>= 0
    const t = (this.a + this.b) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.d = (this.d + 1) | 0
    const r = (t + this.d) | 0
    this.c = (this.c + r) | 0
    return r >>> 0
  }

  /** A uniform float in [0, 1). */
  float(): number {
    return this.u32() / 4294967296
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n)
  }

  /** A uniform integer in [lo, hi] (inclusive). */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1)
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p
  }

  /** A uniform element of a non-empty array. */
  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error('pick from an empty array')
    return xs[this.int(xs.length)] as T
  }

  /** Choose by weight: [[weight, value], …]. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((s, [w]) => s + w, 0)
    let x = this.float() * total
    for (const [w, v] of choices) {
      if (x < w) return v
      x -= w
    }
    const last = choices[choices.length - 1]
    if (last === undefined) throw new Error('weighted choice from an empty list')
    return last[1]
  }
}

/**
 * Seeds for a randomized test: `envVar` (comma-separated) replays exact seeds; otherwise `defaults`.
 */
export function seedsFromEnv(envVar: string, defaults: readonly number[]): number[] {
  const raw = process.env[envVar]
  if (raw === undefined || raw.trim() === '') return [...defaults]
  return raw.split(',').map((s) => {
    const n = Number(s.trim())
    if (!Number.isSafeInteger(n)) throw new Error(`${envVar}: not an integer seed: ${s}`)
    return n
  })
}
